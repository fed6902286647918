# Shared by the outside scanners (fuzz-api.sh, tls-scan.sh); sourced, not run.

# pip_tool VENV PACKAGE==VERSION EXECUTABLE: a venv holding PACKAGE, made on first use.
pip_tool() {
    if [ ! -x "$1/bin/$3" ]; then
        python3 -m venv "$1"
        "$1/bin/pip" install -q "$2"
    fi
}

# https_address OUT ERR NAME: waits up to 10 s for `listening on https://ADDRESS` in OUT and
# prints `https://ADDRESS`; exits 1 with ERR's text when NAME never started.
https_address() {
    for _ in $(seq 1 100); do
        grep -q "listening on https://" "$1" 2>/dev/null && break
        sleep 0.1
    done
    local url
    url=$(sed -n 's/^listening on \(https:\/\/[^ ]*\).*/\1/p' "$1")
    [ -n "$url" ] || { echo "$3 did not start: $(cat "$2")" >&2; exit 1; }
    echo "$url"
}
