#!/usr/bin/env bash
# Installs the Debian packages CheckoutKit builds against (or the ones named as arguments), only when missing.
# Runs `apt-get update` at most once, and only when something has to be installed.
set -euo pipefail

REQUIRED=(libsqlite3-dev uuid-dev libpng-dev libmicrohttpd-dev libpq-dev libcurl4-openssl-dev libssl-dev openssl ca-certificates python3)
# Other packages by name instead (scripts/ensure-chromium.sh passes `chromium`).
if [ $# -gt 0 ]; then REQUIRED=("$@"); fi

missing=()
for package in "${REQUIRED[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO="sudo"
    else
        echo "error: missing packages ${missing[*]} and not root (no sudo); install them and retry" >&2
        exit 1
    fi
fi

echo "installing missing system packages: ${missing[*]}" >&2
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
