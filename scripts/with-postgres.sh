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
# reads PGPASSFILE; the vault guide: Storage and API). The cluster is stopped and removed on every exit path (trap), even when CMD fails or
# the script is interrupted. initdb refuses to run as root, so as root the server runs as the
# `postgres` system user (created by the postgresql-15 package) via runuser.
#
# With --optional first, a machine without PostgreSQL server binaries runs CMD anyway, without
# CHECKOUTKIT_POSTGRES_URL, so the PostgreSQL tests report themselves skipped instead of failing:
#
#   scripts/with-postgres.sh --optional swift test --skip-build
#
# With --durable (before or after --optional), a second cluster starts beside the first with the
# durable settings a production server keeps (fsync=on, synchronous_commit=on,
# full_page_writes=on), on its own port and in its own directory, and CMD also gets
# CHECKOUTKIT_POSTGRES_DURABLE_URL: the benchmark's PostgreSQL section measures both side by side:
#
#   scripts/with-postgres.sh --optional --durable swift run -c release checkout-bench --only postgres
#
# When CHECKOUTKIT_POSTGRES_URL is already set (a developer's own server), CMD runs against it and no
# cluster is started (CHECKOUTKIT_POSTGRES_DURABLE_URL, if wanted, is then the developer's to set);
# the tests work in schemas of their own and drop them.
#
# Environment: PG_BIN overrides the server binaries (default: /usr/lib/postgresql/15/bin, else the
# newest /usr/lib/postgresql/*/bin, else initdb on PATH).
set -euo pipefail

OPTIONAL=0
DURABLE=0
while [ $# -gt 0 ]; do
    case "$1" in
        --optional) OPTIONAL=1; shift ;;
        --durable) DURABLE=1; shift ;;
        *) break ;;
    esac
done
if [ $# -eq 0 ]; then
    echo "usage: scripts/with-postgres.sh [--optional] [--durable] CMD [ARG...]" >&2
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
# The data directories of the clusters started so far (the cleanup stops each).
STARTED_DATA=()

cleanup() {
    local status=$?
    local data
    for data in "${STARTED_DATA[@]+"${STARTED_DATA[@]}"}"; do
        as_owner "$BIN/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
    done
    rm -rf "$WORK"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

chmod 700 "$WORK"
if [ "$OWNER" = postgres ] && [ "$(id -u)" -eq 0 ]; then chown postgres: "$WORK"; fi

DB=checkoutkit_test
: > "$WORK/pgpass"
chmod 600 "$WORK/pgpass"
export PGPASSFILE="$WORK/pgpass"

# start_cluster NAME SETTINGS...: initdb's $WORK/NAME, starts it on a free loopback port with the
# given `-c` settings, creates the database and sets CLUSTER_PORT and CLUSTER_URL.
start_cluster() {
    local name=$1
    shift
    local data="$WORK/$name"
    local log="$WORK/$name.log"
    local password
    password=$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')
    printf '%s\n' "$password" > "$WORK/initdb.pw"
    if [ "$OWNER" = postgres ] && [ "$(id -u)" -eq 0 ]; then chown postgres: "$WORK/initdb.pw"; fi
    chmod 600 "$WORK/initdb.pw"
    as_owner "$BIN/initdb" -D "$data" -U "$OWNER" --auth-local=trust --auth-host=scram-sha-256 --pwfile="$WORK/initdb.pw" \
        --encoding=UTF8 --locale=C.UTF-8 -N >/dev/null 2>"$WORK/initdb.err" \
        || { cat "$WORK/initdb.err" >&2; echo "with-postgres: initdb failed" >&2; exit 1; }
    rm -f "$WORK/initdb.pw"

    local port="" started=0 attempt
    for attempt in 1 2 3; do
        port=$(free_port) || { echo "with-postgres: no free port" >&2; exit 1; }
        if as_owner "$BIN/pg_ctl" -D "$data" -l "$log" -w -t 60 \
            -o "-c listen_addresses=127.0.0.1 -p $port -k $WORK $* -c max_connections=200" \
            start >/dev/null; then
            started=1
            STARTED_DATA+=("$data")
            break
        fi
        echo "with-postgres: start on port $port failed (attempt $attempt)" >&2
        cat "$log" >&2 || true
    done
    if [ "$started" -ne 1 ]; then exit 1; fi

    # The password file libpq reads (it must be 0600), for the invoking user and, as root, the owner.
    printf '127.0.0.1:%s:*:%s:%s\n' "$port" "$OWNER" "$password" >> "$WORK/pgpass"
    if [ "$OWNER" = postgres ] && [ "$(id -u)" -eq 0 ]; then
        install -m 600 -o postgres "$WORK/pgpass" "$WORK/pgpass.owner"
        runuser -u postgres -- env PGPASSFILE="$WORK/pgpass.owner" "$BIN/createdb" -h 127.0.0.1 -p "$port" -U "$OWNER" "$DB"
    else
        "$BIN/createdb" -h 127.0.0.1 -p "$port" -U "$OWNER" "$DB"
    fi
    CLUSTER_PORT=$port
    CLUSTER_URL="postgres://$OWNER@127.0.0.1:$port/$DB"
}

# fsync off and no full-page writes: a throwaway cluster trades durability for speed.
start_cluster data -c fsync=off -c synchronous_commit=off -c full_page_writes=off
export CHECKOUTKIT_POSTGRES_URL="$CLUSTER_URL"
echo "with-postgres: PostgreSQL $("$BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$CLUSTER_PORT (CHECKOUTKIT_POSTGRES_URL=$CHECKOUTKIT_POSTGRES_URL)" >&2
if [ "$DURABLE" -eq 1 ]; then
    # What a production server keeps: every commit flushed to disk before it is acknowledged.
    start_cluster durable -c fsync=on -c synchronous_commit=on -c full_page_writes=on
    export CHECKOUTKIT_POSTGRES_DURABLE_URL="$CLUSTER_URL"
    echo "with-postgres: durable cluster (fsync=on, synchronous_commit=on) (CHECKOUTKIT_POSTGRES_DURABLE_URL=$CHECKOUTKIT_POSTGRES_DURABLE_URL)" >&2
fi

# CMD runs in the background so that a TERM or INT reaching this script (CI timeouts, Ctrl-C) is
# handled at once: it is forwarded to CMD, and the EXIT trap still stops and removes the cluster.
"$@" &
CHILD=$!
trap 'kill -INT "$CHILD" 2>/dev/null || true; exit 130' INT
trap 'kill -TERM "$CHILD" 2>/dev/null || true; exit 143' TERM
status=0
wait "$CHILD" || status=$?
exit "$status"
