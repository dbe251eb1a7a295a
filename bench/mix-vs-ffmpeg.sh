#!/usr/bin/env bash
# Tessera vs the ffmpeg command line on the same mixing job (see bench/README.md).
#
#   bench/mix-vs-ffmpeg.sh [--seconds S] [--repeat K] [--jobs 2x2,3x3] [--wait-load L]
#                          [--tessera PATH] [--work DIR] [--generate-only]
#
# For each job (2x2: 4 inputs of 640x360 tiles, 3x3: 9 inputs of 426x240 tiles, on a 1280x720
# canvas) it runs `tessera mix`, reads the x264 options Tessera's encoder used from the output's
# x264 SEI, runs the same composite + mix + encode through ffmpeg's filter_complex with those very
# x264 options, checks both outputs and prints wall time, CPU and peak memory of both, and the ratio
# tessera_elapsed / ffmpeg_elapsed (lower is better; the target is <= 0.85 on 2x2).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"

seconds=10
repeat=1
jobs="2x2,3x3"
wait_load=""
tessera="$repo/.build/release/tessera"
work="$here/.work"
generate_only=0
fps=30
width=1280
height=720
bitrate=2500
preset=veryfast
gop_seconds=2
audio_kbps=128

usage() { sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --repeat) repeat="$2"; shift 2 ;;
        --jobs) jobs="$2"; shift 2 ;;
        --wait-load) wait_load="$2"; shift 2 ;;
        --tessera) tessera="$2"; shift 2 ;;
        --work) work="$2"; shift 2 ;;
        --generate-only) generate_only=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
done

die() { echo "error: $*" >&2; exit 1; }
[[ "$seconds" =~ ^[0-9]+$ && "$seconds" -ge 1 ]] || die "--seconds must be a positive integer"
[[ "$repeat" =~ ^[0-9]+$ && "$repeat" -ge 1 ]] || die "--repeat must be a positive integer"
[ -x "$tessera" ] || die "no Tessera binary at $tessera (cd $repo && swift build -c release)"
for tool in ffmpeg ffprobe strings awk; do
    command -v "$tool" >/dev/null || die "$tool not found"
done
[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install time)"

frames=$((seconds * fps))
gop=$((gop_seconds * fps))
media="$work/media"
runs="$work/runs"
mkdir -p "$media" "$runs"

load1() { awk '{print $1}' /proc/loadavg; }

wait_for_load() {
    [ -n "$wait_load" ] || return 0
    local waited=0
    while awk -v l="$(load1)" -v m="$wait_load" 'BEGIN { exit !(l >= m) }'; do
        if [ "$waited" -ge 1200 ]; then
            echo "# load average still $(load1) after 20 min; measuring anyway" >&2
            return 0
        fi
        echo "# load average $(load1) >= $wait_load, waiting…" >&2
        sleep 30
        waited=$((waited + 30))
    done
}

# ---------------------------------------------------------------------------------------------
# 1. Inputs: 1280x720 30 fps H.264 (libx264 veryfast, CRF 23 capped at 6 Mb/s, 2 s GOP, as an
#    HD camera or an SFU recording would give) + AAC 48 kHz stereo, tagged BT.709, a different
#    moving picture and a different tone each. Cached by name (pattern version +
#    duration), so only the first run pays for them.
# ---------------------------------------------------------------------------------------------
gen_version=2
patterns=(
    "testsrc2=s=1280x720:r=30"
    "mandelbrot=s=640x360:r=30,scale=1280:720"
    "smptehdbars=s=1280x720:r=30"
    "gradients=s=1280x720:r=30:n=4:speed=0.03:seed=7"
    "life=s=320x180:r=30:mold=10:ratio=0.3:life_color=#40ff60:death_color=#a01010:seed=3,scale=1280:720:flags=neighbor"
    "cellauto=s=640x360:r=30:rule=110:seed=5,scale=1280:720:flags=neighbor"
    "rgbtestsrc=s=1280x720:r=30"
    "pal100bars=s=1280x720:r=30"
    "testsrc=s=1280x720:r=30"
)

input_path() { echo "$media/in$(($1 + 1))-v${gen_version}-${seconds}s.mp4"; }

make_input() {
    local i=$1 out tmp tone hs vs sx sy
    out="$(input_path "$i")"
    [ -s "$out" ] && return 0
    tmp="$out.tmp.mp4"
    tone=$((220 + 110 * i))
    # A slow pan over the whole picture (camera-like global motion) plus a bouncing inset.
    hs="0.00$((2 + i % 5))"; vs="0.00$((1 + i % 3))"
    sx=$((170 + 23 * i)); sy=$((110 + 17 * i))
    echo "# generating input $((i + 1)) (${patterns[$i]%%=*}, ${tone} Hz, ${seconds}s)" >&2
    ffmpeg -hide_banner -loglevel error -nostdin -y \
        -f lavfi -i "${patterns[$i]},format=yuv420p,scroll=h=${hs}:v=${vs}" \
        -f lavfi -i "testsrc2=s=320x180:r=30,hue=h=$((40 * i))" \
        -f lavfi -i "aevalsrc=0.1*sin(2*PI*${tone}*t)|0.1*sin(2*PI*${tone}*t):s=48000:c=stereo" \
        -filter_complex "[0:v][1:v]overlay=x='abs(mod(t*${sx},2*(W-w))-(W-w))':y='abs(mod(t*${sy},2*(H-h))-(H-h))',scale=out_color_matrix=bt709:out_range=tv,format=yuv420p[v]" \
        -map '[v]' -map 2:a -t "$seconds" \
        -c:v libx264 -preset veryfast -crf 23 -maxrate 6M -bufsize 12M -g 60 -pix_fmt yuv420p \
        -colorspace bt709 -color_primaries bt709 -color_trc bt709 -color_range tv \
        -c:a aac -b:a 128k -ar 48000 -ac 2 -movflags +faststart "$tmp"
    mv "$tmp" "$out"
}

# ---------------------------------------------------------------------------------------------
# 2. Layout: an n x n grid of equal tiles, even sizes, positions snapped down to even pixels.
# ---------------------------------------------------------------------------------------------
tile_w() { local w=$((width / $1)); echo $((w - w % 2)); }
tile_h() { local h=$((height / $1)); echo $((h - h % 2)); }

write_task() { # grid task.json output.mp4
    local n=$1 task=$2 output=$3 count=$(($1 * $1)) tw th i x y sep
    tw=$(tile_w "$n"); th=$(tile_h "$n")
    {
        echo "{"
        echo "  \"taskId\": \"bench-${n}x${n}\","
        echo "  \"inputs\": ["
        for ((i = 0; i < count; i++)); do
            sep=","; [ $i -eq $((count - 1)) ] && sep=""
            echo "    {\"id\": \"in$((i + 1))\", \"url\": \"$(basename "$(input_path "$i")")\"}$sep"
        done
        echo "  ],"
        echo "  \"encoder\": {"
        echo "    \"video\": {\"width\": $width, \"height\": $height, \"fps\": $fps, \"bitrateKbps\": $bitrate,"
        echo "              \"gopSeconds\": $gop_seconds, \"codec\": \"h264\", \"preset\": \"$preset\"},"
        echo "    \"audio\": {\"sampleRate\": 48000, \"channels\": 2, \"bitrateKbps\": $audio_kbps, \"codec\": \"aac\"}"
        echo "  },"
        echo "  \"layout\": {"
        echo "    \"backgroundColor\": \"#000000\","
        echo "    \"regions\": ["
        for ((i = 0; i < count; i++)); do
            x=$(((i % n) * tw)); y=$(((i / n) * th))
            sep=","; [ $i -eq $((count - 1)) ] && sep=""
            echo "      {\"input\": \"in$((i + 1))\", \"x\": $x, \"y\": $y, \"width\": $tw, \"height\": $th, \"renderMode\": \"stretch\"}$sep"
        done
        echo "    ]"
        echo "  },"
        echo "  \"outputs\": [{\"url\": \"$(basename "$output")\"}]"
        echo "}"
    } >"$task"
}

# ---------------------------------------------------------------------------------------------
# 3. x264 SEI: the encoder's own record of every option it ran with.
# ---------------------------------------------------------------------------------------------
sei_line() { strings -n 8 "$1" | grep -o 'x264 - core.*' | head -n 1; }

# One option per line, as the SEI prints them (name=value).
sei_options() { sei_line "$1" | sed -n 's/.*options: //p' | tr ' ' '\n' | sed '/^$/d'; }

# Translate the SEI's option list into -x264-params (':'-separated, so values use ',').
# Derived, informational entries are dropped: `rc` (follows from bitrate / VBV), `cqm=0` (flat,
# the default), `chroma_qp_offset` (the SEI shows the value after x264 adds its psy-rd
# adjustment; passing it back would apply the adjustment twice).
sei_to_x264_params() {
    local opt name value out=() a b c
    while IFS= read -r opt; do
        name="${opt%%=*}"; value="${opt#*=}"
        case "$name" in
            rc|chroma_qp_offset|cqm) ;;
            analyse)
                # intra:inter flags; x264-params can set the inter partitions (intra follows the preset).
                local inter=$((${value#*:})) parts=()
                ((inter & 0x0001)) && parts+=(i4x4)
                ((inter & 0x0002)) && parts+=(i8x8)
                ((inter & 0x0010)) && parts+=(p8x8)
                ((inter & 0x0020)) && parts+=(p4x4)
                ((inter & 0x0100)) && parts+=(b8x8)
                if [ ${#parts[@]} -eq 0 ]; then out+=("partitions=none")
                else out+=("partitions=$(IFS=,; echo "${parts[*]}")"); fi ;;
            deblock)
                IFS=: read -r a b c <<<"$value"
                if [ "$a" = 0 ]; then out+=("no-deblock=1"); else out+=("deblock=$b,$c"); fi ;;
            psy_rd) out+=("psy-rd=${value/:/,}") ;;
            deadzone) out+=("deadzone-inter=${value%%,*}" "deadzone-intra=${value#*,}") ;;
            decimate) out+=("dct-decimate=$value") ;;
            mixed_ref) out+=("mixed-refs=$value") ;;
            b_adapt) out+=("b-adapt=$value") ;;
            open_gop) out+=("open-gop=$value") ;;
            ip_ratio) out+=("ipratio=$value") ;;
            pb_ratio) out+=("pbratio=$value") ;;
            aq) out+=("aq-mode=${value%%:*}")
                [ "$value" != "${value#*:}" ] && out+=("aq-strength=${value#*:}") ;;
            direct)
                case "$value" in 0) value=none ;; 1) value=spatial ;; 2) value=temporal ;; 3) value=auto ;; esac
                out+=("direct=$value") ;;
            b_pyramid)
                case "$value" in 0) value=none ;; 1) value=strict ;; 2) value=normal ;; esac
                out+=("b-pyramid=$value") ;;
            zones|fgo|stitchable|opencl|crf_max) [ "$value" = 0 ] || out+=("${name//_/-}=$value") ;;
            *) out+=("${name//_/-}=$value") ;;
        esac
    done
    (IFS=:; echo "${out[*]}")
}

# ---------------------------------------------------------------------------------------------
# 4. The ffmpeg command line doing the same job.
# ---------------------------------------------------------------------------------------------
ffmpeg_cmd() { # grid x264params output.mp4 -> prints nothing, fills array FFMPEG_ARGS
    local n=$1 params=$2 output=$3 count=$(($1 * $1)) tw th i x y graph prev amix_in=""
    tw=$(tile_w "$n"); th=$(tile_h "$n")
    FFMPEG_ARGS=(ffmpeg -hide_banner -nostdin -nostats -loglevel warning -y)
    for ((i = 0; i < count; i++)); do FFMPEG_ARGS+=(-i "$(input_path "$i")"); done
    graph="color=c=black:s=${width}x${height}:r=${fps}:d=${seconds},format=yuv420p[bg]"
    prev="bg"
    for ((i = 0; i < count; i++)); do
        x=$(((i % n) * tw)); y=$(((i / n) * th))
        # Tessera halves a picture by 2x2 averaging (swscale's area filter, sample for sample)
        # and scales any other size with swscale's bilinear: the same filter on both sides.
        graph+=";[$i:v]scale=${tw}:${th}:flags=$( ((2 * tw == 1280 && 2 * th == 720)) && echo area || echo bilinear)[s$i]"
        graph+=";[$prev][s$i]overlay=x=${x}:y=${y}:format=yuv420[o$i]"
        prev="o$i"
        amix_in+="[$i:a]"
    done
    graph+=";${amix_in}amix=inputs=${count}:duration=longest:normalize=0[a]"
    FFMPEG_ARGS+=(-filter_complex "$graph" -map "[$prev]" -map "[a]"
        -c:v libx264 -preset "$preset"
        -b:v "${bitrate}k" -maxrate "${bitrate}k" -bufsize "$((bitrate * 2))k"
        -g "$gop" -keyint_min "$gop" -x264-params "$params"
        -pix_fmt yuv420p -colorspace bt709 -color_primaries bt709 -color_trc bt709 -color_range tv
        -c:a aac -b:a "${audio_kbps}k" -ar 48000 -ac 2
        -movflags frag_keyframe+empty_moov+default_base_moof -f mp4 "$output")
}

# Prints a command so that it can be pasted into a shell, one option per line.
shell_words() {
    local arg out=""
    for arg in "$@"; do
        if [[ "$arg" =~ ^[A-Za-z0-9_./:=+,@%-]+$ ]]; then :; else arg="'${arg//\'/\'\\\'\'}'"; fi
        if [[ "$arg" == -* && -n "$out" ]]; then out+=" \\"$'\n'"    $arg"; else out+="${out:+ }$arg"; fi
    done
    printf '%s\n' "$out"
}

# ---------------------------------------------------------------------------------------------
# Measuring and checking.
# ---------------------------------------------------------------------------------------------
# timed LABEL LOG -- command...   -> prints "elapsed user sys maxrss_kb"
timed() {
    local times="$2.time" status=0
    shift 3
    /usr/bin/time -f '%e %U %S %M' -o "$times" "$@" >"${times%.time}.log" 2>&1 || status=$?
    if [ $status -ne 0 ]; then
        echo "error: command failed (exit $status): $*" >&2
        tail -n 20 "${times%.time}.log" >&2
        exit 1
    fi
    tail -n 1 "$times"
}

check_output() { # file label -> prints frames, size, audio length; counts mismatches
    local f=$1 label=$2 v a
    v=$(ffprobe -v error -select_streams v:0 -count_packets \
        -show_entries stream=nb_read_packets,width,height -of csv=p=0 "$f")
    a=$(ffprobe -v error -select_streams a:0 -count_packets \
        -show_entries stream=nb_read_packets,sample_rate -of csv=p=0 "$f")
    local w h nf an sr
    IFS=, read -r w h nf <<<"$v"
    IFS=, read -r sr an <<<"$a"
    local audio_s
    audio_s=$(awk -v n="$an" -v r="$sr" 'BEGIN { printf "%.2f", n * 1024 / r }')
    local verdict=ok
    if [ "$nf" != "$frames" ] || [ "$w" != "$width" ] || [ "$h" != "$height" ]; then
        verdict="MISMATCH: expected $frames frames ${width}x${height}"
        mismatches=$((mismatches + 1))
    fi
    printf '    %-7s %s frames, %s, audio %s  %s\n' "$label" "$nf" "${w}x${h}" "$audio_s" "$verdict"
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

fmt_run() { # "elapsed user sys rss" -> human text
    awk '{ cpu = $2 + $3; printf "%6.2fs wall  %6.2fs cpu (user %.2f + sys %.2f)  %4.0f%% cpu  %5.0f MB rss", $1, cpu, $2, $3, ($1 > 0 ? 100 * cpu / $1 : 0), $4 / 1024 }' <<<"$1"
}

# ---------------------------------------------------------------------------------------------
# Run.
# ---------------------------------------------------------------------------------------------
echo "# tessera mix vs ffmpeg CLI — ${seconds}s inputs, ${width}x${height}@${fps}, ${preset}, ${bitrate} kb/s, repeat ${repeat}"
echo "# host: $(nproc) cores, $(ffmpeg -version | head -n 1 | cut -d' ' -f1-3), tessera binary built $(date -r "$tessera" '+%F %T') (repo HEAD $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?')), load $(load1)"

IFS=, read -r -a job_list <<<"$jobs"
max_inputs=0
for job in "${job_list[@]}"; do
    case "$job" in 2x2|3x3|[1-4]x[1-4]) ;; *) die "unknown job $job (use NxN, e.g. 2x2,3x3)" ;; esac
    n=${job%%x*}; [ "${job#*x}" = "$n" ] || die "job $job: only square grids"
    [ $((n * n)) -gt "$max_inputs" ] && max_inputs=$((n * n))
done
[ "$max_inputs" -le ${#patterns[@]} ] || die "at most ${#patterns[@]} inputs"
for ((i = 0; i < max_inputs; i++)); do make_input "$i"; done
[ "$generate_only" = 0 ] || { echo "# inputs ready in $media"; exit 0; }

summary=()
mismatches=0
for job in "${job_list[@]}"; do
    n=${job%%x*}
    dir="$runs/$job"
    mkdir -p "$dir"
    task="$dir/task.json"
    t_out="$dir/tessera-$job.mp4"
    f_out="$dir/ffmpeg-$job.mp4"
    write_task "$n" "$task" "$t_out"
    echo
    echo "== $job: $((n * n)) inputs into $(tile_w "$n")x$(tile_h "$n") tiles =="
    t_runs=(); f_runs=(); params=""
    for ((r = 1; r <= repeat; r++)); do
        wait_for_load
        load_before=$(load1)
        # Alternate the order so that drifting background load hurts both sides alike; the very
        # first run is Tessera's, since the ffmpeg command needs the options from its SEI.
        order="tessera ffmpeg"; [ $((r % 2)) -eq 0 ] && order="ffmpeg tessera"
        for who in $order; do
            if [ "$who" = tessera ]; then
                rm -f "$t_out"
                res=$(timed tessera "$dir/tessera.$r" -- "$tessera" mix "$task" \
                    --media-root "$media" --output-dir "$dir")
                t_runs+=("$res")
                echo "  run $r tessera: $(fmt_run "$res")  (load ${load_before})"
                if [ -z "$params" ]; then
                    sei_options "$t_out" >"$dir/tessera.sei"
                    [ -s "$dir/tessera.sei" ] || die "no x264 SEI in $t_out"
                    params=$(sei_to_x264_params <"$dir/tessera.sei")
                    ffmpeg_cmd "$n" "$params" "$f_out"
                    shell_words "${FFMPEG_ARGS[@]}" >"$dir/ffmpeg-command.sh"
                fi
            else
                rm -f "$f_out"
                res=$(timed ffmpeg "$dir/ffmpeg.$r" -- "${FFMPEG_ARGS[@]}")
                if grep -q "Error parsing option" "$dir/ffmpeg.$r.log"; then
                    grep "Error parsing option" "$dir/ffmpeg.$r.log" >&2
                    die "libx264 refused an option translated from Tessera's SEI"
                fi
                f_runs+=("$res")
                echo "  run $r ffmpeg:  $(fmt_run "$res")  (load ${load_before})"
            fi
        done
    done

    echo "  outputs (ffprobe):"
    check_output "$t_out" tessera
    check_output "$f_out" ffmpeg

    # Same pictures? Frame n against frame n (by index: ffmpeg's output times carry the inputs'
    # 21 ms AAC-priming shift, and pairing by time would compare neighbouring frames). The same
    # filter and the same x264 options make the same bitstream, so "identical" is the expected
    # answer; two encodes of one composite that differ somewhere still agree at about 30 dB, and a
    # much lower minimum points at a frame shown at the wrong time or a misplaced tile.
    psnr=$(ffmpeg -hide_banner -nostdin -i "$t_out" -i "$f_out" -lavfi \
        "[0:v]trim=end_frame=$frames,setpts=N/($fps*TB)[a];[1:v]trim=end_frame=$frames,setpts=N/($fps*TB)[b];[a][b]psnr=stats_file=$dir/psnr.log" \
        -f null - 2>&1 | grep -o 'average:[0-9.inf]* min:[0-9.inf]*' | tail -n 1 |
        awk -F'[: ]' '$2 == "inf" && $4 == "inf" { print "identical in every frame"; next }
                      { printf "average %.1f dB, worst frame %.1f dB", $2, $4 }' || true)
    echo "  picture PSNR tessera vs ffmpeg (first $frames frames): ${psnr:-?} (per frame: runs/$job/psnr.log)"

    sei_options "$f_out" >"$dir/ffmpeg.sei"
    echo "  x264 (tessera): $(sei_line "$t_out" | sed 's/ - H.264.*//')"
    echo "  x264-params for ffmpeg: $params"
    if diff_out=$(diff -u --label tessera --label ffmpeg "$dir/tessera.sei" "$dir/ffmpeg.sei"); then
        echo "  x264 SEI options: identical ($(wc -l <"$dir/tessera.sei") options) — both paid for the same encoder work"
    else
        echo "  x264 SEI options DIFFER (- tessera, + ffmpeg):"
        grep '^[-+][^-+]' <<<"$diff_out" | sed 's/^/    /'
    fi
    echo "  ffmpeg command: $dir/ffmpeg-command.sh"

    t_med=$(printf '%s\n' "${t_runs[@]}" | awk '{print $1}' | median)
    f_med=$(printf '%s\n' "${f_runs[@]}" | awk '{print $1}' | median)
    t_cpu=$(printf '%s\n' "${t_runs[@]}" | awk '{print $2 + $3}' | median)
    f_cpu=$(printf '%s\n' "${f_runs[@]}" | awk '{print $2 + $3}' | median)
    t_rss=$(printf '%s\n' "${t_runs[@]}" | awk '{print $4}' | median)
    f_rss=$(printf '%s\n' "${f_runs[@]}" | awk '{print $4}' | median)
    ratio=$(awk -v t="$t_med" -v f="$f_med" 'BEGIN { printf "%.2f", t / f }')
    # Each repeat's two runs are back to back, so their ratio cancels slow drifts in background load.
    pair_ratio=$(for ((r = 0; r < repeat; r++)); do
        awk -v t="${t_runs[$r]%% *}" -v f="${f_runs[$r]%% *}" 'BEGIN { print t / f }'; done | median)
    pair_ratio=$(awk -v r="$pair_ratio" 'BEGIN { printf "%.2f", r }')
    line=$(printf '%-4s tessera %6.2fs wall %6.2fs cpu %4.0f MB | ffmpeg %6.2fs wall %6.2fs cpu %4.0f MB | ratio %s (per-repeat median %s)' \
        "$job" "$t_med" "$t_cpu" "$(awk -v k="$t_rss" 'BEGIN{print k/1024}')" \
        "$f_med" "$f_cpu" "$(awk -v k="$f_rss" 'BEGIN{print k/1024}')" "$ratio" "$pair_ratio")
    [ "$job" = 2x2 ] && line+=$(awk -v r="$ratio" 'BEGIN { print (r <= 0.85 ? "  (target <= 0.85: met)" : "  (target <= 0.85: NOT met)") }')
    summary+=("$line")
done

echo
echo "== summary (median of $repeat; ratio = tessera wall / ffmpeg wall, lower is better; load now $(load1)) =="
printf '%s\n' "${summary[@]}"
if [ "$mismatches" -gt 0 ]; then
    echo "# WARNING: $mismatches output(s) not $frames frames of ${width}x${height} (see above); timings still printed"
fi
echo "# outputs, logs, task and ffmpeg command in $runs (overwritten by the next run)"
