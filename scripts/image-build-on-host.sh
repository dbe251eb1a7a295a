#!/usr/bin/env bash
# Performs docker/Dockerfile's build and runtime steps on this host, for machines without a
# Docker engine (CI runs it from scripts/test.sh), so the image recipe cannot rot unseen:
#
#   sudo bash scripts/image-build-on-host.sh
#
# LOCK-STEP with docker/Dockerfile: the apt package lists, the build command, the image's
# environment, its entry point and its HEALTHCHECK command are read from the Dockerfile's
# `image-step:` lines (and its ENTRYPOINT), so they cannot drift; the user, the paths and the
# files copied are repeated here and must be changed in both files together.
#
# Steps, in the Dockerfile's order:
#   build stage    apt-get update; apt-get install the build packages; the build command (into
#                  the same SwiftPM scratch path as scripts/install.sh, so CI's release build is
#                  reused, not repeated); the binary, its resource bundle and the Swift runtime
#                  libraries it loads staged under a temporary root as /opt/tessera.
#   runtime stage  apt-get install the runtime packages; check that every shared library the
#                  binary needs is staged beside it or comes from them; the non-root user
#                  `tessera` (uid 10001 when free); /media and /output owned by it.
#   run            the entry point as `tessera`, with the toolchain and the build directory
#                  hidden (a private mount namespace), with the image's environment (TESSERA_PORT moved
#                  to a free port, an API token set, as `docker run -e` would); the HEALTHCHECK
#                  command until healthy; 401 without the token; one small task POSTed (201)
#                  that writes /output/smoke.mp4 as `tessera`; SIGTERM by PID, exit code 0.
#
# Environment knobs: TESSERA_BUILD_DIR [.build], TESSERA_SKIP_APT=1 (packages already there),
# TESSERA_IMAGE_ROOT (stage there instead of a temporary directory, kept afterwards).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
DOCKERFILE="$REPO/docker/Dockerfile"
BUILD_DIR="${TESSERA_BUILD_DIR:-.build}"

log() { printf '\033[1m==> [image] %s\033[0m\n' "$*" >&2; }
die() { printf 'error: [image] %s\n' "$*" >&2; exit 1; }

# --- what the Dockerfile says ---------------------------------------------------------------------
# Parsed with Python (already needed by the tests) into shell assignments.
eval "$(python3 - "$DOCKERFILE" <<'PY'
import json, re, shlex, sys
text = open(sys.argv[1]).read()
# Join continuation lines, keeping the `# image-step:` markers on lines of their own.
lines, current = [], ""
for raw in text.splitlines():
    if raw.lstrip().startswith("#"):
        if raw.strip().startswith("# image-step:"):
            lines.append(raw.strip())
        continue
    current += raw.rstrip("\\").rstrip() + " " if raw.endswith("\\") else raw
    if not raw.endswith("\\"):
        lines.append(current.strip()); current = ""
def after(marker):
    i = lines.index("# image-step: " + marker)
    return next(l for l in lines[i + 1:] if l)
def arg(line, name):
    m = re.fullmatch(r'ARG %s="(.*)"' % name, line)
    if not m: sys.exit("docker/Dockerfile: expected ARG %s=\"...\" after its image-step marker" % name)
    return m.group(1)
out = {
    "BUILD_PACKAGES": arg(after("build-packages"), "BUILD_PACKAGES"),
    "RUNTIME_PACKAGES": arg(after("runtime-packages"), "RUNTIME_PACKAGES"),
}
build = after("build-command")
if not build.startswith("RUN swift build "): sys.exit("docker/Dockerfile: the build-command step must be RUN swift build ...")
out["BUILD_COMMAND"] = build[len("RUN "):]
env = after("env")
if not env.startswith("ENV "): sys.exit("docker/Dockerfile: the env step must be an ENV line")
out["IMAGE_ENV"] = " ".join(shlex.quote(p) for p in shlex.split(env[len("ENV "):]))
health = after("healthcheck")
m = re.search(r"CMD (\[.*\])$", health)
if not m: sys.exit("docker/Dockerfile: the healthcheck step must be HEALTHCHECK ... CMD [...]")
out["HEALTH_COMMAND"] = " ".join(shlex.quote(p) for p in json.loads(m.group(1)))
entry = next(l for l in lines if l.startswith("ENTRYPOINT "))
out["ENTRYPOINT"] = " ".join(shlex.quote(p) for p in json.loads(entry[len("ENTRYPOINT "):]))
for key, value in out.items():
    print("%s=%s" % (key, shlex.quote(value)))
PY
)"
log "Dockerfile: build packages [$BUILD_PACKAGES]; runtime packages [$RUNTIME_PACKAGES]"
log "Dockerfile: build command [$BUILD_COMMAND]; entry point [$ENTRYPOINT]; health check [$HEALTH_COMMAND]"

AS_ROOT=0
[[ $EUID -eq 0 ]] && AS_ROOT=1

# --- build stage ----------------------------------------------------------------------------------
if [[ "${TESSERA_SKIP_APT:-0}" != 1 ]]; then
    [[ $AS_ROOT == 1 ]] || die "apt-get needs root: run with sudo, or set TESSERA_SKIP_APT=1"
    log "apt-get update"
    apt-get update -q
    log "apt-get install (build stage): $BUILD_PACKAGES"
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $BUILD_PACKAGES
fi

# The toolchain, found where scripts/install.sh finds it (sudo resets PATH).
for d in /opt/swift/usr/bin /usr/share/swift/usr/bin "${HOME:-/root}/.local/share/swiftly/bin"; do
    [[ -x "$d/swift" ]] && PATH="$PATH:$d"
done
export PATH
command -v swift >/dev/null || die "no Swift toolchain on PATH (see scripts/install.sh)"
TOOLCHAIN_LIB="$(cd "$(dirname "$(readlink -f "$(command -v swift)")")/../lib" && pwd)"

# The Dockerfile's command (the same as scripts/install.sh's) in the scratch path CI already
# built: nothing is compiled again.
log "$BUILD_COMMAND --scratch-path $BUILD_DIR"
start=$SECONDS
# shellcheck disable=SC2086
$BUILD_COMMAND --scratch-path "$BUILD_DIR"
log "build step took $((SECONDS - start)) s"

if [[ -n "${TESSERA_IMAGE_ROOT:-}" ]]; then
    ROOT="$TESSERA_IMAGE_ROOT"; KEEP_ROOT=1
    mkdir -p "$ROOT"
else
    ROOT="$(mktemp -d /tmp/tessera-image.XXXXXX)"; KEEP_ROOT=0
fi
chmod 755 "$ROOT"
log "staging the image's files under $ROOT"
# = RUN mkdir -p /staging/opt/tessera && cp .build/release/tessera ... && cp -R ...resources
#   && ldd ... | cp the Swift runtime libraries (the toolchain is /usr/lib/swift in the image)
mkdir -p "$ROOT/opt/tessera"
cp "$BUILD_DIR/release/tessera" "$ROOT/opt/tessera/"
rm -rf "$ROOT/opt/tessera/Tessera_TesseraCore.resources"
cp -R "$BUILD_DIR/release/Tessera_TesseraCore.resources" "$ROOT/opt/tessera/"
ldd "$BUILD_DIR/release/tessera" | awk -v dir="$TOOLCHAIN_LIB/" 'index($3, dir) == 1 {print $3}' \
    | xargs -r cp -t "$ROOT/opt/tessera/"
[[ -f "$ROOT/opt/tessera/Tessera_TesseraCore.resources/templates/grid.json" ]] \
    || die "the resource bundle lacks templates/grid.json"

# --- runtime stage --------------------------------------------------------------------------------
if [[ "${TESSERA_SKIP_APT:-0}" != 1 ]]; then
    log "apt-get install (runtime stage): $RUNTIME_PACKAGES"
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $RUNTIME_PACKAGES
fi

# Every library the binary loads must be beside it (the Swift runtime, found through $ORIGIN in
# its RUNPATH once the toolchain is gone) or come from the runtime packages and what they pull in.
log "checking the binary's shared libraries against the runtime packages"
# shellcheck disable=SC2086
closure="$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances $RUNTIME_PACKAGES 2>/dev/null | grep -v '^ ' | sed 's/:.*//' | sort -u)"
missing=0
while read -r lib path; do
    [[ -z "$path" ]] && continue
    if [[ "$path" == "not" ]]; then echo "  $lib: not found" >&2; missing=1; continue; fi
    real="$(readlink -f "$path")"
    if [[ "$real" == "$TOOLCHAIN_LIB"/* ]]; then
        # On this host the toolchain comes first in the RUNPATH; in the image only the copy is there.
        if [[ ! -f "$ROOT/opt/tessera/$lib" ]]; then
            echo "  $lib comes from the Swift toolchain and is not staged beside the binary" >&2
            missing=1
        fi
        continue
    fi
    owner="$(dpkg -S "$real" 2>/dev/null | head -n1 | cut -d: -f1 || true)"
    [[ -z "$owner" ]] && owner="$(dpkg -S "$path" 2>/dev/null | head -n1 | cut -d: -f1 || true)"
    if [[ -z "$owner" ]] || ! grep -qx "$owner" <<<"$closure"; then
        echo "  $lib ($real, package ${owner:-none}) is not provided by the runtime packages" >&2
        missing=1
    fi
done < <(ldd "$ROOT/opt/tessera/tessera" | awk '/=>/ {print $1, $3} !/=>/ {print $1, ""}')
[[ $missing == 0 ]] || die "the runtime stage would lack libraries (see above)"

# = RUN useradd --system --uid 10001 --user-group ... tessera && mkdir -p /media /output && chown
RUN_AS=()
HIDE=()
HOME_DIR="$ROOT/var/lib/tessera"
mkdir -p "$ROOT/media" "$ROOT/output" "$HOME_DIR"
if [[ $AS_ROOT == 1 ]]; then
    if ! id tessera >/dev/null 2>&1; then
        uid_flag=(--uid 10001)
        getent passwd 10001 >/dev/null && uid_flag=()
        log "creating the system user tessera"
        useradd --system "${uid_flag[@]}" --user-group --home-dir /var/lib/tessera --no-create-home \
            --shell /usr/sbin/nologin tessera
    fi
    chown tessera:tessera "$ROOT/media" "$ROOT/output" "$HOME_DIR"
    # = USER tessera (setpriv execs, so the PID below is the server's own)
    RUN_AS=(setpriv --reuid tessera --regid tessera --init-groups --)
    # What the image lacks, hidden as it would be there: in a private mount namespace an empty
    # directory covers the toolchain's runtime libraries and the build directory (where
    # `Bundle.module` would otherwise find the resources), so the staged copy must stand alone.
    EMPTY="$ROOT/empty"; mkdir -p "$EMPTY"
    BUILD_ABS="$(cd "$BUILD_DIR" && pwd)"
    HIDE=(unshare -m sh -c 'mount --bind "$0" "$1" && mount --bind "$0" "$2" && shift 2 && exec "$@"'
          "$EMPTY" "$TOOLCHAIN_LIB/swift" "$BUILD_ABS")
else
    log "not root: running as $(id -un) instead of the image's user tessera"
fi

# --- run ------------------------------------------------------------------------------------------
# A small input for the smoke task, as a user would put into the /media volume.
command -v ffmpeg >/dev/null || die "ffmpeg (command line) is needed to make the smoke-test clip"
ffmpeg -v error -y -f lavfi -i "testsrc=size=160x120:rate=15:duration=1" \
    -f lavfi -i "sine=frequency=440:duration=1" -c:v libx264 -pix_fmt yuv420p -c:a aac -shortest \
    "$ROOT/media/clip.mp4"
chmod 644 "$ROOT/media/clip.mp4"

PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
TOKEN="image-smoke-$RANDOM$RANDOM"
# The image's ENV, with its paths under the staged root, then what `docker run -e` would add.
eval "image_env=($IMAGE_ENV)"
run_env=(HOME=/var/lib/tessera)
for assignment in "${image_env[@]}"; do
    name="${assignment%%=*}"; value="${assignment#*=}"
    case "$name" in
        PATH) value="$ROOT/opt/tessera:/usr/local/bin:/usr/bin:/bin" ;;
        TESSERA_MEDIA_ROOT|TESSERA_OUTPUT_DIR) value="$ROOT$value" ;;
    esac
    run_env+=("$name=$value")
done
run_env+=("TESSERA_PORT=$PORT" "TESSERA_API_TOKEN=$TOKEN" "HOME=$HOME_DIR")
eval "entry=($ENTRYPOINT)"
eval "health=($HEALTH_COMMAND)"

LOG="$ROOT/serve.log"
log "starting: ${entry[*]} (port $PORT)"
(cd "$HOME_DIR" && exec "${HIDE[@]}" "${RUN_AS[@]}" env -i "${run_env[@]}" "$ROOT/opt/tessera/${entry[0]}" "${entry[@]:1}") \
    >"$LOG" 2>&1 &
SERVER_PID=$!

cleanup() {
    if kill -0 "$SERVER_PID" 2>/dev/null; then kill -KILL "$SERVER_PID" 2>/dev/null || true; fi
    if [[ $KEEP_ROOT == 0 ]]; then rm -rf "$ROOT"; fi
}
trap cleanup EXIT
fail() { echo "--- tessera serve log ---" >&2; tail -n 40 "$LOG" >&2 || true; die "$*"; }

# = HEALTHCHECK CMD, run in the container's environment, until it passes.
healthy=0
for _ in $(seq 1 60); do
    kill -0 "$SERVER_PID" 2>/dev/null || fail "tessera serve exited before it was healthy"
    if (cd "$HOME_DIR" && "${HIDE[@]}" "${RUN_AS[@]}" env -i "${run_env[@]}" "${health[@]}") >/dev/null 2>&1; then
        healthy=1; break
    fi
    sleep 0.5
done
[[ $healthy == 1 ]] || fail "the HEALTHCHECK command (${health[*]}) did not pass within 30 s"
log "healthy: ${health[*]}"

api() { curl -s -o "$ROOT/answer.json" -w '%{http_code}' "$@" || true; }  # 000: no answer
code="$(api "http://127.0.0.1:$PORT/v1/tasks")"
[[ "$code" == 401 ]] || fail "GET /v1/tasks without the token answered $code, expected 401"

task='{"taskId": "image-smoke", "inputs": [{"id": "clip", "url": "clip.mp4"}],
       "encoder": {"video": {"width": 160, "height": 120, "fps": 15}},
       "layout": {"template": "grid"}, "maxDurationSeconds": 2, "outputs": [{"url": "smoke.mp4"}]}'
code="$(api -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' --data "$task" \
    "http://127.0.0.1:$PORT/v1/tasks")"
[[ "$code" == 201 ]] || fail "POST /v1/tasks answered $code, expected 201: $(cat "$ROOT/answer.json")"
log "task accepted (201)"

state=""
for _ in $(seq 1 60); do
    api -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/v1/tasks/image-smoke" >/dev/null || true
    state="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("state",""))' "$ROOT/answer.json" 2>/dev/null || true)"
    [[ "$state" == stopped || "$state" == failed ]] && break
    sleep 0.5
done
[[ "$state" == stopped ]] || fail "the smoke task ended as '$state', expected stopped: $(cat "$ROOT/answer.json")"
[[ -s "$ROOT/output/smoke.mp4" ]] || fail "the smoke task wrote no $ROOT/output/smoke.mp4"
if [[ $AS_ROOT == 1 ]]; then
    owner="$(stat -c %U "$ROOT/output/smoke.mp4")"
    [[ "$owner" == tessera ]] || fail "smoke.mp4 is owned by $owner, expected tessera"
fi
log "the task wrote output/smoke.mp4 ($(stat -c %s "$ROOT/output/smoke.mp4") bytes) as $(stat -c %U "$ROOT/output/smoke.mp4")"

kill -TERM "$SERVER_PID"
rc=0
wait "$SERVER_PID" || rc=$?
[[ $rc == 0 ]] || fail "tessera serve exited with $rc after SIGTERM, expected 0"
log "SIGTERM: exit code 0; the image recipe works on this host"
