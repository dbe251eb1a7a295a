#!/usr/bin/env bash
# Installs everything, builds once, and runs every test: the Swift unit tests, with the fuzzers
# and the container image's build (scripts/image.sh build, a real Docker engine) beside them in the
# background, then the end-to-end tests (pytest, tests/) against the release binary on a machine
# nothing else loads (first those that mostly wait, several at a time; then the `serial` ones alone),
# then the image tests (pytest tests/image, through scripts/image.sh test). Exits non-zero if
# anything fails.
#
#   bash scripts/test.sh                 # what CI runs (.ci/run); as root, or a user with sudo
#   bash scripts/test.sh -k render       # extra arguments go to pytest tests/ (not tests/image)
#
# Environment knobs: those of scripts/install.sh (TESSERA_BUILD_DIR, TESSERA_SKIP_APT, ...), plus
#   TESSERA_SKIP_INSTALL=1   do not run install.sh (the build and venv must already exist)
#   TESSERA_SKIP_UNIT=1      skip `swift test`
#   TESSERA_SKIP_FUZZ=1      skip scripts/fuzz-api.sh
#   TESSERA_SKIP_PARSER_FUZZ=1  skip scripts/fuzz.sh (the parsers' libFuzzer targets)
#   TESSERA_FUZZ_SECONDS=N   seconds per libFuzzer target [14]
#   TESSERA_E2E_WORKERS=N    end-to-end tests run N at a time in the first pass [3]
#   TESSERA_SKIP_IMAGE=1     skip scripts/image.sh (the container image)
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"

BUILD_DIR="${TESSERA_BUILD_DIR:-.build}"
VENV="${TESSERA_VENV:-.venv-test}"
start=$SECONDS

# Each step is logged with the minutes since the start, so a slow CI run shows which step grew.
log() { printf '\033[1m==> [%dm%02ds] %s\033[0m\n' $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60)) "$*" >&2; }

if [[ "${TESSERA_SKIP_INSTALL:-0}" != 1 ]]; then
    bash "$REPO/scripts/install.sh"
    log "installed and built"
fi

# install.sh found the toolchain; find it again the same way (sudo may have reset PATH).
for d in /opt/swift/usr/bin /usr/share/swift/usr/bin "${HOME:-/root}/.local/share/swiftly/bin"; do
    [[ -x "$d/swift" ]] && PATH="$PATH:$d"
done
export PATH

status=0
failed=()

export TESSERA_BIN="${TESSERA_BIN:-$REPO/$BUILD_DIR/release/tessera}"

# --- beside the Swift tests (whose targets compile one module at a time, on one core), in the
# background: the container image's build — `docker build` of docker/Dockerfile's
# runtime-prebuilt target from the release binary built above (nothing is compiled again) and the
# compose files' images, mostly package downloads — and the fuzzers: the schema-driven fuzz of the
# HTTP API (schemathesis, about a minute, no timing in it) and the parsers' libFuzzer targets
# (scripts/fuzz.sh, about 20 s each). Their output is shown when they end; the end-to-end tests
# wait for all of them, so they run on a machine nothing else loads.
checks=()       # "name|pid|log" of the background checks whose exit code counts
check_in_background() {  # name, command...
    local name=$1 out; shift
    out="$(mktemp "${TMPDIR:-/tmp}/tessera-check.XXXXXX")"
    log "$name (in the background)"
    "$@" >"$out" 2>&1 &
    checks+=("$name|$!|$out")
}
if [[ "${TESSERA_SKIP_FUZZ:-0}" != 1 ]]; then
    check_in_background scripts/fuzz-api.sh \
        env TESSERA_BIN="$TESSERA_BIN" TESSERA_VENV="$VENV" bash "$REPO/scripts/fuzz-api.sh"
fi
if [[ "${TESSERA_SKIP_PARSER_FUZZ:-0}" != 1 && -f "$REPO/scripts/fuzz.sh" ]]; then
    # Two targets at a time: once `swift test` has built its targets, both cores are free for them.
    # 14 s each (fuzz.sh's own default is 20): the committed corpus replays whole either way, and
    # the 15 targets then end with `swift test` instead of 50 s after it, on CI's critical path.
    check_in_background scripts/fuzz.sh env TESSERA_FUZZ_JOBS="${TESSERA_FUZZ_JOBS:-2}" \
        bash "$REPO/scripts/fuzz.sh" "${TESSERA_FUZZ_SECONDS:-14}"
fi
image_pid=""
image_log="$(mktemp "${TMPDIR:-/tmp}/tessera-image-build.XXXXXX")"
if [[ "${TESSERA_SKIP_IMAGE:-0}" != 1 ]]; then
    log "scripts/image.sh build (in the background)"
    TESSERA_BUILD_DIR="$BUILD_DIR" bash "$REPO/scripts/image.sh" build >"$image_log" 2>&1 &
    image_pid=$!
fi

# --- Swift unit tests, in the same scratch path and configuration as the build, so the release
# objects are reused. Testable imports compile every module a second time with -enable-testing;
# only ask for them when a test file uses `@testable import`.
if [[ "${TESSERA_SKIP_UNIT:-0}" != 1 ]]; then
    testable=(--disable-testable-imports)
    if grep -rqs '@testable' Tests/; then testable=(); fi
    log "swift test -c release ${testable[*]}"
    if ! swift test -c release --scratch-path "$BUILD_DIR" "${testable[@]}"; then
        status=1; failed+=("swift test")
    fi
fi

for check in "${checks[@]}"; do
    IFS='|' read -r name pid out <<<"$check"
    log "waiting for $name"
    rc=0
    wait "$pid" || rc=$?
    cat "$out" >&2
    rm -f "$out"
    log "$name ended (exit $rc)"
    if [[ $rc != 0 ]]; then status=1; failed+=("$name"); fi
done

image_rc=0
if [[ -n "$image_pid" ]]; then
    log "waiting for the image build"
    wait "$image_pid" || image_rc=$?
    cat "$image_log" >&2
    log "image build ended (exit $image_rc)"
fi
rm -f "$image_log"

# --- end-to-end tests against the release binary, in two passes (tests/conftest.py). Most of them
# spend their time waiting on real time (a stream read for 5 s, a store outage, a back-off), so the
# first pass runs $E2E_WORKERS at a time: pytest-xdist, whole files to one worker (a module's
# cluster, Janus or S3 store starts once), each worker with its own slice of ports (tests/ports.py).
# The second runs the tests marked `serial`, which load the CPU themselves, one at a time. pytest's
# exit 5 (this pass selected no test, e.g. with -k) is not a failure unless both passes say it.
E2E_WORKERS="${TESSERA_E2E_WORKERS:-3}"
e2e_pass() {  # name, pytest arguments...
    local name=$1 rc=0; shift
    log "pytest tests/, $name (TESSERA_BIN=$TESSERA_BIN)"
    "$VENV/bin/python" -m pytest tests/ -ra --durations=25 "$@" || rc=$?
    case $rc in
        0) ran_e2e=1 ;;
        5) ;;
        *) status=1; failed+=("pytest tests/ ($name)") ;;
    esac
}
ran_e2e=0
e2e_pass "$E2E_WORKERS at a time" -m "not serial" -n "$E2E_WORKERS" --dist loadfile "$@"
e2e_pass "the serial ones" -m serial "$@"
if [[ $ran_e2e == 0 && $status == 0 ]]; then
    status=1; failed+=("pytest tests/ (no test selected)")
fi
log "end-to-end tests ended"

# --- the container image run by a real Docker engine: pytest tests/image (which `pytest tests/`
# above leaves out: pytest.ini) runs the image and the compose files as an operator would. image.sh gets root through sudo itself when needed; it exits 77 only where no
# Docker engine can start (pytest has then reported the image tests skipped, with the reason).
if [[ "${TESSERA_SKIP_IMAGE:-0}" != 1 ]]; then
    if [[ $image_rc == 0 ]]; then
        log "scripts/image.sh test"
        TESSERA_BUILD_DIR="$BUILD_DIR" bash "$REPO/scripts/image.sh" test || image_rc=$?
    fi
    if [[ $image_rc == 77 ]]; then
        log "SKIPPED the container image tests: no Docker engine can start on this machine (see above)"
        skipped="; SKIPPED: the container image (no Docker engine can start here)"
    elif [[ $image_rc != 0 ]]; then
        status=1; failed+=("image.sh")
    fi
fi

elapsed=$((SECONDS - start))
if [[ $status -eq 0 ]]; then
    log "all tests passed in $((elapsed / 60))m$((elapsed % 60))s${skipped:-}"
else
    log "FAILED: ${failed[*]} (after $((elapsed / 60))m$((elapsed % 60))s)"
fi
exit $status
