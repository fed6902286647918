#!/usr/bin/env bash
# Fuzzes the vault server against its OpenAPI contract (Config/vault-server.openapi.yaml), and
# sandbox-psp against Config/processor-api.openapi.yaml (at the end), with
# schemathesis from PyPI, over HTTPS, once with a merchant API key and once with an ephemeral
# customer key: every check (no 5xx, answers that match the schema, only declared statuses and
# headers, Allow on 405, ...) across the examples, coverage, fuzzing and stateful phases, but two
# that judge meaning rather than the contract and do not fit this API by design:
#   positive_data_acceptance  a schema-valid request must get 2xx; here a well-formed cursor the
#                             server never issued is 400 invalid-cursor, an op id reused with
#                             another body is 422, and text that looks like a card number is 400
#                             sensitive-data-rejected, wherever it hides;
#   negative_data_rejection   a schema-violating request must get 4xx; here a malformed op in a
#                             batch is answered 200 with that op `rejected` (invalid-op), so one
#                             bad op never blocks a device's queue.
# Those per-op verdicts inside a 200 are invisible to every stock check, so a green run alone says
# nothing about writes. Hence, for the vault server:
#   - scripts/fuzz-api-hooks.py applies the two op rules JSON Schema cannot state (an upsert's
#     method.id equals its instrumentId; an opId names one op for good) to the bodies generated
#     valid, so their ops can apply; everything else comes from the document;
#   - scripts/fuzz-api-ops.py scenario creates, defaults, edits and deletes instruments with each
#     key and checks every step through the GET endpoints;
#   - scripts/fuzz-api-ops.py share then reads what schemathesis sent (its NDJSON reports) and what
#     the server recorded (its SQLite op records and instruments), prints the figures, and fails
#     when fewer than FUZZ_API_MIN_APPLIED percent (default 15) of the schema-valid ops were
#     applied, when any was rejected for a rule the schema states, or when the fuzz left no
#     instrument created, defaulted, edited and deleted. The rest are not applied by design:
#     deletes and setDefaults of ids the customer never had, upserts at a wrong version or of a
#     deleted id (the coverage phase reuses one id), digit runs and card-number look-alikes
#     (rules the document describes but a schema cannot state), and the ephemeral run's ops on
#     other customers (404).
# Bounded: each run stops after FUZZ_API_EXAMPLES examples per operation (default 40) and
# FUZZ_API_SECONDS.
#   usage: scripts/fuzz-api.sh   (after `swift build`; `make test-long` runs it)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
examples=${FUZZ_API_EXAMPLES:-40}
limit=${FUZZ_API_SECONDS:-600}
min_applied=${FUZZ_API_MIN_APPLIED:-15}
bin=$(swift build --show-bin-path)
source "$root/scripts/lib-scan.sh"
venv="${SCHEMATHESIS_VENV:-$root/.build/schemathesis-venv}"
# The hooks module is imported from scripts/: no __pycache__ left in the checkout.
export PYTHONDONTWRITEBYTECODE=1
pip_tool "$venv" "schemathesis==4.32.5" st

work=$(mktemp -d)
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
bash "$root/scripts/make-test-pki.sh" "$work/pki"
merchant_key="fuzz-$(openssl rand -hex 24)"
# The shipped limits, except the ones a fuzzer trips by design: it sends thousands of missing
# and wrong credentials from one address (the failed-authentication budget would answer them 429
# auth-throttled instead of the 401 the contract says, which AuthenticationAbuseTests checks) and
# hammers one customer (the per-customer and per-address rates, and the write budgets).
cat > "$work/vault-server.json" <<'JSON'
{"listen": {"host": "127.0.0.1", "port": 0}, "tombstoneRetentionSeconds": 2592000, "threads": 4,
 "limits": {"maxBodyBytes": 1048576, "maxPageSize": 1000, "defaultPageSize": 200, "maxOpsPerBatch": 500,
            "rateLimitPerSecond": 0, "rateLimitBurst": 4000, "customerRateLimitPerSecond": 0,
            "addressRateLimitPerSecond": 0, "failedAuthBurst": 0, "deviceWriteOpsPerHour": 0,
            "customerWriteOpsPerHour": 0}}
JSON
(cd "$work" && exec "$bin/vault-server" --config "$work/vault-server.json" --db "$work/vault.sqlite" --port 0 \
    --api-key "$merchant_key:merchant_fuzz" \
    --tls-cert "$work/pki/server.pem" --tls-key "$work/pki/server.key" > "$work/server.out" 2> "$work/server.err") &
server_pid=$!
url=$(https_address "$work/server.out" "$work/server.err" vault-server)

secret=$("$bin/checkout" vault key create --remote "$url" --api-key "$merchant_key" --customer c_fuzz \
    --ca-bundle "$work/pki/ca.pem" --ttl 86400 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["secret"])')

status=0
for kind in merchant ephemeral; do
    key=$merchant_key
    [ "$kind" = ephemeral ] && key=$secret
    echo "== schemathesis over HTTPS with the $kind key ($examples examples per operation)"
    if ! SCHEMATHESIS_HOOKS="$root/scripts/fuzz-api-hooks.py" timeout "$limit" "$venv/bin/st" --no-color run \
        "$root/Config/vault-server.openapi.yaml" --url "$url" \
        --tls-verify "$work/pki/ca.pem" -H "Authorization: Bearer $key" --checks all \
        --exclude-checks positive_data_acceptance,negative_data_rejection \
        --max-examples "$examples" --seed 20261201 --request-timeout 30 \
        --report junit,ndjson --report-junit-path "$work/$kind.xml" --report-ndjson-path "$work/$kind.ndjson"; then
        status=1
    fi
done

# The write path, scripted: with the merchant key on a customer of its own, and with the
# ephemeral key on its customer (a device's writes). After the fuzz, so its figures stay its own.
echo "== create, default, edit and delete, checked through the GET endpoints"
for kind in merchant ephemeral; do
    key=$merchant_key customer=c_scenario
    [ "$kind" = ephemeral ] && key=$secret customer=c_fuzz
    timeout 120 "$venv/bin/python" "$root/scripts/fuzz-api-ops.py" scenario "$url" "$work/pki/ca.pem" "$key" "$customer" \
        || status=1
done
# What the fuzz really wrote, from the server's own records (read once it has stopped).
kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true
echo "== ops the fuzz generated valid, and what the server did with them"
"$venv/bin/python" "$root/scripts/fuzz-api-ops.py" share "$min_applied" "$work/vault.sqlite" \
    "$work/merchant.ndjson" "$work/ephemeral.ndjson" || status=1

# Sandbox-psp against Config/processor-api.openapi.yaml, over HTTPS with the same PKI.
# positive_data_acceptance is left out: a schema-valid card number that fails Luhn is 400
# invalid-payment-data by design.
"$bin/sandbox-psp" --port 0 --name psp-fuzz --tls-cert "$work/pki/server.pem" --tls-key "$work/pki/server.key" \
    > "$work/psp.out" 2> "$work/psp.err" &
server_pid=$!
psp_url=$(https_address "$work/psp.out" "$work/psp.err" sandbox-psp)
echo "== schemathesis against sandbox-psp over HTTPS ($examples examples per operation)"
if ! (cd "$work" && timeout "$limit" "$venv/bin/st" --no-color run "$root/Config/processor-api.openapi.yaml" --url "$psp_url" \
    --tls-verify "$work/pki/ca.pem" --checks all --exclude-checks positive_data_acceptance \
    --max-examples "$examples" --seed 20261201 --request-timeout 30); then
    status=1
fi
exit $status
