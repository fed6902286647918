#!/usr/bin/env bash
# Runs CMD... with a throwaway PostgreSQL cluster:
#
#   scripts/with-postgres.sh swift test --filter VaultServerPostgresTests
#
# initdb's a cluster in a temporary directory, starts it on a free loopback port (TCP on
# 127.0.0.1 only, no Unix socket outside the temp dir), creates a database, exports
# CHECKOUTKIT_POSTGRES_URL=postgres://USER@127.0.0.1:PORT/checkoutkit_test, runs CMD and returns its
# exit status. TCP connections need a password (scram-sha-256, a random one per cluster) that is
# in no URL: the script writes it to a password file and exports PGPASSFILE, so every PostgreSQL
# test, and every vault-server they start, gets its password the way a deployment should (libpq
# reads PGPASSFILE; README: Storage and API). The cluster is stopped and removed on every exit path (trap), even when CMD fails or
# the script is interrupted. initdb refuses to run as root, so as root the server runs as the
# `postgres` system user (created by the postgresql-15 package) via runuser.
#
# With --optional first, a machine without PostgreSQL server binaries runs CMD anyway, without
# CHECKOUTKIT_POSTGRES_URL, so the PostgreSQL tests report themselves skipped instead of failing:
#
#   scripts/with-postgres.sh --optional swift test --skip-build
#
# When CHECKOUTKIT_POSTGRES_URL is already set (a developer's own server), CMD runs against it and no
# cluster is started; the tests work in schemas of their own and drop them.
#
# Environment: PG_BIN overrides the server binaries (default: /usr/lib/postgresql/15/bin, else the
# newest /usr/lib/postgresql/*/bin, else initdb on PATH).
set -euo pipefail

OPTIONAL=0
if [ "${1:-}" = "--optional" ]; then
    OPTIONAL=1
    shift
fi
if [ $# -eq 0 ]; then
    echo "usage: scripts/with-postgres.sh [--optional] CMD [ARG...]" >&2
    exit 2
fi

if [ -n "${CHECKOUTKIT_POSTGRES_URL:-}" ]; then
    echo "with-postgres: using the existing CHECKOUTKIT_POSTGRES_URL" >&2
    exec "$@"
fi

find_bin() {
    if [ -n "${PG_BIN:-}" ]; then
        if [ -x "$PG_BIN/initdb" ] && [ -x "$PG_BIN/pg_ctl" ]; then echo "$PG_BIN"; else echo ""; fi
        return
    fi
    if [ -x /usr/lib/postgresql/15/bin/initdb ]; then echo /usr/lib/postgresql/15/bin; return; fi
    local newest
    newest=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
    if [ -n "$newest" ] && [ -x "$newest/initdb" ]; then echo "$newest"; return; fi
    if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; return; fi
    echo ""
}

BIN=$(find_bin)
if [ -z "$BIN" ]; then
    if [ "$OPTIONAL" -eq 1 ]; then
        echo "with-postgres: no PostgreSQL server binaries found; running without CHECKOUTKIT_POSTGRES_URL (PostgreSQL tests will be skipped)" >&2
        unset CHECKOUTKIT_POSTGRES_URL
        exec "$@"
    fi
    echo "with-postgres: no PostgreSQL server binaries (initdb, pg_ctl) found; install postgresql-15" >&2
    exit 1
fi

# Runs a server command as the cluster's owner: ourselves, or `postgres` when we are root.
if [ "$(id -u)" -eq 0 ]; then
    if ! id postgres >/dev/null 2>&1; then
        echo "with-postgres: running as root and there is no 'postgres' user to own the cluster" >&2
        exit 1
    fi
    OWNER=postgres
    as_owner() { runuser -u postgres -- "$@"; }
else
    OWNER=$(id -un)
    as_owner() { "$@"; }
fi

free_port() {
    python3 - <<'PY' 2>/dev/null && return
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()
PY
    # Without python3: a random high port that nothing listens on.
    local port
    for _ in $(seq 1 50); do
        port=$(( 20000 + RANDOM % 40000 ))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return; fi
    done
    return 1
}

# As root the cluster belongs to `postgres`, which may not reach a private $TMPDIR: use /tmp.
if [ "$OWNER" = postgres ] && [ "$(id -u)" -eq 0 ]; then BASE=/tmp; else BASE=${TMPDIR:-/tmp}; fi
WORK=$(mktemp -d "$BASE/checkoutkit-pg.XXXXXX")
DATA="$WORK/data"
LOG="$WORK/server.log"
STARTED=0

cleanup() {
    local status=$?
    if [ "$STARTED" -eq 1 ]; then
        as_owner "$BIN/pg_ctl" -D "$DATA" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$WORK"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

chmod 700 "$WORK"
if [ "$OWNER" = postgres ] && [ "$(id -u)" -eq 0 ]; then chown postgres: "$WORK"; fi

PASSWORD=$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')
printf '%s\n' "$PASSWORD" > "$WORK/initdb.pw"
if [ "$OWNER" = postgres ] && [ "$(id -u)" -eq 0 ]; then chown postgres: "$WORK/initdb.pw"; fi
chmod 600 "$WORK/initdb.pw"
as_owner "$BIN/initdb" -D "$DATA" -U "$OWNER" --auth-local=trust --auth-host=scram-sha-256 --pwfile="$WORK/initdb.pw" \
    --encoding=UTF8 --locale=C.UTF-8 -N >/dev/null 2>"$WORK/initdb.err" \
    || { cat "$WORK/initdb.err" >&2; echo "with-postgres: initdb failed" >&2; exit 1; }
rm -f "$WORK/initdb.pw"

PORT=""
for attempt in 1 2 3; do
    PORT=$(free_port) || { echo "with-postgres: no free port" >&2; exit 1; }
    # fsync off and no full-page writes: a throwaway cluster trades durability for speed.
    if as_owner "$BIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $PORT -k $WORK -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
        start >/dev/null; then
        STARTED=1
        break
    fi
    echo "with-postgres: start on port $PORT failed (attempt $attempt)" >&2
    cat "$LOG" >&2 || true
done
if [ "$STARTED" -ne 1 ]; then exit 1; fi

DB=checkoutkit_test
# The password file libpq reads (it must be 0600), for the invoking user and, as root, the owner.
umask 077
printf '127.0.0.1:%s:*:%s:%s\n' "$PORT" "$OWNER" "$PASSWORD" > "$WORK/pgpass"
export PGPASSFILE="$WORK/pgpass"
if [ "$OWNER" = postgres ] && [ "$(id -u)" -eq 0 ]; then
    cp "$WORK/pgpass" "$WORK/pgpass.owner" && chown postgres: "$WORK/pgpass.owner"
    runuser -u postgres -- env PGPASSFILE="$WORK/pgpass.owner" "$BIN/createdb" -h 127.0.0.1 -p "$PORT" -U "$OWNER" "$DB"
else
    "$BIN/createdb" -h 127.0.0.1 -p "$PORT" -U "$OWNER" "$DB"
fi
umask 022

export CHECKOUTKIT_POSTGRES_URL="postgres://$OWNER@127.0.0.1:$PORT/$DB"
echo "with-postgres: PostgreSQL $("$BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PORT (CHECKOUTKIT_POSTGRES_URL=$CHECKOUTKIT_POSTGRES_URL)" >&2

# CMD runs in the background so that a TERM or INT reaching this script (CI timeouts, Ctrl-C) is
# handled at once: it is forwarded to CMD, and the EXIT trap still stops and removes the cluster.
"$@" &
CHILD=$!
trap 'kill -INT "$CHILD" 2>/dev/null || true; exit 130' INT
trap 'kill -TERM "$CHILD" 2>/dev/null || true; exit 143' TERM
status=0
wait "$CHILD" || status=$?
exit "$status"
