#!/usr/bin/env bash
# Installs everything Tessera needs on a fresh Debian 12 machine and builds the release binary.
#
#   bash scripts/install.sh      # as root, or as a user with sudo (used for apt-get only)
#
# Idempotent: run it as often as you like. Steps:
#   1. apt packages: FFmpeg 5.1 development libraries and command line, pkg-config, the Swift
#      toolchain's own system dependencies, nginx with the RTMP module (for trying live output),
#      Python 3 with venv (for the end-to-end tests), libsrtp2 (SRTP inputs), Janus (the SFU tests).
#   2. a Swift 6 toolchain: found on PATH or in the usual install places, or from apt when Debian
#      offers `swiftlang`; otherwise the script says how to install one and stops.
#   3. `swift build -c release` → .build/release/tessera
#   4. a Python virtualenv `.venv-test` with the test dependencies (requirements-test.txt), made
#      while step 3 compiles.
#
# Environment knobs (all optional):
#   TESSERA_BUILD_DIR   SwiftPM scratch path [.build]
#   TESSERA_SKIP_APT=1  skip step 1 (no root needed then)
#   TESSERA_SKIP_BUILD=1  skip step 3
#   TESSERA_VENV        virtualenv location [.venv-test]
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"

BUILD_DIR="${TESSERA_BUILD_DIR:-.build}"
VENV="${TESSERA_VENV:-.venv-test}"

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

APT_PACKAGES=(
    # FFmpeg 5.1: the libraries Tessera links, and the command line the tests and demo use
    libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev
    pkg-config ffmpeg
    # what a Swift toolchain on Debian 12 needs to compile and link (swift.org's list)
    binutils gcc g++ git libc6-dev libstdc++-12-dev libgcc-12-dev libcurl4-openssl-dev
    libxml2-dev libedit2 libsqlite3-0 libncurses6 libz3-4 libpython3.11 zlib1g-dev tzdata unzip
    # the embedded task store (GRDB links the system SQLite)
    libsqlite3-dev
    # text regions: FreeType (the CFreeType target) and the default font, DejaVu Sans
    libfreetype-dev fonts-dejavu-core
    # an RTMP server to try live output against
    nginx libnginx-mod-rtmp
    # PostgreSQL: the cluster's task store in the tests (each test starts its own server)
    postgresql
    # end-to-end tests
    python3 python3-venv python3-pip
    # GStreamer as a second, independent RTP sender in the tests: gst-launch-1.0 (tools),
    # videotestsrc / audiotestsrc / opusenc (base), rtph264pay / rtpvp8pay / rtpopuspay / vp8enc /
    # udpsink (good), x264enc (ugly)
    gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-ugly
    # GStreamer's legacy hlsdemux (bad), beside hlsdemux2 (good), reading HLS playlists back (test_recording_integrity.py)
    gstreamer1.0-plugins-bad
    # SRTP for RTP inputs: libsrtp 2 (the CSRTP target links it; Janus uses the same library)
    libsrtp2-dev
    # a real SFU in front of RTP ingest in the tests (tests/live/test_sfu_janus.py): Janus 1.1
    # (VideoRoom rtp_forward; each test starts its own from its own config folder); gcc (above)
    # builds the tests' small LD_PRELOAD shim that lets Janus gather ICE candidates on loopback
    janus
    # the console's end-to-end tests (tests/live/test_console_browser.py): headless Chromium and
    # its WebDriver, driven by selenium (requirements-test.txt) with the driver's path given
    chromium chromium-driver
    # promtool, which checks deploy/monitoring's alert rules and the dashboard's PromQL
    # (tests/test_deploy_monitoring.py)
    prometheus
    curl ca-certificates
)

# --- 1. apt packages -----------------------------------------------------------------------------
if [[ "${TESSERA_SKIP_APT:-0}" != 1 ]]; then
    if [[ $EUID -ne 0 ]]; then
        if command -v sudo >/dev/null 2>&1; then SUDO=(sudo); else
            die "installing apt packages needs root: run this as root, or as a user with sudo (TESSERA_SKIP_APT=1 skips them)"
        fi
    else
        SUDO=()
    fi
    log "apt-get update"
    "${SUDO[@]}" apt-get update -q
    log "apt-get install ${#APT_PACKAGES[@]} packages"
    # Ask policy-rc.d-less containers not to prompt; nginx is not started here.
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends "${APT_PACKAGES[@]}"
fi

# --- 2. Swift 6 toolchain ------------------------------------------------------------------------
# sudo resets PATH, so also look where toolchains are usually unpacked.
find_swift() {
    local candidates=()
    if command -v swift >/dev/null 2>&1; then candidates+=("$(command -v swift)"); fi
    local home_dirs=("${HOME:-/root}")
    if [[ -n "${SUDO_USER:-}" ]]; then home_dirs+=("$(getent passwd "$SUDO_USER" | cut -d: -f6)"); fi
    local h
    for h in "${home_dirs[@]}"; do
        candidates+=("$h/.local/share/swiftly/bin/swift" "$h/.swiftly/bin/swift")
    done
    candidates+=(/opt/swift/usr/bin/swift /usr/share/swift/usr/bin/swift /usr/local/swift/usr/bin/swift
                 /usr/bin/swift)
    local c
    for c in "${candidates[@]}"; do
        if [[ -x "$c" ]] && "$c" --version 2>/dev/null | grep -Eq 'Swift version (6|[7-9])\.'; then
            echo "$c"; return 0
        fi
    done
    return 1
}

if ! SWIFT="$(find_swift)"; then
    # Debian 12 itself carries no Swift; a later Debian or an added repository may offer swiftlang.
    candidate="$(apt-cache policy swiftlang 2>/dev/null | awk '/Candidate:/ {print $2}')"
    if [[ -n "$candidate" && "$candidate" != "(none)" && "${TESSERA_SKIP_APT:-0}" != 1 ]]; then
        log "installing swiftlang $candidate from apt"
        "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q swiftlang
    fi
    SWIFT="$(find_swift)" || {
        cat >&2 <<'EOF'
error: no Swift 6 toolchain found (looked on PATH, /opt/swift/usr/bin, /usr/share/swift/usr/bin,
       ~/.local/share/swiftly/bin), and Debian 12's apt has no `swiftlang` package.

Install Swift 6 for Debian 12 from swift.org, then run this script again. Either:

  # swiftly, the official toolchain manager (https://www.swift.org/install/linux/)
  curl -O https://download.swift.org/swiftly/linux/swiftly-$(uname -m).tar.gz
  tar zxf swiftly-$(uname -m).tar.gz && ./swiftly init --quiet-shell-followup
  . ~/.local/share/swiftly/env.sh

or unpack the Debian 12 tarball (https://www.swift.org/install/linux/debian/12/) so that
/opt/swift/usr/bin/swift exists:

  sudo mkdir -p /opt/swift && sudo tar -xzf swift-6.*-RELEASE-debian12.tar.gz -C /opt/swift --strip-components=1
EOF
        exit 2
    }
fi
PATH="$(dirname "$SWIFT"):$PATH"
export PATH
log "Swift toolchain: $("$SWIFT" --version 2>/dev/null | head -n1) ($SWIFT)"

# FFmpeg libraries visible to pkg-config (the CFFmpeg system library target needs them)
for lib in libavformat libavcodec libavutil libswscale libswresample; do
    pkg-config --exists "$lib" || die "pkg-config cannot find $lib (is ${lib}-dev installed?)"
done
log "FFmpeg libraries: libavformat $(pkg-config --modversion libavformat), command line: $(ffmpeg -hide_banner -version | head -n1 | cut -d' ' -f3)"

# --- 4. Python test environment ------------------------------------------------------------------
# Run beside the build (step 3): it is downloads and unpacking, the build is compiling; waited for
# below.
install_venv() {
    if [[ ! -x "$VENV/bin/python" ]]; then
        log "creating Python virtualenv $VENV"
        python3 -m venv "$VENV"
    fi
    if ! "$VENV/bin/python" -c 'import pytest, numpy' >/dev/null 2>&1 \
            || [[ requirements-test.txt -nt "$VENV/.installed" ]]; then
        log "installing test dependencies into $VENV"
        "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r requirements-test.txt
        touch "$VENV/.installed"
    fi
}
install_venv &
venv_pid=$!

# --- 3. build ------------------------------------------------------------------------------------
if [[ "${TESSERA_SKIP_BUILD:-0}" != 1 ]]; then
    log "swift build -c release --scratch-path $BUILD_DIR"
    "$SWIFT" build -c release --scratch-path "$BUILD_DIR"
    [[ -x "$BUILD_DIR/release/tessera" ]] || die "the build did not produce $BUILD_DIR/release/tessera"
    log "built $REPO/$BUILD_DIR/release/tessera"
fi

wait "$venv_pid" || die "installing the test dependencies into $VENV failed"

log "install done"
