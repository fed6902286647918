#!/usr/bin/env bash
# Scans vault-server's default TLS profile with sslyze (PyPI), a scanner that shares nothing with
# the server or its tests, and fails on any protocol or suite outside Mozilla's "intermediate"
# profile: SSL and TLS below 1.2, TLS 1.2 suites without ECDHE or without AEAD (static RSA, CBC,
# SHA-1 MACs), TLS 1.3 CCM suites. `make test-long` runs it.
# TLS_SCAN_PRIORITY scans `--tls-priority` with that GnuTLS string instead (e.g. to check a
# profile before deploying it).
#   usage: scripts/tls-scan.sh   (after `swift build`)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
bin=$(swift build --show-bin-path)
source "$root/scripts/lib-scan.sh"
venv="${SSLYZE_VENV:-$root/.build/sslyze-venv}"
pip_tool "$venv" "sslyze==6.1.0" sslyze

work=$(mktemp -d)
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
bash "$root/scripts/make-test-pki.sh" "$work/pki"
("$bin/vault-server" --db "$work/vault.sqlite" --port 0 --api-key "scan-$(openssl rand -hex 24):merchant_scan" \
    --tls-cert "$work/pki/server.pem" --tls-key "$work/pki/server.key" \
    ${TLS_SCAN_PRIORITY:+--tls-priority "$TLS_SCAN_PRIORITY"} > "$work/server.out" 2> "$work/server.err") &
server_pid=$!
address=$(https_address "$work/server.out" "$work/server.err" vault-server)
address=${address#https://}

"$venv/bin/sslyze" --quiet --json_out "$work/scan.json" \
    --sslv2 --sslv3 --tlsv1 --tlsv1_1 --tlsv1_2 --tlsv1_3 "$address" > /dev/null
"$venv/bin/python" - "$work/scan.json" <<'PY'
import json, sys
scan = json.load(open(sys.argv[1]))
results = scan["server_scan_results"][0]
if results["scan_status"] != "COMPLETED":
    sys.exit("sslyze could not scan the server: %s" % results.get("connectivity_error_trace"))
commands = results["scan_result"]
accepted = {}
for protocol in ["ssl_2_0_cipher_suites", "ssl_3_0_cipher_suites", "tls_1_0_cipher_suites", "tls_1_1_cipher_suites",
                 "tls_1_2_cipher_suites", "tls_1_3_cipher_suites"]:
    attempt = commands[protocol]
    if attempt["status"] != "COMPLETED":
        sys.exit("sslyze failed on %s: %s" % (protocol, attempt.get("error_trace")))
    accepted[protocol] = [suite["cipher_suite"]["name"] for suite in attempt["result"]["accepted_cipher_suites"]]
weak = []
for protocol in ["ssl_2_0_cipher_suites", "ssl_3_0_cipher_suites", "tls_1_0_cipher_suites", "tls_1_1_cipher_suites"]:
    weak += ["%s %s" % (protocol, name) for name in accepted[protocol]]
for name in accepted["tls_1_2_cipher_suites"]:
    if not name.startswith("TLS_ECDHE_") or not ("_GCM_" in name or "CHACHA20_POLY1305" in name):
        weak.append("TLS 1.2 " + name)
for name in accepted["tls_1_3_cipher_suites"]:
    if "CCM" in name:
        weak.append("TLS 1.3 " + name)
print("sslyze: TLS 1.2 accepts %s; TLS 1.3 accepts %s" % (accepted["tls_1_2_cipher_suites"], accepted["tls_1_3_cipher_suites"]))
if not accepted["tls_1_2_cipher_suites"] or not accepted["tls_1_3_cipher_suites"]:
    sys.exit("sslyze found no TLS 1.2 or no TLS 1.3 suite: the scan did not reach the server")
if weak:
    sys.exit("weak TLS accepted: " + ", ".join(weak))
PY
