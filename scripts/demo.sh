#!/usr/bin/env bash
# Generates demo media with the ffmpeg command line and runs an example mix with Tessera.
#
#   bash scripts/demo.sh                 # media (once) + the PK example → demo/out/pk.mp4
#   bash scripts/demo.sh --all           # media + every example in Layouts/examples/
#   bash scripts/demo.sh --media-only    # only (re)create the media files that are missing
#   bash scripts/demo.sh --force         # recreate the media even if present
#
# Environment: DEMO_DIR [<repo>/demo], TESSERA_BIN [<repo>/.build/release/tessera].
# The example tasks name the media by file name only; they resolve against --media-root.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEMO_DIR="${DEMO_DIR:-$REPO/demo}"
MEDIA="$DEMO_DIR/media"
OUT="$DEMO_DIR/out"
TESSERA_BIN="${TESSERA_BIN:-$REPO/${TESSERA_BUILD_DIR:-.build}/release/tessera}"

media_only=0 force=0 all=0
for arg in "$@"; do
    case "$arg" in
        --media-only) media_only=1 ;;
        --force) force=1 ;;
        --all) all=1 ;;
        -h|--help) sed -n '2,11p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "unknown argument: $arg" >&2; exit 2 ;;
    esac
done

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
command -v ffmpeg >/dev/null || { echo "error: ffmpeg not found: run scripts/install.sh first" >&2; exit 1; }

mkdir -p "$MEDIA" "$OUT"

# make NAME ffmpeg-arguments... : writes $MEDIA/NAME unless it exists (atomically, via a temp file).
make() {
    local name="$1"; shift
    local dest="$MEDIA/$name"
    if [[ -s "$dest" && $force -eq 0 ]]; then return 0; fi
    log "making $name"
    local tmp="$MEDIA/.tmp.$name"
    ffmpeg -hide_banner -loglevel error -nostdin -y "$@" "$tmp"
    mv -f "$tmp" "$dest"
}

# The host: 1280x720 30 fps test pattern with a 440 Hz tone, 10 s, H.264 + AAC in MP4.
make anchor.mp4 \
    -f lavfi -i "testsrc2=s=1280x720:r=30:d=10" \
    -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=10" \
    -c:v libx264 -preset veryfast -crf 23 -pix_fmt yuv420p -g 60 \
    -c:a aac -b:a 128k -ac 2 -shortest -f mp4

# A guest on a phone: portrait 720x1280 at 25 fps, another pattern, 660 Hz, 8 s.
make guest.mp4 \
    -f lavfi -i "testsrc=s=720x1280:r=25:d=8" \
    -f lavfi -i "sine=frequency=660:sample_rate=44100:duration=8" \
    -c:v libx264 -preset veryfast -crf 23 -pix_fmt yuv420p -g 50 \
    -c:a aac -b:a 96k -ac 1 -shortest -f mp4

# A co-host from a browser: VP9 + Opus in WebM, 640x480 at 24 fps, 8 s.
make cohost.webm \
    -f lavfi -i "smptehdbars=s=640x480:r=24:d=8,hue=h=t*45" \
    -f lavfi -i "sine=frequency=550:sample_rate=48000:duration=8,volume=0.8" \
    -c:v libvpx-vp9 -deadline realtime -cpu-used 8 -b:v 600k -pix_fmt yuv420p \
    -c:a libopus -b:a 64k -shortest -f webm

# A caller on the phone line: audio only (MP3 in Matroska), a tone that comes and goes, 10 s.
make caller.mkv \
    -f lavfi -i "aevalsrc=0.4*sin(2*PI*330*t)*lt(mod(t\,1)\,0.6):s=22050:d=10" \
    -c:a libmp3lame -b:a 64k -f matroska

# A logo with a real alpha channel: an orange disc and bar on a transparent background.
make logo.png \
    -f lavfi -i "color=c=black@0:s=240x120:d=1,format=rgba,geq=r=255:g=140:b=0:a='255*(lt(hypot(X-60\,Y-60)\,50)+lt(abs(Y-60)\,14)*gt(X\,60)*lt(X\,228))'" \
    -frames:v 1 -f image2 -c:v png

# A background: a soft diagonal gradient.
make bg.png \
    -f lavfi -i "color=c=black:s=1280x720:d=1,format=rgb24,geq=r='20+40*X/W':g='24+30*Y/H':b='60+80*(X+Y)/(W+H)'" \
    -frames:v 1 -f image2 -c:v png

# A placeholder for participants with no video: a grey silhouette on dark blue.
make placeholder.png \
    -f lavfi -i "color=c=black:s=640x360:d=1,format=rgb24,geq=r='if(lt(hypot(X-320\,Y-140)\,60)+lt(hypot(X-320\,Y-330)\,120)*gt(Y\,250)\,150\,30)':g='if(lt(hypot(X-320\,Y-140)\,60)+lt(hypot(X-320\,Y-330)\,120)*gt(Y\,250)\,150\,40)':b='if(lt(hypot(X-320\,Y-140)\,60)+lt(hypot(X-320\,Y-330)\,120)*gt(Y\,250)\,160\,80)'" \
    -frames:v 1 -f image2 -c:v png

log "demo media in $MEDIA"
if [[ $media_only -eq 1 ]]; then exit 0; fi

if [[ ! -x "$TESSERA_BIN" ]]; then
    echo "error: $TESSERA_BIN not found: build it with 'swift build -c release' (scripts/install.sh does)" >&2
    exit 1
fi

if [[ $all -eq 1 ]]; then
    examples=("$REPO"/Layouts/examples/*.json)
else
    examples=("$REPO/Layouts/examples/pk-side-by-side.json")
fi

for task in "${examples[@]}"; do
    log "tessera mix ${task#"$REPO"/} --media-root $MEDIA --output-dir $OUT"
    (cd "$REPO" && "$TESSERA_BIN" mix "$task" --media-root "$MEDIA" --output-dir "$OUT")
done

echo
echo "Done. Results in $OUT:"
for f in "$OUT"/*; do
    [[ -f "$f" ]] || continue
    summary="$(ffprobe -v error -show_entries format=duration:stream=codec_type,codec_name,width,height \
        -of compact=p=0:nk=1 "$f" 2>/dev/null | tr '\n' ' ')"
    printf '  %s  (%s)\n' "$f" "$summary"
done
cat <<EOF

Play one:      ffplay $OUT/pk.mp4      (or copy it to a machine with a video player)
Other tasks:   $TESSERA_BIN mix Layouts/examples/<name>.json --media-root $MEDIA --output-dir $OUT
Check a task:  $TESSERA_BIN validate Layouts/examples/<name>.json
Draw a layout: $TESSERA_BIN preview Layouts/examples/pk-side-by-side.json --output $OUT/preview.png

Start the live service (JSON HTTP API, RTMP publishing) on this media:
  $TESSERA_BIN serve --host 127.0.0.1 --port 8080 --media-root $MEDIA --output-dir $OUT
then, in another shell, start a live task that loops the demo clips into a file (add an
rtmp:// URL to "outputs" to publish to a CDN or a local nginx-rtmp):
  curl -s -X POST localhost:8080/v1/tasks -d '{"taskId":"demo","inputs":[{"id":"anchor","url":"anchor.mp4","loop":true},{"id":"guest","url":"guest.mp4","loop":true}],"encoder":{"video":{"width":1280,"height":720}},"layout":{"template":"pk"},"outputs":[{"url":"live-demo.mp4"}]}'
  curl -s localhost:8080/v1/tasks/demo                       # status
  curl -s localhost:8080/v1/tasks/demo/snapshot.png -o now.png
  curl -s -X DELETE localhost:8080/v1/tasks/demo              # stop (writes the file's end)
EOF
