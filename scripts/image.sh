#!/usr/bin/env bash
# Builds Tessera's container image (docker/Dockerfile) with a real Docker engine, then runs the
# image tests (pytest tests/image) on that engine. CI runs `build test` from scripts/test.sh.
#
#   bash scripts/image.sh build          # leaves the image tagged tessera:local
#   bash scripts/image.sh test           # pytest tests/image on tessera:local and the compose files
#   bash scripts/image.sh build test     # both with one engine start
#   bash scripts/image.sh test -- -k stop   # arguments after -- go to pytest
#
# Needs root (apt-get, dockerd, ownership of the /output volume): run as another user it re-runs
# itself through sudo.
#
# Engine: the one DOCKER_HOST names, else one this script started earlier and left running, else
# the system's (/var/run/docker.sock), else its own: `dockerd --bridge=none --iptables=false
# --ip6tables=false` with its data under $TESSERA_DOCKER_ROOT and its socket, pid file and exec
# root under /run/tessera-docker, stopped by its PID when the script ends. Only loopback traffic is
# assumed: every build step and container uses the host's network (`--network host`). Where no
# engine can start (no privileges, no kernel support), the script says so and exits 77 (skipped);
# with `test`, pytest runs first and reports every image test as skipped, with that reason.
#
# build  1. installs what is missing: docker.io, debootstrap (and, for `test`, docker-compose,
#           ffmpeg, nginx with libnginx-mod-rtmp), after apt-get update;
#        2. base image `debian:bookworm-slim`, unless the engine has it: no registry is needed —
#           debootstrap makes a minimal Debian 12 root file system (trimmed as Debian's official
#           slim image is: no docs, man pages or locales, no package lists), cached as a tarball in
#           $TESSERA_IMAGE_CACHE, and `docker import` tags it;
#        3. the image, by default from the release binary scripts/install.sh built
#           ($TESSERA_BUILD_DIR/release/tessera): the binary, its resource bundle and the Swift
#           runtime libraries it loads are staged in a temporary build context and built with
#           `docker build -f docker/Dockerfile --target runtime-prebuilt` (see the Dockerfile).
#           TESSERA_IMAGE_FROM_SOURCE=1 runs the plain `docker build -f docker/Dockerfile .`
#           instead, which compiles in the Swift builder image (needs a registry);
#        4. the compose files' other images from docker/: tessera-nginx-rtmp:local and
#           tessera-postgres:local.
#
# test   `pytest tests/image -rA` from the test virtualenv (scripts/install.sh), with DOCKER_HOST
#        naming the engine above: tessera:local run with `docker run --network host` as an
#        operator would (tests/image/test_image.py), then docker/compose.yaml and
#        docker/compose.cluster.yaml (tests/image/test_compose.py); what each checks is in those
#        files. The figures (image size, layers, timings) are printed in pytest's report.
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
#   TESSERA_VENV               the test virtualenv [.venv-test]
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"

log() { printf '\033[1m==> [image] %s\033[0m\n' "$*" >&2; }
die() { printf 'error: [image] %s\n' "$*" >&2; exit 1; }
usage() { sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

[[ $# -ge 1 ]] || usage
DO_BUILD=0; DO_TEST=0
PYTEST_ARGS=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        build) DO_BUILD=1 ;;
        test) DO_TEST=1 ;;
        --) shift; PYTEST_ARGS=("$@"); break ;;
        -h|--help|help) usage ;;
        *) printf 'error: [image] unknown command %q\n' "$1" >&2; usage ;;
    esac
    shift
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
VENV="${TESSERA_VENV:-.venv-test}"
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
on_exit() {
    local rc=$?
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

# --- 1. packages ----------------------------------------------------------------------------------
install_packages() {
    local want=()
    command -v dockerd >/dev/null 2>&1 || want+=(docker.io)
    command -v debootstrap >/dev/null 2>&1 || want+=(debootstrap)
    if [[ $DO_TEST == 1 ]]; then
        command -v ffmpeg >/dev/null 2>&1 || want+=(ffmpeg)
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

no_engine() {  # no_engine REASON: exit 77 (skipped); with `test`, pytest first reports the image tests skipped
    log "SKIPPED: $1"
    if [[ $DO_TEST == 1 ]]; then (TESSERA_DOCKER_UNAVAILABLE="$1" run_tests); fi
    exit 77
}

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
            no_engine "no Docker engine can start on this machine (dockerd exited: $(tail -n 1 "$logf"))"
        fi
        [[ -S "$RUN_DIR/docker.sock" ]] && engine_answers && break
        sleep 0.5
    done
    engine_answers || no_engine "dockerd did not answer within 60 s (see $logf)"
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
        || no_engine "the engine started but cannot run a container here"
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
    cp -R "$BUILD_DIR/release/Tessera_TesseraTask.resources" "$BUILD_DIR/release/Tessera_TesseraServer.resources" "$dest/"
    ldd "$dest/tessera" | awk '$3 ~ "/lib/swift/linux/" {print $3}' | xargs -r cp -t "$dest/"
    chmod -R a+rX "$stage"
    [[ -f "$dest/Tessera_TesseraTask.resources/templates/grid.json" ]] \
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

# The compose files' other images (Debian's nginx with the RTMP module, PostgreSQL), on the same base.
build_compose_images() {
    log "docker build -f docker/nginx-rtmp.Dockerfile -t tessera-nginx-rtmp:local docker"
    docker_build -q -f docker/nginx-rtmp.Dockerfile -t tessera-nginx-rtmp:local docker >/dev/null
    if [[ -f docker/postgres.Dockerfile ]]; then
        log "docker build -f docker/postgres.Dockerfile -t tessera-postgres:local docker"
        docker_build -q -f docker/postgres.Dockerfile -t tessera-postgres:local docker >/dev/null
    fi
}

image_size() {
    "$DOCKER" image inspect -f '{{.Size}}' "$IMAGE" | awk '{printf "%.1f MB", $1 / 1e6}'
}

# --- 5. the checks ---------------------------------------------------------------------------------
# tests/image (pytest, the virtualenv scripts/install.sh made), on the engine above: see its
# conftest.py. Arguments after `--` go to pytest; TESSERA_SKIP_COMPOSE=1 runs tests/image/test_image.py
# only. pytest.ini leaves tests/image out of `pytest tests/`: it needs the image built first.
TESTS_RC=0
run_tests() {  # sets TESTS_RC to pytest's exit code
    local python="$VENV/bin/python" paths=(tests/image)
    [[ -x "$python" ]] || die "no test virtualenv at $VENV: run scripts/install.sh first"
    [[ "${TESSERA_SKIP_COMPOSE:-0}" == 1 ]] && paths=(tests/image/test_image.py)
    log "pytest ${paths[*]} (image $IMAGE${DOCKER_HOST:+, DOCKER_HOST=$DOCKER_HOST})"
    TESSERA_IMAGE="$IMAGE" "$python" -m pytest "${paths[@]}" -rA "${PYTEST_ARGS[@]}" || TESTS_RC=$?
}

# --- main -----------------------------------------------------------------------------------------
timed "packages" install_packages
timed "engine start" start_engine
pick_builder
if [[ $DO_BUILD == 1 ]]; then
    timed "base image" ensure_base_image
    timed "image build" build_image
    timed "compose images" build_compose_images
fi
if [[ $DO_TEST == 1 ]]; then
    timed "image tests" run_tests
    [[ $TESTS_RC == 0 ]] || die "the image tests failed (pytest exit code $TESTS_RC)"
fi
log "done"
