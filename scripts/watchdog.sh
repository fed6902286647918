#!/usr/bin/env bash
# Runs CMD... with a time limit, and makes a hang diagnosable instead of silent:
#
#   scripts/watchdog.sh SECONDS CMD [ARG...]
#
# When CMD runs longer than SECONDS, every thread's stack of each test process still running
# (the `*.xctest` bundle) is printed with gdb (when gdb is installed), the whole command is
# stopped (SIGTERM, then SIGKILL), and the script exits 124. Otherwise it exits with CMD's status.
# A test run that hangs in CI thus fails within its budget and leaves the stacks in the log.
set -uo pipefail

if [ $# -lt 2 ] || ! [[ "$1" =~ ^[0-9]+$ ]]; then
    echo "usage: scripts/watchdog.sh SECONDS CMD [ARG...]" >&2
    exit 2
fi
LIMIT=$1
shift

# CMD gets a session of its own, so stopping it stops everything it started: `swift test` starts
# the test bundle in a process group of its own, but in the same session.
# Line-buffered output (stdbuf, inherited by the test bundle), so a hang's log ends at the last
# line written instead of losing the last block of a buffer.
if command -v stdbuf >/dev/null 2>&1; then setsid stdbuf -oL -eL "$@" & else setsid "$@" & fi
PID=$!
stop_session() { pkill "-$1" -s "$PID" 2>/dev/null; }
trap 'stop_session TERM; wait "$PID"; exit 130' INT TERM

START=$(date +%s)
while kill -0 "$PID" 2>/dev/null; do
    if (( $(date +%s) - START >= LIMIT )); then
        echo "watchdog: '$*' still running after ${LIMIT} s; stacks of the test processes follow" >&2
        for test_pid in $(pgrep -s "$PID" -f '\.xctest' || true); do
            echo "watchdog: ===== $(tr '\0' ' ' < /proc/"$test_pid"/cmdline 2>/dev/null) (pid $test_pid) =====" >&2
            if command -v gdb >/dev/null 2>&1; then
                timeout 120 gdb -p "$test_pid" -batch -nx -ex 'set pagination off' -ex 'thread apply all bt' 2>&1 \
                    | grep -E '^(Thread|#)' >&2
            else
                echo "watchdog: gdb is not installed; no stacks" >&2
            fi
        done
        stop_session TERM
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$PID" 2>/dev/null && sleep 1; done
        stop_session KILL
        wait "$PID" 2>/dev/null
        echo "watchdog: stopped after ${LIMIT} s" >&2
        exit 124
    fi
    sleep 2
done
wait "$PID"
