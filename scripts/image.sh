#!/usr/bin/env bash
# Builds Tessera's container image (docker/Dockerfile) with a real Docker engine and runs it as an
# operator would. CI runs `build test` from scripts/test.sh.
#
#   bash scripts/image.sh build          # leaves the image tagged tessera:local
#   bash scripts/image.sh test           # the checks below on tessera:local, then docker/compose.yaml
#   bash scripts/image.sh build test     # both with one engine start
#
# Needs root (apt-get, dockerd, ownership of the /output volume): run as another user it re-runs
# itself through sudo.
#
# Engine: the one DOCKER_HOST names, else one this script started earlier and left running, else
# the system's (/var/run/docker.sock), else its own: `dockerd --bridge=none --iptables=false
# --ip6tables=false` with its data under $TESSERA_DOCKER_ROOT and its socket, pid file and exec
# root under /run/tessera-docker, stopped by its PID when the script ends. Only loopback traffic is
# assumed: every build step and container uses the host's network (`--network host`). Where no
# engine can start (no privileges, no kernel support), the script says so and exits 77 (skipped).
#
# build  1. installs what is missing: docker.io, debootstrap (and, for `test`, docker-compose,
#           ffmpeg, nginx with libnginx-mod-rtmp, curl), after apt-get update;
#        2. base image `debian:bookworm-slim`, unless the engine has it: no registry is needed —
#           debootstrap makes a minimal Debian 12 root file system (trimmed as Debian's official
#           slim image is: no docs, man pages or locales, no package lists), cached as a tarball in
#           $TESSERA_IMAGE_CACHE, and `docker import` tags it;
#        3. the image, by default from the release binary scripts/install.sh built
#           ($TESSERA_BUILD_DIR/release/tessera): the binary, its resource bundle and the Swift
#           runtime libraries it loads are staged in a temporary build context and built with
#           `docker build -f docker/Dockerfile --target runtime-prebuilt` (see the Dockerfile).
#           TESSERA_IMAGE_FROM_SOURCE=1 runs the plain `docker build -f docker/Dockerfile .`
#           instead, which compiles in the Swift builder image (needs a registry).
#
# test   on tessera:local, started with `docker run --network host` on free loopback ports:
#        every shared library resolves inside the image (ldd); no compiler, no C headers, no apt
#        package lists; the image size; HEALTHCHECK healthy within 15 s; PID 1 is tessera, running
#        as uid 10001; 401 without the token; a task pushes to an nginx-rtmp on the host's loopback
#        (Debian's nginx, started here on a free port, stopped by its PID) and records into the
#        /output volume (a host directory owned by uid 10001), the stream reads back with ffprobe
#        and ffmpeg; `docker stop` (SIGTERM to PID 1) ends the task properly: exit code 0 within
#        --shutdown-seconds, the recordings playable and complete.
#        Then docker/compose.yaml (Debian's docker-compose, or the engine's compose plugin): both
#        services healthy, a task started through Tessera's API published by its nginx-rtmp; and
#        docker/compose.cluster.yaml once the image's binary has the cluster (`--store`): five
#        services healthy, a task POSTed to node 1 seen live through node 2, published, stopped
#        through node 3.
#
# Environment knobs:
#   TESSERA_BUILD_DIR          SwiftPM scratch path holding release/tessera [.build]
#   TESSERA_IMAGE              image tag [tessera:local]
#   TESSERA_IMAGE_FROM_SOURCE=1  build from source in the Swift builder image (needs a registry)
#   TESSERA_IMAGE_CACHE        where debootstrapped root file systems are kept [/var/cache/tessera-image]
#   TESSERA_DOCKER_ROOT        data root of the dockerd started here [/var/lib/tessera-docker]
#   TESSERA_DEBIAN_MIRROR      [http://deb.debian.org/debian]; TESSERA_DEBIAN_SECURITY_MIRROR
#                              [http://deb.debian.org/debian-security]
#   TESSERA_IMAGE_NO_CACHE=1   rebuild every layer (e.g. for the runtime packages' security updates)
#   TESSERA_SKIP_APT=1         install nothing (the packages must be there)
#   TESSERA_SKIP_COMPOSE=1     `test` skips the compose files
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"

log() { printf '\033[1m==> [image] %s\033[0m\n' "$*" >&2; }
die() { printf 'error: [image] %s\n' "$*" >&2; exit 1; }
usage() { sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

[[ $# -ge 1 ]] || usage
DO_BUILD=0; DO_TEST=0
for cmd in "$@"; do
    case "$cmd" in
        build) DO_BUILD=1 ;;
        test) DO_TEST=1 ;;
        -h|--help|help) usage ;;
        *) printf 'error: [image] unknown command %q\n' "$cmd" >&2; usage ;;
    esac
done

# --- root -----------------------------------------------------------------------------------------
if [[ $EUID -ne 0 ]]; then
    if ! command -v sudo >/dev/null 2>&1; then
        log "SKIPPED: starting a Docker engine needs root, and this user has no sudo: run it as root"
        exit 77
    fi
    log "not root: re-running through sudo"
    # sudo resets the environment; hand the knobs over explicitly.
    pass=()
    while IFS= read -r name; do pass+=("$name=${!name}"); done \
        < <(compgen -e | grep -E '^(TESSERA_|DOCKER_HOST$)' || true)
    exec sudo env "${pass[@]}" bash "${BASH_SOURCE[0]}" "$@"
fi

BUILD_DIR="${TESSERA_BUILD_DIR:-.build}"
IMAGE="${TESSERA_IMAGE:-tessera:local}"
BASE_IMAGE="debian:bookworm-slim"
SUITE=bookworm
CACHE_DIR="${TESSERA_IMAGE_CACHE:-/var/cache/tessera-image}"
DOCKER_ROOT="${TESSERA_DOCKER_ROOT:-/var/lib/tessera-docker}"
RUN_DIR=/run/tessera-docker
MIRROR="${TESSERA_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
SECURITY_MIRROR="${TESSERA_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
ARCH="$(dpkg --print-architecture)"

declare -A TIMES=()
TIME_ORDER=()
timed() {  # timed NAME command...: runs it and records how long it took
    local name="$1"; shift
    local t0=$SECONDS
    "$@"
    TIMES[$name]=$((SECONDS - t0)); TIME_ORDER+=("$name")
    log "$name: ${TIMES[$name]} s"
}

TMP_DIRS=()
DOCKERD_PID=""
CLEANUPS=()   # commands run at exit, last first
on_exit() {
    local rc=$? i
    for ((i = ${#CLEANUPS[@]} - 1; i >= 0; i--)); do eval "${CLEANUPS[$i]}" >/dev/null 2>&1 || true; done
    if [[ -n "$DOCKERD_PID" ]] && kill -0 "$DOCKERD_PID" 2>/dev/null; then
        log "stopping the dockerd this script started (PID $DOCKERD_PID)"
        kill -TERM "$DOCKERD_PID" 2>/dev/null || true
        for _ in $(seq 1 60); do kill -0 "$DOCKERD_PID" 2>/dev/null || break; sleep 0.5; done
        if kill -0 "$DOCKERD_PID" 2>/dev/null; then kill -KILL "$DOCKERD_PID" 2>/dev/null || true; fi
        wait "$DOCKERD_PID" 2>/dev/null || true
    fi
    [[ ${#TMP_DIRS[@]} -eq 0 ]] || rm -rf "${TMP_DIRS[@]}"
    if [[ ${#TIME_ORDER[@]} -gt 0 ]]; then
        local line="" n
        for n in "${TIME_ORDER[@]}"; do line+="$n ${TIMES[$n]} s; "; done
        log "timings: ${line%; }"
    fi
    exit $rc
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# --- 1. packages ----------------------------------------------------------------------------------
install_packages() {
    local want=()
    command -v dockerd >/dev/null 2>&1 || want+=(docker.io)
    command -v debootstrap >/dev/null 2>&1 || want+=(debootstrap)
    if [[ $DO_TEST == 1 ]]; then
        command -v ffmpeg >/dev/null 2>&1 || want+=(ffmpeg)
        command -v curl >/dev/null 2>&1 || want+=(curl)
        command -v nginx >/dev/null 2>&1 || want+=(nginx)
        [[ -e /usr/lib/nginx/modules/ngx_rtmp_module.so ]] || want+=(libnginx-mod-rtmp)
        command -v docker-compose >/dev/null 2>&1 || want+=(docker-compose)
    fi
    [[ ${#want[@]} -gt 0 ]] || return 0
    [[ "${TESSERA_SKIP_APT:-0}" != 1 ]] || die "missing: ${want[*]} (TESSERA_SKIP_APT=1 is set)"
    log "apt-get update"
    apt-get update -q
    log "apt-get install ${want[*]}"
    # Debian's docker.io would start its daemon under systemd; this script starts its own.
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${want[@]}"
}

# --- 2. engine ------------------------------------------------------------------------------------
# The engine's own client: Debian's docker.io (20.10) drives BuildKit with DOCKER_BUILDKIT=1; a
# newer client without the buildx plugin cannot, and falls back to the classic builder.
DOCKER=docker
[[ -x /usr/bin/docker ]] && DOCKER=/usr/bin/docker

engine_answers() { timeout 20 "$DOCKER" info >/dev/null 2>&1; }

start_engine() {
    if [[ -n "${DOCKER_HOST:-}" ]]; then
        engine_answers || die "DOCKER_HOST=$DOCKER_HOST does not answer"
        log "engine: DOCKER_HOST=$DOCKER_HOST"; return 0
    fi
    if [[ -S "$RUN_DIR/docker.sock" ]] && DOCKER_HOST="unix://$RUN_DIR/docker.sock" engine_answers; then
        export DOCKER_HOST="unix://$RUN_DIR/docker.sock"
        log "engine: the dockerd already running on $DOCKER_HOST (left running)"; return 0
    fi
    if [[ -S /var/run/docker.sock ]] && engine_answers; then
        log "engine: the system's (/var/run/docker.sock)"; return 0
    fi
    command -v dockerd >/dev/null 2>&1 || die "no dockerd (install docker.io)"
    mkdir -p "$DOCKER_ROOT" "$RUN_DIR"
    rm -f "$RUN_DIR/docker.sock" "$RUN_DIR/dockerd.pid"
    local logf="$DOCKER_ROOT/dockerd.log"
    log "starting dockerd --bridge=none --iptables=false --ip6tables=false (data $DOCKER_ROOT, log $logf)"
    dockerd --bridge=none --iptables=false --ip6tables=false \
        --data-root "$DOCKER_ROOT" --exec-root "$RUN_DIR/exec" --pidfile "$RUN_DIR/dockerd.pid" \
        --host "unix://$RUN_DIR/docker.sock" >"$logf" 2>&1 &
    DOCKERD_PID=$!
    export DOCKER_HOST="unix://$RUN_DIR/docker.sock"
    for _ in $(seq 1 120); do
        if ! kill -0 "$DOCKERD_PID" 2>/dev/null; then
            wait "$DOCKERD_PID" 2>/dev/null || true
            DOCKERD_PID=""
            printf '%s\n' "--- $logf (last lines) ---" >&2; tail -n 15 "$logf" >&2 || true
            log "SKIPPED: no Docker engine can start on this machine (dockerd exited; see above)"
            exit 77
        fi
        [[ -S "$RUN_DIR/docker.sock" ]] && engine_answers && break
        sleep 0.5
    done
    engine_answers || { log "SKIPPED: dockerd did not answer within 60 s (see $logf)"; exit 77; }
    log "engine: dockerd $("$DOCKER" version -f '{{.Server.Version}}'), PID $DOCKERD_PID, storage $("$DOCKER" info -f '{{.Driver}}')"
    # A container must run at all (cgroups, namespaces) for anything below to work: try the base
    # image's shell once it exists (see ensure_base_image).
}

BUILD_ENV=()
pick_builder() {
    local major
    major="$("$DOCKER" version -f '{{.Client.Version}}' 2>/dev/null | cut -d. -f1)"
    if "$DOCKER" buildx version >/dev/null 2>&1; then BUILD_ENV=(DOCKER_BUILDKIT=1)
    elif [[ "$major" =~ ^[0-9]+$ && "$major" -lt 23 ]]; then BUILD_ENV=(DOCKER_BUILDKIT=1)
    else BUILD_ENV=(DOCKER_BUILDKIT=0)
    fi
}
docker_build() { env "${BUILD_ENV[@]}" "$DOCKER" build --network host "$@"; }

# --- 3. base image --------------------------------------------------------------------------------
make_rootfs_tarball() {  # make_rootfs_tarball OUT.tar.gz
    local out="$1" work rootfs
    work="$(mktemp -d /var/tmp/tessera-rootfs.XXXXXX)"; TMP_DIRS+=("$work")
    rootfs="$work/rootfs"
    log "debootstrap --variant=minbase $SUITE ($ARCH) from $MIRROR"
    if ! debootstrap --variant=minbase --arch="$ARCH" "$SUITE" "$rootfs" "$MIRROR" >"$work/debootstrap.log" 2>&1; then
        tail -n 20 "$work/debootstrap.log" >&2
        [[ -f "$rootfs/debootstrap/debootstrap.log" ]] && tail -n 20 "$rootfs/debootstrap/debootstrap.log" >&2
        die "debootstrap failed"
    fi
    # What Debian's official slim image (debuerreotype) does to its root file system.
    rm -f "$rootfs/etc/apt/sources.list"
    cat >"$rootfs/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $MIRROR
Suites: $SUITE $SUITE-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $SECURITY_MIRROR
Suites: $SUITE-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    cat >"$rootfs/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
# This is the "slim" variant of the Debian base image (made by scripts/image.sh).
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/lintian/overrides/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/man/*
EOF
    cat >"$rootfs/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
    echo 'Acquire::Languages "none";' >"$rootfs/etc/apt/apt.conf.d/docker-no-languages"
    echo 'APT::AutoRemove::SuggestsImportant "false";' >"$rootfs/etc/apt/apt.conf.d/docker-autoremove-suggests"
    # Package scripts must not start services inside image builds.
    printf '#!/bin/sh\nexit 101\n' >"$rootfs/usr/sbin/policy-rc.d"; chmod 755 "$rootfs/usr/sbin/policy-rc.d"
    find "$rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
    find "$rootfs/usr/share/doc" -mindepth 1 -type d -empty -delete
    rm -rf "$rootfs"/usr/share/{groff,info,linda,lintian,locale,man}/* \
        "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/* "$rootfs"/var/cache/debconf/*-old \
        "$rootfs"/var/log/* "$rootfs"/tmp/* "$rootfs"/debootstrap
    : >"$rootfs/etc/hostname"; : >"$rootfs/etc/resolv.conf"
    mkdir -p "$(dirname "$out")"
    tar --numeric-owner --xattrs -C "$rootfs" -czf "$out.part" .
    mv "$out.part" "$out"
    rm -rf "$work"
}

ensure_base_image() {
    if "$DOCKER" image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
        log "base image $BASE_IMAGE: present ($("$DOCKER" image inspect -f '{{.Created}}' "$BASE_IMAGE"))"
    else
        local tarball="$CACHE_DIR/debian-$SUITE-slim-$ARCH.tar.gz"
        if [[ -s "$tarball" ]]; then
            log "base image $BASE_IMAGE from the cached root file system $tarball"
        else
            make_rootfs_tarball "$tarball"
            log "cached the root file system: $tarball ($(du -h "$tarball" | cut -f1))"
        fi
        "$DOCKER" import --change 'CMD ["bash"]' \
            --message "debootstrap --variant=minbase $SUITE, slimmed (scripts/image.sh)" \
            "$tarball" "$BASE_IMAGE" >/dev/null
        log "imported $BASE_IMAGE"
    fi
    # Can this engine run a container at all?
    "$DOCKER" run --rm --network host "$BASE_IMAGE" true \
        || { log "SKIPPED: the engine started but cannot run a container here"; exit 77; }
}

# --- 4. the image ---------------------------------------------------------------------------------
build_image() {
    if [[ "${TESSERA_IMAGE_FROM_SOURCE:-0}" == 1 ]]; then
        log "docker build -f docker/Dockerfile -t $IMAGE . (from source, Swift builder image)"
        docker_build -f docker/Dockerfile -t "$IMAGE" .
        return
    fi
    local bin="$BUILD_DIR/release/tessera"
    [[ -x "$bin" ]] || die "no release binary at $bin: run scripts/install.sh first (or set TESSERA_IMAGE_FROM_SOURCE=1)"
    local stage
    stage="$(mktemp -d /tmp/tessera-image-context.XXXXXX)"; TMP_DIRS+=("$stage")
    chmod 755 "$stage"
    local dest="$stage/opt/tessera"
    mkdir -p "$dest"
    # The same files as the Dockerfile's build stage stages: the binary, its resource bundle, and
    # the Swift runtime libraries it loads (from the toolchain it was linked against).
    cp "$bin" "$dest/tessera"
    # DWARF debug info is most of a release binary; the symbol table stays, so crash backtraces
    # still name their functions. (The build stage does the same.)
    if command -v strip >/dev/null 2>&1; then strip --strip-debug "$dest/tessera"; fi
    cp -R "$BUILD_DIR/release/Tessera_TesseraCore.resources" "$BUILD_DIR/release/Tessera_TesseraServer.resources" "$dest/"
    ldd "$dest/tessera" | awk '$3 ~ "/lib/swift/linux/" {print $3}' | xargs -r cp -t "$dest/"
    chmod -R a+rX "$stage"
    [[ -f "$dest/Tessera_TesseraCore.resources/templates/grid.json" ]] \
        || die "the resource bundle lacks templates/grid.json"
    [[ -f "$dest/Tessera_TesseraServer.resources/openapi.yaml" ]] || die "the resource bundle lacks openapi.yaml"
    log "build context $stage: $(du -sh "$stage" | cut -f1) ($(ls "$dest" | wc -l) entries in /opt/tessera)"
    local revision no_cache=()
    [[ "${TESSERA_IMAGE_NO_CACHE:-0}" == 1 ]] && no_cache=(--no-cache)
    revision="$(git -c safe.directory="$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    log "docker build -f docker/Dockerfile --target runtime-prebuilt -t $IMAGE (binary from $bin)"
    docker_build "${no_cache[@]}" -f docker/Dockerfile --target runtime-prebuilt \
        --label "org.opencontainers.image.revision=$revision" -t "$IMAGE" "$stage"
    log "built $IMAGE: $(image_size)"
    if [[ -n "$DOCKERD_PID" || "${DOCKER_HOST:-}" == "unix://$RUN_DIR/docker.sock" ]]; then
        # This script's own engine: drop the images earlier builds left untagged, and keep the
        # build cache (the runtime stage's apt layer above all) under 2 GB.
        "$DOCKER" image prune -f >/dev/null || true
        "$DOCKER" builder prune -f --keep-storage 2gb >/dev/null 2>&1 || true
    fi
}

image_size() {
    "$DOCKER" image inspect -f '{{.Size}}' "$IMAGE" | awk '{printf "%.1f MB", $1 / 1e6}'
}

# --- 5. the checks --------------------------------------------------------------------------------
SHUTDOWN_SECONDS=5
now_ms() { date +%s%3N; }
api() {  # api OUTFILE curl-args...: prints the HTTP status (000: no answer)
    local out="$1"; shift
    curl -s -m 10 -o "$out" -w '%{http_code}' "$@" || true
}
json_get() {  # json_get FILE PYTHON-EXPRESSION-ON-d: prints it, or nothing
    python3 -c 'import json, sys
try:
    d = json.load(open(sys.argv[1]))
    print(eval(sys.argv[2]))
except Exception:
    print("")' "$1" "$2"
}

make_clip() {  # make_clip FILE: 6 s of 640x360 video with a tone, as a user puts into /media
    ffmpeg -v error -y -f lavfi -i "testsrc2=size=640x360:rate=30" -f lavfi -i "sine=frequency=440:sample_rate=48000" \
        -t 6 -c:v libx264 -preset veryfast -g 30 -pix_fmt yuv420p -c:a aac -shortest "$1"
    chmod 644 "$1"
}

NGINX_PID=""
start_nginx() {  # start_nginx DIR PORT: Debian's nginx with the RTMP module on 127.0.0.1:PORT
    local dir="$1" port="$2"
    mkdir -p "$dir"
    cat >"$dir/nginx.conf" <<NGINX
daemon off;
master_process off;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log info;
load_module /usr/lib/nginx/modules/ngx_rtmp_module.so;
events { worker_connections 256; }
rtmp {
    server {
        listen 127.0.0.1:$port;
        chunk_size 4096;
        access_log off;
        application live { live on; record off; wait_key on; idle_streams off; }
    }
}
NGINX
    nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" </dev/null >"$dir/stderr.log" 2>&1 &
    NGINX_PID=$!
    CLEANUPS+=("kill -KILL $NGINX_PID")
    local i
    for i in $(seq 1 100); do
        kill -0 "$NGINX_PID" 2>/dev/null || { cat "$dir/stderr.log" "$dir/error.log" >&2; die "nginx did not start"; }
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
        sleep 0.1
    done
    die "nginx does not listen on 127.0.0.1:$port"
}
stop_nginx() {  # by its PID
    [[ -n "$NGINX_PID" ]] || return 0
    kill -TERM "$NGINX_PID" 2>/dev/null || true
    wait "$NGINX_PID" 2>/dev/null || true
    NGINX_PID=""
}

wait_output_live() {  # wait_output_live BASE_URL TOKEN TASK SECONDS FILE
    local base="$1" token="$2" task="$3" secs="$4" f="$5" state="" code="" i
    for i in $(seq 1 $((secs * 2))); do
        code="$(api "$f" -H "Authorization: Bearer $token" "$base/v1/tasks/$task")"
        state="$(json_get "$f" 'd["state"] + " " + ",".join(o["state"] for o in d["outputs"])')"
        [[ "$code" == 200 && "$state" == "running live"* ]] && return 0
        [[ "$state" == failed* || "$state" == stopped* ]] && break
        sleep 0.5
    done
    echo "task status ($code): $(cat "$f" 2>/dev/null)" >&2
    return 1
}

check_stream() {  # check_stream RTMP_URL WIDTH HEIGHT: reads the published stream back
    local url="$1" w="$2" h="$3" probe frames
    probe="$(timeout 30 ffprobe -v error -show_entries stream=codec_name,width,height -of csv=p=0 "$url")" \
        || die "ffprobe could not read $url"
    grep -qx "h264,$w,$h" <<<"$probe" || die "$url: expected H.264 ${w}x${h}, ffprobe saw: $(tr '\n' ' ' <<<"$probe")"
    grep -q '^aac' <<<"$probe" || die "$url: no AAC audio, ffprobe saw: $(tr '\n' ' ' <<<"$probe")"
    # Two seconds of it decoded by ffmpeg, frame by frame.
    frames="$(timeout 30 ffmpeg -v error -i "$url" -t 2 -map 0:v -f framemd5 - | grep -vc '^#' || true)"
    [[ "$frames" -ge 30 ]] || die "$url: ffmpeg decoded only $frames video frames of 2 s"
    log "  read back $url: $(tr '\n' ' ' <<<"$probe")- $frames video frames decoded from 2 s"
}

check_recording() {  # check_recording FILE MIN_SECONDS: complete, playable, owned by uid 10001
    local f="$1" min="$2" dur errs
    [[ -s "$f" ]] || die "no recording $f"
    [[ "$(stat -c %u "$f")" == 10001 ]] || die "$f is owned by uid $(stat -c %u "$f"), expected 10001"
    dur="$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$f" || true)"
    # A finished Matroska file carries its duration in its header, written by the trailer.
    [[ "$dur" =~ ^[0-9.]+$ ]] || die "$f has no duration ('$dur'): not finished properly"
    awk -v d="$dur" -v m="$min" 'BEGIN { exit !(d >= m) }' || die "$f lasts $dur s, expected at least $min s"
    errs="$(ffmpeg -v error -i "$f" -f null - 2>&1 || echo "ffmpeg failed")"
    [[ -z "$errs" ]] || die "$f does not decode cleanly: $(head -n 5 <<<"$errs")"
    log "  $(basename "$f"): $dur s, decodes cleanly, owned by uid 10001"
}

container_fail() {  # container_fail NAME MESSAGE
    echo "--- docker logs $1 (last lines) ---" >&2
    "$DOCKER" logs --tail 40 "$1" >&2 2>&1 || true
    die "$2"
}

container_state() { "$DOCKER" inspect -f '{{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{end}}' "$1"; }

test_image() {
    local t name="tessera-image-test-$$"
    t="$(mktemp -d /tmp/tessera-image-test.XXXXXX)"; TMP_DIRS+=("$t"); chmod 755 "$t"

    # -- what the image holds
    log "image $IMAGE: $(image_size) ($("$DOCKER" image inspect -f '{{len .RootFS.Layers}}' "$IMAGE") layers)"
    "$DOCKER" history --format '{{.Size}}	{{.CreatedBy}}' "$IMAGE" | grep -v '^0B' \
        | cut -c1-110 | sed 's/^/      /' >&2 || true
    local lddout
    lddout="$("$DOCKER" run --rm --network host --entrypoint ldd "$IMAGE" /opt/tessera/tessera)" \
        || die "ldd failed inside the image"
    if grep -q 'not found' <<<"$lddout"; then grep 'not found' <<<"$lddout" >&2; die "libraries missing in the image"; fi
    log "  ldd in the image: $(grep -c '=>' <<<"$lddout") shared libraries, none missing"
    "$DOCKER" run --rm --network host --user 0 --entrypoint sh "$IMAGE" -c '
        bad=0
        for c in cc c++ gcc g++ clang clang++ swift swiftc swift-frontend ld as cpp make; do
            if command -v "$c" >/dev/null 2>&1; then echo "a build tool in the image: $(command -v "$c")"; bad=1; fi
        done
        h="$(find / -xdev \( -name "*.h" -o -name "*.hpp" -o -name "*.swiftmodule" -o -name "*.swiftinterface" \) -print 2>/dev/null | head -n 5)"
        [ -z "$h" ] || { echo "headers in the image:"; echo "$h"; bad=1; }
        l="$(find /var/lib/apt/lists -mindepth 1 -maxdepth 1 ! -name lock ! -name partial -print 2>/dev/null | head -n 5)"
        [ -z "$l" ] || { echo "apt package lists in the image:"; echo "$l"; bad=1; }
        exit $bad' || die "the runtime image holds build tools, headers or package lists (above)"
    log "  no compiler, no headers, no apt package lists"

    # -- a media volume, an output volume owned by uid 10001, an RTMP server on the host's loopback
    mkdir -p "$t/media" "$t/output"
    make_clip "$t/media/clip.mp4"
    chown 10001:10001 "$t/output"; chmod 750 "$t/output"
    local rport port token base
    rport="$(free_port)"; start_nginx "$t/nginx" "$rport"
    log "  nginx-rtmp on 127.0.0.1:$rport (PID $NGINX_PID)"
    port="$(free_port)"; token="image-test-$RANDOM$RANDOM"; base="http://127.0.0.1:$port"

    # -- docker run, as an operator would
    log "docker run --network host ... $IMAGE --shutdown-seconds $SHUTDOWN_SECONDS (API port $port)"
    "$DOCKER" run -d --name "$name" --network host \
        -e TESSERA_PORT="$port" -e TESSERA_API_TOKEN="$token" \
        -v "$t/media:/media:ro" -v "$t/output:/output" \
        "$IMAGE" --shutdown-seconds "$SHUTDOWN_SECONDS" >/dev/null
    CLEANUPS+=("'$DOCKER' rm -f '$name'")
    local t0 st elapsed
    t0="$(now_ms)"
    while :; do
        st="$(container_state "$name")"
        [[ "$st" == "running healthy" ]] && break
        [[ "$st" == running* ]] || container_fail "$name" "the container is '$st' before it was healthy"
        elapsed=$(( $(now_ms) - t0 ))
        [[ $elapsed -le 15000 ]] || container_fail "$name" "not healthy within 15 s ($st)"
        sleep 0.25
    done
    log "  HEALTHCHECK: healthy after $(( $(now_ms) - t0 )) ms"

    # PID 1 is tessera itself (exec-form entry point: docker stop's SIGTERM reaches it), not root.
    local hostpid cmdline uids
    hostpid="$("$DOCKER" inspect -f '{{.State.Pid}}' "$name")"
    cmdline="$("$DOCKER" exec "$name" cat /proc/1/cmdline | tr '\0' ' ')"
    [[ "$cmdline" == "tessera serve --host 0.0.0.0 --shutdown-seconds $SHUTDOWN_SECONDS " ]] \
        || container_fail "$name" "PID 1 in the container is '$cmdline'"
    uids="$(awk '/^Uid:/ {print $2, $3, $4, $5}' "/proc/$hostpid/status")"
    [[ "$uids" == "10001 10001 10001 10001" ]] || container_fail "$name" "tessera runs with uids $uids, expected 10001"
    log "  PID 1: ${cmdline% }, uid 10001 (host PID $hostpid)"

    local code
    code="$(api "$t/a.json" "$base/v1/tasks")"
    [[ "$code" == 401 ]] || container_fail "$name" "GET /v1/tasks without the token answered $code, expected 401"
    code="$(api "$t/a.json" -H "Authorization: Bearer wrong-$token" "$base/v1/tasks")"
    [[ "$code" == 401 ]] || container_fail "$name" "GET /v1/tasks with a wrong token answered $code, expected 401"
    code="$(api "$t/a.json" -H "Authorization: Bearer $token" "$base/v1/tasks")"
    [[ "$code" == 200 ]] || container_fail "$name" "GET /v1/tasks with the token answered $code, expected 200"
    log "  401 without the token and with a wrong one, 200 with it"

    # -- a task: the clip twice side by side, published to nginx and recorded into /output
    local rtmp="rtmp://127.0.0.1:$rport/live/image-test"
    cat >"$t/task.json" <<TASK
{"taskId": "image-test",
 "inputs": [{"id": "a", "url": "clip.mp4", "loop": true}, {"id": "b", "url": "clip.mp4", "loop": true, "startAtMs": 500}],
 "encoder": {"video": {"width": 640, "height": 360, "fps": 30, "bitrateKbps": 800, "gopSeconds": 1},
             "audio": {"sampleRate": 48000, "channels": 2, "bitrateKbps": 96}},
 "layout": {"template": "pk"},
 "outputs": [{"url": "$rtmp"}, {"url": "recording.mp4"}, {"url": "recording.mkv"}]}
TASK
    code="$(api "$t/a.json" -X POST -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
        --data @"$t/task.json" "$base/v1/tasks")"
    [[ "$code" == 201 ]] || container_fail "$name" "POST /v1/tasks answered $code: $(cat "$t/a.json")"
    wait_output_live "$base" "$token" image-test 20 "$t/a.json" \
        || container_fail "$name" "the task's RTMP output did not go live within 20 s"
    log "  task image-test running, its RTMP output live"
    check_stream "$rtmp" 640 360
    # Every process in the container (tessera and the task's worker) runs as uid 10001.
    local pids p
    pids="$("$DOCKER" top "$name" -eo pid | tail -n +2)"
    [[ "$(wc -w <<<"$pids")" -ge 2 ]] || container_fail "$name" "no worker process in the container: $pids"
    for p in $pids; do
        [[ "$(awk '/^Uid:/ {print $2}' "/proc/$p/status")" == 10001 ]] \
            || container_fail "$name" "process $p ($(cat "/proc/$p/comm")) does not run as uid 10001"
    done
    log "  $(wc -w <<<"$pids") processes in the container, all uid 10001"
    sleep 1

    # -- docker stop: SIGTERM to PID 1 (Docker's SIGKILL would come only 30 s after --shutdown-seconds)
    t0="$(now_ms)"
    "$DOCKER" stop -t $((SHUTDOWN_SECONDS + 30)) "$name" >/dev/null
    elapsed=$(( $(now_ms) - t0 ))
    local rc
    rc="$("$DOCKER" inspect -f '{{.State.ExitCode}} {{.State.OOMKilled}}' "$name")"
    [[ "$rc" == "0 false" ]] || container_fail "$name" "after docker stop the container exited with '$rc', expected 0"
    [[ $elapsed -le $((SHUTDOWN_SECONDS * 1000)) ]] \
        || container_fail "$name" "docker stop took $elapsed ms, more than --shutdown-seconds $SHUTDOWN_SECONDS"
    log "  docker stop: exit code 0 after $elapsed ms (--shutdown-seconds $SHUTDOWN_SECONDS)"
    check_recording "$t/output/recording.mp4" 3
    check_recording "$t/output/recording.mkv" 3
    "$DOCKER" rm "$name" >/dev/null
    stop_nginx
    CLEANUPS=()
    log "image checks passed"
}

# The compose command: the engine's plugin (`docker compose`), else Debian's docker-compose.
COMPOSE=()
pick_compose() {
    if "$DOCKER" compose version >/dev/null 2>&1; then COMPOSE=("$DOCKER" compose)
    elif command -v docker-compose >/dev/null 2>&1; then COMPOSE=(docker-compose)
    else die "neither 'docker compose' nor docker-compose is installed"
    fi
}

test_compose() {
    pick_compose
    local t project="tessera-image-test"
    t="$(mktemp -d /tmp/tessera-compose-test.XXXXXX)"; TMP_DIRS+=("$t"); chmod 755 "$t"
    mkdir -p "$t/media"; make_clip "$t/media/clip.mp4"
    # nginx-rtmp's image, Debian's nginx on the same base (no registry); Tessera's is $IMAGE.
    log "docker build -f docker/nginx-rtmp.Dockerfile -t tessera-nginx-rtmp:local docker"
    docker_build -q -f docker/nginx-rtmp.Dockerfile -t tessera-nginx-rtmp:local docker >/dev/null
    local port rport token
    port="$(free_port)"; rport="$(free_port)"; token="compose-test-$RANDOM$RANDOM"
    # docker/nginx-rtmp.conf on a free port instead of 1935.
    sed "s/listen 1935;/listen 127.0.0.1:$rport;/" docker/nginx-rtmp.conf >"$t/nginx-rtmp.conf"
    grep -q "listen 127.0.0.1:$rport;" "$t/nginx-rtmp.conf" || die "docker/nginx-rtmp.conf has no 'listen 1935;' line"
    chmod 644 "$t/nginx-rtmp.conf"
    local file=(-f docker/compose.yaml)
    if [[ "${COMPOSE[0]}" == docker-compose ]]; then
        # Debian 12's docker-compose (1.29) reads the Compose specification but not its top-level
        # `name:` (the project name, given here with -p anyway): it reads the file without that
        # line, with relative paths still resolved from docker/.
        grep -v '^name:' docker/compose.yaml >"$t/compose.yaml"
        file=(-f "$t/compose.yaml" --project-directory "$REPO/docker")
    fi
    local compose=(env TESSERA_IMAGE="$IMAGE" TESSERA_PORT="$port" TESSERA_RTMP_PORT="$rport"
                   TESSERA_API_TOKEN="$token" TESSERA_MEDIA_DIR="$t/media" TESSERA_NGINX_CONF="$t/nginx-rtmp.conf"
                   "${COMPOSE[@]}" "${file[@]}" -p "$project")
    log "${COMPOSE[*]} -f docker/compose.yaml up -d --no-build (API port $port, RTMP port $rport)"
    CLEANUPS+=("$(printf '%q ' "${compose[@]}") down -v --remove-orphans")
    "${compose[@]}" up -d --no-build
    wait_services_healthy 2 60 "${compose[@]}"

    local base="http://127.0.0.1:$port" rtmp="rtmp://127.0.0.1:$rport/live/compose-test" code
    cat >"$t/task.json" <<TASK
{"taskId": "compose-test",
 "inputs": [{"id": "a", "url": "clip.mp4", "loop": true}, {"id": "b", "url": "clip.mp4", "loop": true}],
 "encoder": {"video": {"width": 640, "height": 180, "fps": 30, "bitrateKbps": 600}},
 "layout": {"template": "pk"},
 "outputs": [{"url": "$rtmp"}, {"url": "compose.mp4"}]}
TASK
    code="$(api "$t/a.json" -X POST -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
        --data @"$t/task.json" "$base/v1/tasks")"
    [[ "$code" == 201 ]] || { "${compose[@]}" logs --tail 30 >&2; die "compose: POST /v1/tasks answered $code: $(cat "$t/a.json")"; }
    wait_output_live "$base" "$token" compose-test 20 "$t/a.json" \
        || { "${compose[@]}" logs --tail 30 >&2; die "compose: the task's RTMP output did not go live"; }
    log "  task compose-test running, its RTMP output live"
    check_stream "$rtmp" 640 180
    code="$(api "$t/a.json" -X DELETE -H "Authorization: Bearer $token" "$base/v1/tasks/compose-test")"
    [[ "$code" == 200 ]] || die "compose: DELETE /v1/tasks/compose-test answered $code: $(cat "$t/a.json")"
    "$DOCKER" cp "$("${compose[@]}" ps -q tessera):/output/compose.mp4" "$t/compose.mp4"
    ffprobe -v error -show_entries format=duration -of csv=p=0 "$t/compose.mp4" | grep -Eq '^[0-9.]+$' \
        || die "compose: the recording in the tessera-output volume is not playable"
    log "  compose.mp4 in the tessera-output volume plays"
    "${compose[@]}" down -v --remove-orphans
    CLEANUPS=()
    log "compose checks passed"
}

wait_services_healthy() {  # wait_services_healthy COUNT SECONDS compose-command...
    local count="$1" secs="$2"; shift 2
    local ids id st ok=0 i t0
    t0="$(now_ms)"
    for i in $(seq 1 $((secs * 2))); do
        ids="$("$@" ps -q)"
        ok=1
        for id in $ids; do
            st="$(container_state "$id")"
            [[ "$st" == "running healthy" ]] || ok=0
            [[ "$st" == running* || "$st" == created* ]] || { "$@" logs --tail 30 >&2; die "compose: a container is '$st'"; }
        done
        [[ $ok == 1 && $(wc -w <<<"$ids") -eq $count ]] && break
        ok=0
        sleep 0.5
    done
    [[ $ok == 1 ]] || { "$@" ps >&2; "$@" logs --tail 30 >&2; die "compose: not every service became healthy within $secs s"; }
    log "  all $count services healthy after $(( $(now_ms) - t0 )) ms"
}

# docker/compose.cluster.yaml: three nodes on one PostgreSQL store beside nginx-rtmp, on the host's
# network at the file's own ports. Run when the image's binary has the cluster's flags.
test_compose_cluster() {
    local file=docker/compose.cluster.yaml
    if [[ ! -f "$file" ]]; then log "no $file: nothing to run"; return 0; fi
    if ! "$DOCKER" run --rm --network host --entrypoint tessera "$IMAGE" serve --help 2>/dev/null | grep -q -- '--store'; then
        log "SKIPPED $file: the binary in $IMAGE has no --store (the cluster) yet"; return 0
    fi
    pick_compose
    local p busy=()
    for p in 8081 8082 8083 1935 15432; do
        if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then busy+=("$p"); fi
    done
    [[ ${#busy[@]} -eq 0 ]] || die "$file needs the host's ports 8081-8083, 1935 and 15432; in use: ${busy[*]}"
    local t project="tessera-cluster-test" token="cluster-test-$RANDOM$RANDOM"
    t="$(mktemp -d /tmp/tessera-cluster-test.XXXXXX)"; TMP_DIRS+=("$t"); chmod 755 "$t"
    mkdir -p "$t/media"; make_clip "$t/media/clip.mp4"
    log "docker build -f docker/postgres.Dockerfile -t tessera-postgres:local docker"
    docker_build -q -f docker/postgres.Dockerfile -t tessera-postgres:local docker >/dev/null
    docker_build -q -f docker/nginx-rtmp.Dockerfile -t tessera-nginx-rtmp:local docker >/dev/null
    # The file as it is, but for its media directory (a temporary one instead of docker/media) and,
    # for Debian's docker-compose 1.29, its top-level `name:`; relative paths resolve from docker/.
    sed -e "s#- ./media:/media:ro#- $t/media:/media:ro#" "$file" >"$t/compose.cluster.yaml"
    [[ "${COMPOSE[0]}" == docker-compose ]] && sed -i '/^name:/d' "$t/compose.cluster.yaml"
    sed -i "s#^\(\s*\)image: tessera:local#\1image: $IMAGE#" "$t/compose.cluster.yaml"
    local compose=(env TESSERA_API_TOKEN="$token" "${COMPOSE[@]}" -f "$t/compose.cluster.yaml"
                   --project-directory "$REPO/docker" -p "$project")
    log "${COMPOSE[*]} -f $file up -d --no-build"
    CLEANUPS+=("$(printf '%q ' "${compose[@]}") down -v --remove-orphans")
    "${compose[@]}" up -d --no-build
    wait_services_healthy 5 90 "${compose[@]}"

    local rtmp="rtmp://127.0.0.1:1935/live/cluster-test" code
    cat >"$t/task.json" <<TASK
{"taskId": "cluster-test",
 "inputs": [{"id": "a", "url": "clip.mp4", "loop": true}],
 "encoder": {"video": {"width": 640, "height": 360, "fps": 30, "bitrateKbps": 600}},
 "layout": {"template": "grid"},
 "outputs": [{"url": "$rtmp"}]}
TASK
    code="$(api "$t/a.json" -X POST -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
        --data @"$t/task.json" http://127.0.0.1:8081/v1/tasks)"
    [[ "$code" == 201 ]] || { "${compose[@]}" logs --tail 30 >&2; die "cluster: POST /v1/tasks on node 1 answered $code: $(cat "$t/a.json")"; }
    # Any node answers for any task.
    wait_output_live http://127.0.0.1:8082 "$token" cluster-test 30 "$t/a.json" \
        || { "${compose[@]}" logs --tail 30 >&2; die "cluster: node 2 does not see the task's RTMP output live"; }
    log "  task cluster-test (POSTed to node 1) running and live as node 2 reports it"
    check_stream "$rtmp" 640 360
    code="$(api "$t/a.json" -X DELETE -H "Authorization: Bearer $token" http://127.0.0.1:8083/v1/tasks/cluster-test)"
    [[ "$code" == 200 ]] || die "cluster: DELETE on node 3 answered $code: $(cat "$t/a.json")"
    log "  stopped through node 3"
    "${compose[@]}" down -v --remove-orphans
    CLEANUPS=()
    log "cluster compose checks passed"
}

# --- main -----------------------------------------------------------------------------------------
timed "packages" install_packages
timed "engine start" start_engine
pick_builder
if [[ $DO_BUILD == 1 ]]; then
    timed "base image" ensure_base_image
    timed "image build" build_image
else
    "$DOCKER" image inspect "$IMAGE" >/dev/null 2>&1 || die "no image $IMAGE: run 'bash scripts/image.sh build' first"
fi
if [[ $DO_TEST == 1 ]]; then
    timed "image test" test_image
    if [[ "${TESSERA_SKIP_COMPOSE:-0}" != 1 ]]; then
        timed "compose test" test_compose
        timed "cluster compose test" test_compose_cluster
    fi
fi
log "done"
