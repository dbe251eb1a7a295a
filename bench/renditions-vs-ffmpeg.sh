#!/usr/bin/env bash
# Tessera's renditions vs the ffmpeg command line making the same HLS ABR ladder (bench/README.md).
#
#   bench/renditions-vs-ffmpeg.sh [--seconds S] [--repeat K] [--tessera PATH] [--work DIR]
#
# One 2x2 job: four 1280x720 30 fps inputs (bench/mix-vs-ffmpeg.sh's, made by it if missing) into
# 640x360 tiles of a 1280x720 canvas, audio mixed, then a three-rung ladder: 1280x720 at 2500 kb/s
# (the main size), 854x480 at 1200 kb/s and 640x360 at 700 kb/s, x264 veryfast, 2 s GOPs, AAC
# 128 kb/s encoded once, written as HLS (fMP4, 2 s segments) under one master playlist. Tessera
# draws the composite once, scales it per rendition (swscale bilinear) and encodes each once;
# ffmpeg gets xstack + split + scale=…:flags=bilinear + three libx264 + one aac and the hls muxer
# with var_stream_map. Prints wall, user+sys CPU and peak memory of both, and the ratios
# tessera / ffmpeg (lower is better).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"

seconds=10
repeat=1
tessera="$repo/.build/release/tessera"
work="$here/.work"
fps=30
gop=$((2 * fps))
audio_kbps=128
# Rung: width height kb/s. The first is the task's main size.
ladder=("1280 720 2500" "854 480 1200" "640 360 700")

usage() { sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --repeat) repeat="$2"; shift 2 ;;
        --tessera) tessera="$2"; shift 2 ;;
        --work) work="$2"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
done

die() { echo "error: $*" >&2; exit 1; }
[[ "$seconds" =~ ^[0-9]+$ && "$seconds" -ge 2 ]] || die "--seconds must be an integer of at least 2"
[[ "$repeat" =~ ^[0-9]+$ && "$repeat" -ge 1 ]] || die "--repeat must be a positive integer"
[ -x "$tessera" ] || die "no Tessera binary at $tessera (cd $repo && swift build -c release)"
command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null || die "ffmpeg / ffprobe not found"
[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install time)"

# The inputs are mix-vs-ffmpeg.sh's (same names, same cache): one recipe for both benchmarks.
"$here/mix-vs-ffmpeg.sh" --generate-only --jobs 2x2 --seconds "$seconds" --work "$work" --tessera "$tessera" >&2
media="$work/media"
inputs=()
for i in 1 2 3 4; do
    inputs+=("$(ls "$media"/in$i-v*-"${seconds}"s.mp4 | head -n 1)")
    [ -s "${inputs[-1]}" ] || die "input $i missing in $media"
done
run="$work/runs/renditions"
mkdir -p "$run"
load1() { awk '{print $1}' /proc/loadavg; }

# ---------------------------------------------------------------------------------------------
# Tessera: the task.
# ---------------------------------------------------------------------------------------------
read -r main_w main_h main_kbps <<<"${ladder[0]}"
renditions=""
for rung in "${ladder[@]:1}"; do
    read -r w h kbps <<<"$rung"
    renditions+="${renditions:+, }{\"width\": $w, \"height\": $h, \"bitrateKbps\": $kbps}"
done
cat >"$run/task.json" <<EOF
{
  "taskId": "bench-renditions",
  "inputs": [
    {"id": "in1", "url": "$(basename "${inputs[0]}")"}, {"id": "in2", "url": "$(basename "${inputs[1]}")"},
    {"id": "in3", "url": "$(basename "${inputs[2]}")"}, {"id": "in4", "url": "$(basename "${inputs[3]}")"}
  ],
  "encoder": {
    "video": {"width": $main_w, "height": $main_h, "fps": $fps, "bitrateKbps": $main_kbps, "gopSeconds": 2,
              "preset": "veryfast", "renditions": [$renditions]},
    "audio": {"sampleRate": 48000, "channels": 2, "bitrateKbps": $audio_kbps}
  },
  "layout": {"backgroundColor": "#000000", "regions": [
    {"input": "in1", "x": 0, "y": 0, "width": 640, "height": 360, "renderMode": "stretch"},
    {"input": "in2", "x": 640, "y": 0, "width": 640, "height": 360, "renderMode": "stretch"},
    {"input": "in3", "x": 0, "y": 360, "width": 640, "height": 360, "renderMode": "stretch"},
    {"input": "in4", "x": 640, "y": 360, "width": 640, "height": 360, "renderMode": "stretch"}
  ]},
  "outputs": [{"url": "tessera/show.m3u8", "hls": {"segmentSeconds": 2}}]
}
EOF

# ---------------------------------------------------------------------------------------------
# ffmpeg: the same ladder as one command.
# ---------------------------------------------------------------------------------------------
graph=""
for i in 0 1 2 3; do graph+="[$i:v]scale=640:360:flags=area[t$i];"; done
graph+="[t0][t1][t2][t3]xstack=inputs=4:layout=0_0|w0_0|0_h0|w0_h0,format=yuv420p,split=3[v0][c1][c2];"
graph+="[c1]scale=854:480:flags=bilinear[v1];[c2]scale=640:360:flags=bilinear[v2];"
graph+="[0:a][1:a][2:a][3:a]amix=inputs=4:duration=longest:normalize=0[a]"
ffmpeg_args=(ffmpeg -hide_banner -nostdin -nostats -loglevel warning -y)
for input in "${inputs[@]}"; do ffmpeg_args+=(-i "$input"); done
ffmpeg_args+=(-filter_complex "$graph")
stream_map=""
for index in 0 1 2; do
    read -r w h kbps <<<"${ladder[$index]}"
    # Tessera's x264 settings (Encoder.video): ABR with VBV capped at the bitrate, a 2 x bitrate
    # buffer, fixed GOP without scene cuts or B-frames, BT.709 tags.
    ffmpeg_args+=(-map "[v$index]" -c:v:$index libx264 -preset:v:$index veryfast -b:v:$index "${kbps}k"
                  -maxrate:v:$index "${kbps}k" -bufsize:v:$index "$((2 * kbps))k")
    stream_map+="v:$index,agroup:aud "
done
ffmpeg_args+=(-map "[a]" -c:a aac -b:a "${audio_kbps}k" -ar 48000 -ac 2
              -g "$gop" -keyint_min "$gop" -x264-params scenecut=0:bframes=0
              -colorspace bt709 -color_primaries bt709 -color_trc bt709 -color_range tv
              -f hls -hls_time 2 -hls_playlist_type event -hls_segment_type fmp4
              -var_stream_map "${stream_map}a:0,agroup:aud" -master_pl_name show.m3u8
              -hls_segment_filename "$run/ffmpeg/show_%v_%05d.m4s" "$run/ffmpeg/show_%v.m3u8")

# ---------------------------------------------------------------------------------------------
# Measure.
# ---------------------------------------------------------------------------------------------
timed() { # label command... -> "elapsed user sys maxrss_kb"
    local label=$1 status=0
    shift
    /usr/bin/time -f '%e %U %S %M' -o "$run/$label.time" "$@" >"$run/$label.log" 2>&1 || status=$?
    [ $status -eq 0 ] || { tail -n 20 "$run/$label.log" >&2; die "$label failed (exit $status)"; }
    tail -n 1 "$run/$label.time"
}
fmt() { awk '{ printf "%6.2fs wall  %6.2fs cpu (user %.2f + sys %.2f)  %4.0f MB rss", $1, $2 + $3, $2, $3, $4 / 1024 }' <<<"$1"; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "# renditions: tessera vs ffmpeg CLI — 2x2 of 1280x720@${fps} inputs, ${seconds}s, ladder ${ladder[*]// /x} (main size 1280x720), veryfast, AAC ${audio_kbps}k once, HLS fMP4"
echo "# host: $(nproc) cores, $(ffmpeg -version | head -n 1 | cut -d' ' -f1-3), load $(load1)"
t_runs=(); f_runs=()
for ((r = 1; r <= repeat; r++)); do
    order="tessera ffmpeg"; [ $((r % 2)) -eq 0 ] && order="ffmpeg tessera"
    for who in $order; do
        rm -rf "${run:?}/$who"; mkdir -p "$run/$who"
        if [ "$who" = tessera ]; then
            res=$(timed tessera "$tessera" mix "$run/task.json" --media-root "$media" --output-dir "$run")
            t_runs+=("$res")
        else
            res=$(timed ffmpeg "${ffmpeg_args[@]}")
            f_runs+=("$res")
        fi
        printf '  run %d %-7s %s  (load before %s)\n' "$r" "$who" "$(fmt "$res")" "$(load1)"
    done
done

echo "  outputs (ffprobe of each variant playlist):"
for who in tessera ffmpeg; do
    for index in 0 1 2; do
        playlist="$run/$who/show_r$index.m3u8"; [ "$who" = ffmpeg ] && playlist="$run/$who/show_$index.m3u8"
        probe=$(ffprobe -v error -select_streams v:0 -count_packets \
            -show_entries stream=width,height,nb_read_packets -of csv=p=0 "$playlist" 2>&1 | sed -n 1p || true)
        printf '    %-7s %-16s %s (width,height,frames)\n' "$who" "$(basename "$playlist")" "$probe"
    done
    # ffmpeg's master also lists its audio group as a variant of its own.
    printf '    %-7s master:          %s #EXT-X-STREAM-INF\n' "$who" "$(grep -c '^#EXT-X-STREAM-INF' "$run/$who/show.m3u8")"
done

t_wall=$(printf '%s\n' "${t_runs[@]}" | awk '{print $1}' | median)
f_wall=$(printf '%s\n' "${f_runs[@]}" | awk '{print $1}' | median)
t_cpu=$(printf '%s\n' "${t_runs[@]}" | awk '{print $2 + $3}' | median)
f_cpu=$(printf '%s\n' "${f_runs[@]}" | awk '{print $2 + $3}' | median)
echo
echo "== summary (median of $repeat; ratio = tessera / ffmpeg, lower is better; load now $(load1)) =="
awk -v tw="$t_wall" -v fw="$f_wall" -v tc="$t_cpu" -v fc="$f_cpu" 'BEGIN {
    printf "2x2 + 3 renditions  tessera %6.2fs wall %6.2fs cpu | ffmpeg %6.2fs wall %6.2fs cpu | cpu ratio %.2f, wall ratio %.2f\n",
        tw, tc, fw, fc, tc / fc, tw / fw }'
echo "# task, logs and both ladders in $run (overwritten by the next run)"
