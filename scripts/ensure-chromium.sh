#!/usr/bin/env bash
# Installs Debian's chromium package when it is missing: `checkout preview --png`, `make preview` and
# the browser tests (Tests/CheckoutPreviewTests, skipped without it) take screenshots with it.
# Only `make preview` and .ci/run call this: a plain `make test` does not install a browser.
set -euo pipefail

if command -v chromium >/dev/null 2>&1 || [ -x "${CHROMIUM:-/nonexistent}" ]; then
    exit 0
fi
exec bash "$(dirname "$0")/ensure-system-packages.sh" chromium
