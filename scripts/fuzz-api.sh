#!/usr/bin/env bash
# Schema-driven fuzz of the HTTP API: schemathesis (PyPI) generates requests from the server's own
# /openapi.yaml — valid documents, broken ones, odd strings and numbers, every operation, plus
# stateful sequences (create, then get / patch / delete what was created) — against a real
# `tessera serve` with a token. It fails on any 5xx, on answers that break the document (status
# codes, headers, content types, bodies), and if the server does not survive; it prints how many
# requests it sent.
#
#   bash scripts/fuzz-api.sh                  # what scripts/test.sh runs
#   FUZZ_EXAMPLES=200 bash scripts/fuzz-api.sh
#
# Environment knobs: TESSERA_BIN [.build/release/tessera], TESSERA_VENV [.venv-test],
# FUZZ_EXAMPLES per operation and phase [200], FUZZ_SEED [20261122] (fixed: a run is repeatable).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
VENV="${TESSERA_VENV:-.venv-test}"
BIN="${TESSERA_BIN:-$REPO/.build/release/tessera}"
EXAMPLES="${FUZZ_EXAMPLES:-200}"
SEED="${FUZZ_SEED:-20261122}"

log() { printf '\033[1m==> [fuzz] %s\033[0m\n' "$*" >&2; }
die() { printf 'error: [fuzz] %s\n' "$*" >&2; exit 1; }

[[ -x "$BIN" ]] || die "no tessera binary at $BIN (build it, or set TESSERA_BIN)"
[[ -x "$VENV/bin/python" ]] || die "no virtualenv at $VENV (run scripts/install.sh)"
VENV="$(cd "$VENV" && pwd)"
if ! "$VENV/bin/python" -c 'import schemathesis' >/dev/null 2>&1 \
        || [[ requirements-fuzz.txt -nt "$VENV/.fuzz-installed" ]]; then
    log "installing schemathesis into $VENV"
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r requirements-fuzz.txt
    touch "$VENV/.fuzz-installed"
fi

WORK="$(mktemp -d /tmp/tessera-fuzz.XXXXXX)"
mkdir -p "$WORK/media" "$WORK/out"
# One real clip, so generated documents that name it can pass validation and start a worker.
ffmpeg -v error -y -f lavfi -i "testsrc=size=160x120:rate=15:duration=1" -c:v libx264 -pix_fmt yuv420p \
    "$WORK/media/clip.mp4"
PORT="$("$VENV/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
TOKEN="fuzz-$RANDOM$RANDOM"

# Small limits, so whatever the fuzzer manages to start cannot pile up or run for long.
TESSERA_API_TOKEN="$TOKEN" "$BIN" serve --host 127.0.0.1 --port "$PORT" --media-root "$WORK/media" \
    --output-dir "$WORK/out" --max-tasks 4 --max-duration-seconds 120 --shutdown-seconds 10 --log-level warning \
    >"$WORK/serve.log" 2>&1 &
SERVER_PID=$!
cleanup() {
    if kill -0 "$SERVER_PID" 2>/dev/null; then kill -KILL "$SERVER_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT
for _ in $(seq 1 100); do
    curl -s -o /dev/null "http://127.0.0.1:$PORT/healthz" && break
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/serve.log" >&2; die "tessera serve exited at start"; }
    sleep 0.1
done

# One running task, so that the operations on /v1/tasks/{taskId} reach a real task (status,
# update, snapshot, stop) instead of answering 404 to every generated id.
seed='{"taskId": "fuzz-task", "inputs": [{"id": "clip", "url": "clip.mp4", "loop": true}],
       "encoder": {"video": {"width": 160, "height": 120, "fps": 15}}, "outputs": [{"url": "seed.mp4"}]}'
code="$(curl -s -o "$WORK/seed.json" -w '%{http_code}' -X POST -H "Authorization: Bearer $TOKEN" \
    -H 'Content-Type: application/json' --data "$seed" "http://127.0.0.1:$PORT/v1/tasks")"
[[ "$code" == 201 ]] || die "could not start the seed task ($code): $(cat "$WORK/seed.json")"
cat >"$WORK/schemathesis.toml" <<'TOML'
[parameters]
taskId = "fuzz-task"
TOML

log "schemathesis against http://127.0.0.1:$PORT/openapi.yaml ($EXAMPLES examples per operation, seed $SEED)"
start=$SECONDS
status=0
# Every check but positive_data_acceptance (ST202, "schema-valid request rejected"): whether a
# task document is accepted depends on what no schema can say — that its files exist under the
# media root, that a path stays inside it, that its regions name its inputs — so schema-valid
# documents are rightly refused with 400, and the check would only report those. And all but
# use_after_free (ST301, "deleted resource still available"): DELETE stops a task, and SPEC §3
# keeps a stopped task readable (GET answers its final status) — by design, not a leak.
# From the work directory: schemathesis leaves a cache directory where it runs.
(cd "$WORK" && "$VENV/bin/schemathesis" --config-file "$WORK/schemathesis.toml" run "http://127.0.0.1:$PORT/openapi.yaml" \
    --header "Authorization: Bearer $TOKEN" \
    --max-examples "$EXAMPLES" --seed "$SEED" --generation-database none \
    --checks all --exclude-checks positive_data_acceptance,use_after_free \
    --request-timeout 30 --workers 1 --no-color \
    --report har --report-har-path "$WORK/requests.har") || status=$?
requests="$("$VENV/bin/python" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["log"]["entries"]))' \
    "$WORK/requests.har" 2>/dev/null || echo "?")"
fivexx="$("$VENV/bin/python" -c 'import json,sys; print(sum(1 for e in json.load(open(sys.argv[1]))["log"]["entries"] if e["response"]["status"] >= 500))' \
    "$WORK/requests.har" 2>/dev/null || echo "?")"
log "schemathesis sent $requests requests in $((SECONDS - start)) s; 5xx answers: $fivexx"

# The server must have survived all of it, and still shut down cleanly.
kill -0 "$SERVER_PID" 2>/dev/null || { tail -n 40 "$WORK/serve.log" >&2; die "tessera serve died during the fuzz"; }
code="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/healthz")"
[[ "$code" == 200 ]] || die "GET /healthz answered $code after the fuzz"
kill -TERM "$SERVER_PID"
rc=0
wait "$SERVER_PID" || rc=$?
[[ $rc == 0 ]] || { tail -n 40 "$WORK/serve.log" >&2; die "tessera serve exited with $rc after SIGTERM"; }
[[ "$fivexx" == 0 ]] || status=1
if [[ $status == 0 ]]; then log "passed: $requests requests, no 5xx, no failed check, server alive"; fi
exit $status
