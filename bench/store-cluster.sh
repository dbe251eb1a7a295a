#!/usr/bin/env bash
# The control plane alone, no media: tessera-store-bench drives the task store with simulated
# nodes (100) and tasks (1,000), once against the embedded SQLite store and once against a
# PostgreSQL server this script starts for itself (own data directory, free loopback port, stopped
# by its PID on exit), and prints one summary table. See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

NODES=100 TASKS=1000 LEASE=2 POLL_MS=250 QPS_SECONDS=5 STEADY_SECONDS=12
RUN_SQLITE=1 RUN_POSTGRES=1 BUILD=1
usage() {
    echo "usage: bench/store-cluster.sh [--nodes N] [--tasks N] [--lease S] [--poll-ms MS] [--qps-seconds S] [--steady-seconds S]"
    echo "                              [--sqlite-only | --postgres-only] [--no-build]"
}
while [ $# -gt 0 ]; do
    case "$1" in
        --nodes) NODES=$2; shift 2 ;;
        --tasks) TASKS=$2; shift 2 ;;
        --lease) LEASE=$2; shift 2 ;;
        --poll-ms) POLL_MS=$2; shift 2 ;;
        --qps-seconds) QPS_SECONDS=$2; shift 2 ;;
        --steady-seconds) STEADY_SECONDS=$2; shift 2 ;;
        --sqlite-only) RUN_POSTGRES=0; shift ;;
        --postgres-only) RUN_SQLITE=0; shift ;;
        --no-build) BUILD=0; shift ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
done

BUILD_DIR=${TESSERA_BUILD_DIR:-.build}
if [ "$BUILD" = 1 ]; then
    swift build -c release --product tessera-store-bench --scratch-path "$BUILD_DIR"
fi
BENCH="$BUILD_DIR/release/tessera-store-bench"
[ -x "$BENCH" ] || { echo "store-cluster: $BENCH not found (build it, or drop --no-build)" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/tessera-store-bench.XXXXXX")
PG_PID=""
cleanup() {
    if [ -n "$PG_PID" ] && kill -0 "$PG_PID" 2>/dev/null; then
        kill -TERM "$PG_PID" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$PG_PID" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$PG_PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

COMMON=(--nodes "$NODES" --tasks "$TASKS" --lease "$LEASE" --poll-ms "$POLL_MS" --qps-seconds "$QPS_SECONDS" --steady-seconds "$STEADY_SECONDS")

if [ "$RUN_SQLITE" = 1 ]; then
    echo "== SQLite (embedded, $WORK/sqlite/tasks.sqlite)"
    "$BENCH" "${COMMON[@]}" --state-dir "$WORK/sqlite" | tee "$WORK/sqlite.out"
fi

if [ "$RUN_POSTGRES" = 1 ]; then
    PG_BIN=""
    for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        if [ -x "$dir/initdb" ] && [ -x "$dir/postgres" ]; then PG_BIN=$dir; break; fi
    done
    if [ -z "$PG_BIN" ]; then
        echo "store-cluster: no PostgreSQL server binaries (/usr/lib/postgresql/*/bin): install the" \
             "Debian package postgresql (scripts/install.sh does), or run with --sqlite-only" >&2
        exit 1
    fi
    # initdb and postgres refuse to run as root: as root, run them as Debian's postgres user.
    # setpriv execs, so $! below is the server's own PID.
    AS_PG=()
    if [ "$(id -u)" = 0 ]; then
        chown postgres:postgres "$WORK"
        AS_PG=(setpriv --reuid=postgres --regid=postgres --init-groups --)
    fi
    "${AS_PG[@]}" "$PG_BIN/initdb" -D "$WORK/pgdata" -A trust -U tessera -E UTF8 --no-sync >"$WORK/initdb.log" 2>&1 \
        || { cat "$WORK/initdb.log" >&2; exit 1; }
    PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    # Default durability settings (fsync, synchronous_commit on), like the SQLite side.
    "${AS_PG[@]}" "$PG_BIN/postgres" -D "$WORK/pgdata" -p "$PORT" -k "$WORK" \
        -c listen_addresses=127.0.0.1 -c max_connections=200 >"$WORK/postgres.log" 2>&1 &
    PG_PID=$!
    for i in $(seq 300); do
        "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PORT" && break
        kill -0 "$PG_PID" 2>/dev/null || { cat "$WORK/postgres.log" >&2; exit 1; }
        [ "$i" = 300 ] && { echo "store-cluster: PostgreSQL did not start" >&2; cat "$WORK/postgres.log" >&2; exit 1; }
        sleep 0.1
    done
    "$PG_BIN/createdb" -h 127.0.0.1 -p "$PORT" -U tessera bench
    echo
    echo "== PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') (127.0.0.1:$PORT, pid $PG_PID)"
    "$BENCH" "${COMMON[@]}" --store "postgres://tessera@127.0.0.1:$PORT/bench" | tee "$WORK/postgres.out"
fi

echo
echo "Summary: $NODES nodes, $TASKS tasks, lease ${LEASE} s, orphan poll ~${POLL_MS} ms; times in ms (median/p99)"
echo
echo "| store | read nodes | Placement.choose | createTask | placement total | heartbeat round | lost node: expiry → all claimed | queries/s (mixed) | status writes/s, steady state: before → now (target ≤ 100) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
cat "$WORK/sqlite.out" "$WORK/postgres.out" 2>/dev/null | grep '^TABLE|' \
    | awk -F'|' '{ printf "|"; for (i = 2; i <= NF; i++) printf " %s |", $i; print "" }'
