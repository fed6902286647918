#!/usr/bin/env bash
# Clicks through the hosted checkout (`checkout serve --demo`) in Debian's Chromium, driven by
# Playwright from PyPI (installed into .build/browser-venv on first use): Tests/Browser/hosted_checkout.py.
# Usage: scripts/browser-test.sh [SCREENSHOT_DIR]   (after `swift build --product checkout`)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=scripts/lib-scan.sh
. "$root/scripts/lib-scan.sh"
bash "$root/scripts/ensure-chromium.sh"
venv="${BROWSER_VENV:-$root/.build/browser-venv}"
pip_tool "$venv" "playwright==1.65.3" playwright
executable="$(cd "$root" && swift build --show-bin-path)/checkout"
CHROMIUM="${CHROMIUM:-$(command -v chromium)}" timeout 600 "$venv/bin/python" "$root/Tests/Browser/hosted_checkout.py" "$executable" "$@"
