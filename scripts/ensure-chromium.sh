#!/usr/bin/env bash
# Installs Debian's chromium package when it is missing: `checkout preview --png`, `make preview` and
# the browser tests (Tests/CheckoutPreviewTests, skipped without it) take screenshots with it.
# Only `make preview` and .ci/run call this: a plain `make test` does not install a browser.
set -euo pipefail

if command -v chromium >/dev/null 2>&1 || [ -x "${CHROMIUM:-/nonexistent}" ]; then
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO="sudo"
    else
        echo "error: chromium is missing and this is not root (no sudo): apt-get install chromium, or set CHROMIUM" >&2
        exit 1
    fi
fi

echo "installing chromium (for preview screenshots)" >&2
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
