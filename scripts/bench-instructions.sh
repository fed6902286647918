#!/usr/bin/env bash
# Counts the instructions of three fixed operations with valgrind's callgrind (counted, not timed, so a
# noisy machine cannot move them): one number-only card check, one change-feed request of 20 changes end
# to end over loopback HTTP (client and server), and the initial pull per instrument (5,000 into an
# empty store). Each probe (`checkout-bench --probe NAME --count N`) runs twice, with N = 0 and N = K;
# the difference divided by K is the operation's count, every thread included, the set-up cancelled out.
#
#   scripts/bench-instructions.sh            measure, write bench-results/instructions.json, compare with
#                                            scripts/instructions-reference.json: exit 1 when one count is
#                                            more than 10% above its reference
#   scripts/bench-instructions.sh --refresh  measure and rewrite the reference (commit it with the reason)
#
# Needs a release build of checkout-bench (`make bench-instructions` builds it) and valgrind (installed
# when missing). Valgrind 3.19 cannot read the toolchain's DWARF 5, so it runs on a copy without debug info.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v valgrind >/dev/null; then
    apt-get update -qq && apt-get install -y -qq valgrind >/dev/null
fi
binary=.build/release/checkout-bench
[ -x "$binary" ] || { echo "bench-instructions: build it first: swift build -c release --product checkout-bench" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$binary" "$work/checkout-bench"
strip --strip-debug "$work/checkout-bench"
mkdir -p bench-results

count() {  # probe, N -> the process's total instructions
    valgrind --tool=callgrind --callgrind-out-file="$work/out" "$work/checkout-bench" --probe "$1" --count "$2" \
        --config-dir Config >"$work/stdout" 2>"$work/stderr" || { cat "$work/stderr" >&2; exit 1; }
    grep -q "^probe $1: " "$work/stdout" || { echo "bench-instructions: probe $1 printed nothing" >&2; exit 1; }
    sed -n 's/^totals: *//p' "$work/out"
}

results=()
for spec in "card.number_check card 200000 200000" "server.feed_request feed 100 100" "sync.pull_per_instrument pull 1 5000"; do
    read -r name probe k operations <<<"$spec"
    base=$(count "$probe" 0)
    with=$(count "$probe" "$k")
    results+=("$name $base $with $operations")
    echo "$name: $(( (with - base) / operations )) instructions ($with - $base over $operations operations)"
done

python3 - "$@" "${results[@]}" <<'PY'
import json, sys
args = sys.argv[1:]
refresh = args and args[0] == "--refresh"
if refresh:
    args = args[1:]
measured = {}
for line in args:
    name, base, with_, operations = line.split()
    measured[name] = round((int(with_) - int(base)) / int(operations))
json.dump(measured, open("bench-results/instructions.json", "w"), indent=2, sort_keys=True)
reference_path = "scripts/instructions-reference.json"
if refresh:
    json.dump(measured, open(reference_path, "w"), indent=2, sort_keys=True)
    open(reference_path, "a").write("\n")
    print(f"wrote {reference_path}: commit it with the reason for the new counts")
    sys.exit(0)
reference = json.load(open(reference_path))
failed = False
for name, count in sorted(measured.items()):
    ref = reference.get(name)
    if ref is None:
        print(f"{name}: no reference (run with --refresh)")
        failed = True
        continue
    change = (count - ref) / ref
    verdict = "REGRESSED (more than 10% above the reference)" if change > 0.10 else (
        "improved by more than 10%: refresh the reference" if change < -0.10 else "ok")
    print(f"{name}: {count} vs reference {ref} ({change:+.1%}) {verdict}")
    failed = failed or change > 0.10
sys.exit(1 if failed else 0)
PY
