#!/usr/bin/env bash
# Live capacity: how many 2x2 720p30 Tessera tasks run side by side in real time on this machine,
# the CPU one of them takes, and the same live mix through the ffmpeg command line (bench/README.md).
#
#   bench/live-capacity.sh [--max-k N] [--warmup S] [--window S] [--wait-load L] [--max-wait S]
#                          [--retries R] [--no-ffmpeg] [--tessera PATH] [--work DIR]
#
# Starts its own nginx-rtmp and `tessera serve` on free loopback ports, then for K = 1, 2, … runs K
# identical tasks (4 looping 720p30 files in 640x360 tiles, 1280x720 30 fps, 2500 kb/s, veryfast,
# one RTMP output each), warms up, and samples each task's late frames, fps and worker CPU over a
# window. K holds when every task has 0 late frames in the window and fps >= 29.5; it stops at the
# first K that does not hold. Then runs the same live mix as one ffmpeg command (-re, x264 options
# read from Tessera's own SEI) to the same nginx and measures its CPU and real-time speed.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"

max_k=6
warmup=5
window=20
wait_load=1.5
max_wait=900
retries=2
busy_other=0.25
run_ffmpeg=1
tessera="$repo/.build/release/tessera"
work="$here/.work"
seconds=10          # input length; the inputs loop
fps=30
width=1280
height=720
bitrate=2500
preset=veryfast
gop_seconds=2
audio_kbps=128
min_fps=29.5

usage() { sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
    case "$1" in
        --max-k) max_k="$2"; shift 2 ;;
        --warmup) warmup="$2"; shift 2 ;;
        --window) window="$2"; shift 2 ;;
        --wait-load) wait_load="$2"; shift 2 ;;
        --max-wait) max_wait="$2"; shift 2 ;;
        --retries) retries="$2"; shift 2 ;;
        --no-ffmpeg) run_ffmpeg=0; shift ;;
        --tessera) tessera="$2"; shift 2 ;;
        --work) work="$2"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
done

die() { echo "error: $*" >&2; exit 1; }
for v in max_k warmup window max_wait retries; do
    [[ "${!v}" =~ ^[0-9]+$ ]] || die "--${v//_/-} must be a non-negative integer"
done
[ "$max_k" -ge 1 ] && [ "$window" -ge 1 ] || die "--max-k and --window must be >= 1"
[ -x "$tessera" ] || die "no Tessera binary at $tessera (cd $repo && swift build -c release)"
for tool in ffmpeg ffprobe strings nginx python3 curl getconf; do
    command -v "$tool" >/dev/null || die "$tool not found"
done
rtmp_module=""
for p in /usr/lib/nginx/modules/ngx_rtmp_module.so /usr/share/nginx/modules/ngx_rtmp_module.so; do
    [ -f "$p" ] && { rtmp_module=$p; break; }
done
[ -n "$rtmp_module" ] || die "ngx_rtmp_module.so not found (apt-get install nginx libnginx-mod-rtmp)"

# The x264 SEI → -x264-params translation is the offline benchmark's; take it from there so that
# both benchmarks hand ffmpeg exactly the same options.
take_functions() { # file name... -> the definitions of those top-level functions
    awk -v names=" ${*:2} " '
        !inside && match($0, /^[a-z0-9_]+\(\) \{/) {
            name = substr($0, 1, index($0, "(") - 1)
            if (index(names, " " name " ")) { print; if ($0 !~ /\}$/) inside = 1; next }
        }
        inside { print; if ($0 ~ /^\}/) inside = 0 }' "$1"
}
eval "$(take_functions "$here/mix-vs-ffmpeg.sh" sei_line sei_options sei_to_x264_params shell_words)"
for f in sei_line sei_options sei_to_x264_params shell_words; do
    declare -F "$f" >/dev/null || die "could not take $f from bench/mix-vs-ffmpeg.sh"
done

clk_tck=$(getconf CLK_TCK)
media="$work/media"
run_dir="$work/live"
rm -rf "$run_dir"
mkdir -p "$media" "$run_dir/out" "$run_dir/nginx" "$run_dir/tasks"

load1() { awk '{print $1}' /proc/loadavg; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port_open() { python3 -c 'import socket, sys; s = socket.socket(); s.settimeout(0.3); sys.exit(0 if s.connect_ex(("127.0.0.1", int(sys.argv[1]))) == 0 else 1)' "$1"; }
# Cores the whole machine keeps busy over 5 s (/proc/stat; all but idle and iowait). Called while
# nothing of this script's runs, it is what everyone else is doing right now.
busy_now() {
    python3 - "$clk_tck" <<'PY'
import sys, time
def busy():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    return v[0] + v[1] + v[2] + v[5] + v[6] + v[7]
a, t0 = busy(), time.monotonic(); time.sleep(5); b, t1 = busy(), time.monotonic()
print(f"{(b - a) / int(sys.argv[1]) / (t1 - t0):.2f}")
PY
}

# ---------------------------------------------------------------------------------------------
# Cleanup: every process this script started, by its PID.
# ---------------------------------------------------------------------------------------------
nginx_pid=""; serve_pid=""; ffmpeg_pid=""
cleanup() {
    local pid
    for pid in "$ffmpeg_pid" "$serve_pid"; do
        [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "$ffmpeg_pid" "$serve_pid"; do
        [ -n "$pid" ] || continue
        for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
        kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
    done
    if [ -n "$nginx_pid" ] && kill -0 "$nginx_pid" 2>/dev/null; then
        kill -TERM "$nginx_pid" 2>/dev/null || true
        for _ in $(seq 1 20); do kill -0 "$nginx_pid" 2>/dev/null || break; sleep 0.25; done
        kill -0 "$nginx_pid" 2>/dev/null && kill -KILL "$nginx_pid" 2>/dev/null || true
    fi
    wait 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------------------------------------
# 1. Inputs: the offline benchmark's first four (testsrc2, mandelbrot, smptehdbars, gradients,
#    720p30 H.264 + AAC, BT.709), made by it and cached in bench/.work/media.
# ---------------------------------------------------------------------------------------------
"$here/mix-vs-ffmpeg.sh" --generate-only --jobs 2x2 --seconds "$seconds" --work "$work" >/dev/null
inputs=()
for i in 1 2 3 4; do
    f="$media/in$i-v2-${seconds}s.mp4"
    [ -s "$f" ] || die "input $f was not made (the offline benchmark's naming changed?)"
    inputs+=("$f")
done

# ---------------------------------------------------------------------------------------------
# 2. nginx-rtmp and tessera serve, each on a free loopback port.
# ---------------------------------------------------------------------------------------------
rtmp_port=$(free_port)
ngx="$run_dir/nginx"
cat >"$ngx/nginx.conf" <<EOF
load_module $rtmp_module;
daemon off;
master_process off;
worker_processes 1;
pid $ngx/nginx.pid;
error_log $ngx/error.log info;
events { worker_connections 512; }
rtmp {
    server {
        listen 127.0.0.1:$rtmp_port;
        chunk_size 4096;
        access_log off;
        application live {
            live on;
            record off;
        }
    }
}
EOF
nginx -p "$ngx" -c "$ngx/nginx.conf" -e "$ngx/error.log" </dev/null >/dev/null 2>"$ngx/stderr.log" &
nginx_pid=$!

api_port=$(free_port)
while [ "$api_port" = "$rtmp_port" ]; do api_port=$(free_port); done
"$tessera" serve --host 127.0.0.1 --port "$api_port" --media-root "$media" --output-dir "$run_dir/out" \
    --max-tasks $((max_k + 2)) --log-level notice </dev/null >"$run_dir/serve.log" 2>&1 &
serve_pid=$!
api="http://127.0.0.1:$api_port"

for _ in $(seq 1 100); do
    kill -0 "$nginx_pid" 2>/dev/null || { cat "$ngx/error.log" "$ngx/stderr.log" >&2; die "nginx exited"; }
    port_open "$rtmp_port" && break; sleep 0.1
done
port_open "$rtmp_port" || die "nginx does not listen on $rtmp_port"
for _ in $(seq 1 100); do
    kill -0 "$serve_pid" 2>/dev/null || { tail -n 20 "$run_dir/serve.log" >&2; die "tessera serve exited"; }
    curl -fsS "$api/healthz" >/dev/null 2>&1 && break; sleep 0.1
done
curl -fsS "$api/healthz" >/dev/null || die "tessera serve does not answer on $api_port"
rtmp_url() { echo "rtmp://127.0.0.1:$rtmp_port/live/$1"; }

# ---------------------------------------------------------------------------------------------
# 3. Tasks.
# ---------------------------------------------------------------------------------------------
write_task() { # id file output-url [extra-output]
    local id=$1 file=$2 url=$3 extra=${4:-} i tw=$((width / 2)) th=$((height / 2)) sep
    {
        echo "{"
        echo "  \"taskId\": \"$id\","
        echo "  \"pace\": \"realtime\","
        echo "  \"inputs\": ["
        for i in 0 1 2 3; do
            sep=","; [ $i -eq 3 ] && sep=""
            echo "    {\"id\": \"in$((i + 1))\", \"url\": \"$(basename "${inputs[$i]}")\", \"loop\": true}$sep"
        done
        echo "  ],"
        echo "  \"encoder\": {"
        echo "    \"video\": {\"width\": $width, \"height\": $height, \"fps\": $fps, \"bitrateKbps\": $bitrate,"
        echo "              \"gopSeconds\": $gop_seconds, \"codec\": \"h264\", \"preset\": \"$preset\"},"
        echo "    \"audio\": {\"sampleRate\": 48000, \"channels\": 2, \"bitrateKbps\": $audio_kbps, \"codec\": \"aac\"}"
        echo "  },"
        echo "  \"layout\": {\"backgroundColor\": \"#000000\", \"regions\": ["
        for i in 0 1 2 3; do
            sep=","; [ $i -eq 3 ] && sep=""
            echo "    {\"input\": \"in$((i + 1))\", \"x\": $(((i % 2) * tw)), \"y\": $(((i / 2) * th)), \"width\": $tw, \"height\": $th, \"renderMode\": \"stretch\"}$sep"
        done
        echo "  ]},"
        if [ -n "$extra" ]; then
            echo "  \"outputs\": [{\"url\": \"$url\"}, {\"url\": \"$extra\"}]"
        else
            echo "  \"outputs\": [{\"url\": \"$url\"}]"
        fi
        echo "}"
    } >"$file"
}

start_task() { # file
    local code
    code=$(curl -sS -o "$1.response" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
        --data-binary @"$1" "$api/v1/tasks")
    [ "$code" = 201 ] || { cat "$1.response" >&2; echo >&2; die "POST /v1/tasks answered $code for $1"; }
}

stop_task() { curl -sS -o /dev/null -X DELETE "$api/v1/tasks/$1" || true; }

# Python does the timing-sensitive part: wait until the tasks run and their outputs are live, warm
# up, then read status + /proc of every worker at the start and end of the window.
# Prints one line per task: id pid late_delta frames_delta wall fps_measured fps_status cpu_s
# output_state bytes_delta state, then a line "serve <cpu_s>" for the serve process itself.
sample_tasks() { # warmup window id...
    python3 - "$api" "$clk_tck" "$serve_pid" "$nginx_pid" "$@" <<'PY'
import json, sys, time, urllib.request

api, tck, serve_pid, nginx_pid = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
warmup, window = float(sys.argv[5]), float(sys.argv[6])
ids = sys.argv[7:]

def machine_busy():
    """Busy clock ticks of the whole machine, all CPUs (/proc/stat: all but idle and iowait)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    return v[0] + v[1] + v[2] + v[5] + v[6] + v[7]

def status(tid):
    with urllib.request.urlopen(f"{api}/v1/tasks/{tid}", timeout=5) as r:
        return json.load(r)

def ticks(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(") ", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return None

deadline = time.monotonic() + 30
while True:
    sts = {t: status(t) for t in ids}
    ready = all(s.get("state") == "running" and s.get("workerPid") and
                all(o.get("state") == "live" for o in s.get("outputs", [])) for s in sts.values())
    if ready or time.monotonic() > deadline:
        break
    time.sleep(0.25)
if not ready:
    for t, s in sts.items():
        print(f"# {t} not ready after 30 s: state {s.get('state')}, outputs "
              f"{[o.get('state') for o in s.get('outputs', [])]}, {s.get('reason', '')}", file=sys.stderr)
time.sleep(warmup)

def snap():
    out = {}
    for t in ids:
        s = status(t)
        pid = s.get("workerPid")
        out[t] = (time.monotonic(), s, pid, ticks(pid) if pid else None)
    return out

serve0, nginx0, busy0, w0 = ticks(serve_pid), ticks(nginx_pid), machine_busy(), time.monotonic()
a = snap()
time.sleep(window)
b = snap()
serve1, nginx1, busy1, w1 = ticks(serve_pid), ticks(nginx_pid), machine_busy(), time.monotonic()
ours = ((serve1 or 0) - (serve0 or 0)) + ((nginx1 or 0) - (nginx0 or 0))

for t in ids:
    t0, s0, p0, c0 = a[t]
    t1, s1, p1, c1 = b[t]
    wall = t1 - t0
    late = (s1.get("lateFrames") or 0) - (s0.get("lateFrames") or 0)
    frames = (s1.get("frames") or 0) - (s0.get("frames") or 0)
    cpu = (c1 - c0) / tck if (p0 == p1 and c0 is not None and c1 is not None) else float("nan")
    outs = s1.get("outputs", [])
    ostate = ",".join(o.get("state", "?") for o in outs) or "-"
    obytes = sum(o.get("bytes", 0) for o in outs) - sum(o.get("bytes", 0) for o in s0.get("outputs", []))
    pid = p1 if p0 == p1 else f"{p0}->{p1}"
    print(t, pid, late, frames, f"{wall:.3f}", f"{frames / wall:.3f}", s1.get("fps", "nan"), f"{cpu:.3f}",
          ostate, obytes, s1.get("state", "?"))
    if c0 is not None and c1 is not None and p0 == p1:
        ours += c1 - c0
# CPU the rest of the machine used meanwhile (other people's builds and tests), in cores.
print("serve", f"{((serve1 or 0) - (serve0 or 0)) / tck:.3f}", f"{max(0.0, (busy1 - busy0 - ours) / tck / (w1 - w0)):.2f}")
PY
}

# Waits (up to 15 s) until the workers of deleted tasks have gone.
wait_pids_gone() {
    local pid
    for _ in $(seq 1 60); do
        local alive=0
        for pid in "$@"; do [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null && alive=1; done
        [ $alive = 0 ] && return 0
        sleep 0.25
    done
    echo "# warning: worker(s) still alive 15 s after DELETE: $*" >&2
}

# ---------------------------------------------------------------------------------------------
# 4. Tessera's x264 options, from the SEI of a live task (an RTMP output as in the measurement,
#    plus an FLV file beside it that keeps the first frame and so the SEI).
# ---------------------------------------------------------------------------------------------
echo "# live capacity — 2x2 ${width}x${height}@${fps}, ${preset}, ${bitrate} kb/s, one RTMP output per task; warm-up ${warmup}s, window ${window}s"
echo "# host: $(nproc) cores, $(ffmpeg -version | head -n 1 | cut -d' ' -f1-3), nginx $(nginx -v 2>&1 | sed 's/.*nginx\///'), tessera binary built $(date -r "$tessera" '+%F %T') (repo HEAD $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo "# nginx-rtmp on 127.0.0.1:$rtmp_port (pid $nginx_pid), tessera serve on 127.0.0.1:$api_port (pid $serve_pid); work dir $run_dir"

write_task sei-probe "$run_dir/tasks/sei-probe.json" "$(rtmp_url sei-probe)" sei-probe.flv
start_task "$run_dir/tasks/sei-probe.json"
sleep 3
stop_task sei-probe
sei_options "$run_dir/out/sei-probe.flv" >"$run_dir/tessera.sei" || true
[ -s "$run_dir/tessera.sei" ] || die "no x264 SEI in $run_dir/out/sei-probe.flv"
x264_params=$(sei_to_x264_params <"$run_dir/tessera.sei")
echo "# tessera live x264: $(sei_line "$run_dir/out/sei-probe.flv" | sed 's/ - H.264.*//')"

# ---------------------------------------------------------------------------------------------
# 5. Wait for a quiet machine.
# ---------------------------------------------------------------------------------------------
# Polls every 15 s until the 1-minute load average is below --wait-load and, since that average
# trails by a minute, the machine is also busy with less than 0.5 cores over the last 5 s; at most
# --max-wait seconds in all (over the whole run). Prints what it saw.
waited_total=0
wait_for_quiet() {
    local waited=0 busy
    while :; do
        busy=$(busy_now)
        awk -v l="$(load1)" -v m="$wait_load" -v b="$busy" 'BEGIN { exit !(l < m && b < 0.5) }' && break
        if [ "$waited_total" -ge "$max_wait" ]; then
            echo "# load average still $(load1), others busy $busy cores (waited ${waited_total}s in all); measuring anyway, figures less reliable"
            break
        fi
        echo "# load average $(load1) (< $wait_load?), busy $busy cores (< 0.5?), waiting… (${waited}s)" >&2
        sleep 10
        waited=$((waited + 15)); waited_total=$((waited_total + 15))
    done
    echo "# 1-min load before measuring: $(load1), busy ${busy} cores over 5 s (waited ${waited}s; load averages $(cut -d' ' -f1-3 /proc/loadavg))"
}
echo "# uptime: $(uptime)"
wait_for_quiet
load_start=$(load1)

# ---------------------------------------------------------------------------------------------
# 6. K = 1, 2, … tasks side by side.
# ---------------------------------------------------------------------------------------------
max_held=0
k1_cpu=""
table=()
retries_left=$retries
k=1; attempt=1
while [ "$k" -le "$max_k" ]; do
    ids=()
    for ((t = 1; t <= k; t++)); do
        id="cap-k$k-t$t"; [ "$attempt" -gt 1 ] && id+="-a$attempt"
        write_task "$id" "$run_dir/tasks/$id.json" "$(rtmp_url "$id")"
        start_task "$run_dir/tasks/$id.json"
        ids+=("$id")
    done
    load_before=$(load1)
    result=$(sample_tasks "$warmup" "$window" "${ids[@]}")
    echo "$result" >"$run_dir/k$k-a$attempt.txt"
    pids=()
    for id in "${ids[@]}"; do
        pids+=("$(curl -fsS "$api/v1/tasks/$id" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin).get("workerPid") or "")' || true)")
        stop_task "$id"
    done
    wait_pids_gone "${pids[@]}"

    held=1
    echo
    echo "== K=$k$([ "$attempt" -gt 1 ] && echo " (attempt $attempt)") (load before $load_before) =="
    printf '  %-12s %8s %6s %7s %8s %8s %7s %-6s %8s\n' task pid late fps status-fps cpu-s cores output kbit/s
    while read -r id pid late frames wall mfps sfps cpu ostate obytes state; do
        [ "$id" = serve ] && { serve_cpu=$pid; other_cores=$late; continue; }
        cores=$(awk -v c="$cpu" -v w="$wall" 'BEGIN { printf "%.3f", c / w }')
        kbps=$(awk -v b="$obytes" -v w="$wall" 'BEGIN { printf "%.0f", b * 8 / w / 1000 }')
        printf '  %-12s %8s %6s %7.2f %8s %8s %7s %-6s %8s\n' "$id" "$pid" "$late" "$mfps" "$sfps" "$cpu" "$cores" "$ostate" "$kbps"
        if [ "$late" != 0 ] || awk -v f="$mfps" -v m="$min_fps" 'BEGIN { exit !(f < m) }' \
            || [ "$state" != running ] || [ "$ostate" != live ] || [[ ! "$pid" =~ ^[0-9]+$ ]]; then
            held=0
        fi
    done <<<"$result"
    summary=$(awk '$1 != "serve" { late += $3; cores += $8 / $5; if (n++ == 0 || $6 < minf) minf = $6 }
                   END { printf "%d %.2f %.3f %.3f", late, minf, cores, cores / n }' <<<"$result")
    read -r late_sum min_fps_k cores_sum cores_per <<<"$summary"
    verdict=$([ $held = 1 ] && echo held || echo "did NOT hold")
    echo "  K=$k $verdict: late frames $late_sum, lowest fps $min_fps_k, workers $cores_sum cores ($cores_per per task), tessera serve ${serve_cpu}s cpu; other processes on the machine ${other_cores} cores"
    table+=("$(printf '%3d  %-12s %6s %8s %10s %10s %7s %9s' "$k" "$verdict" "$late_sum" "$min_fps_k" "$cores_per" "$cores_sum" "$other_cores" "$load_before")")
    # The CPU figure of K=1 is kept from the attempt that held (the least disturbed one).
    { [ "$k" = 1 ] && { [ -z "$k1_cpu" ] || [ $held = 1 ]; }; } && k1_cpu=$cores_per
    if [ $held = 1 ]; then
        max_held=$k; k=$((k + 1)); attempt=1
    elif [ "$retries_left" -gt 0 ] && awk -v o="$other_cores" -v m="$busy_other" 'BEGIN { exit !(o > m) }'; then
        echo "  other processes took ${other_cores} cores (> $busy_other) during the window: K=$k again once the machine is quiet"
        retries_left=$((retries_left - 1)); attempt=$((attempt + 1))
        sleep 5
        wait_for_quiet
        continue
    else
        break
    fi
    sleep 2
done

# ---------------------------------------------------------------------------------------------
# 7. The same live mix through the ffmpeg command line.
# ---------------------------------------------------------------------------------------------
f_cores=""; f_speed=""; f_rt=""; f_wfps=""
if [ "$run_ffmpeg" = 1 ]; then
    tw=$((width / 2)); th=$((height / 2))
    graph="color=c=black:s=${width}x${height}:r=${fps},format=yuv420p[bg]"
    prev=bg; amix_in=""
    F=(ffmpeg -hide_banner -nostdin -loglevel warning -stats -y)
    for i in 0 1 2 3; do
        F+=(-re -stream_loop -1 -i "${inputs[$i]}")
        # Inputs are 1280x720 and tiles half of the canvas: Tessera halves them by 2x2 averaging,
        # which is swscale's area filter sample for sample.
        graph+=";[$i:v]scale=${tw}:${th}:flags=area[s$i]"
        graph+=";[$prev][s$i]overlay=x=$(((i % 2) * tw)):y=$(((i / 2) * th)):format=yuv420[o$i]"
        prev="o$i"; amix_in+="[$i:a]"
    done
    graph+=";${amix_in}amix=inputs=4:duration=longest:normalize=0[a]"
    F+=(-filter_complex "$graph" -map "[$prev]" -map "[a]"
        -c:v libx264 -preset "$preset"
        -b:v "${bitrate}k" -maxrate "${bitrate}k" -bufsize "$((bitrate * 2))k"
        -g $((gop_seconds * fps)) -keyint_min $((gop_seconds * fps)) -x264-params "$x264_params"
        -pix_fmt yuv420p -colorspace bt709 -color_primaries bt709 -color_trc bt709 -color_range tv
        -c:a aac -b:a "${audio_kbps}k" -ar 48000 -ac 2
        -f flv "$(rtmp_url ffmpeg)")
    shell_words "${F[@]}" >"$run_dir/ffmpeg-command.sh"
    total=$((warmup + window + 1))
    f_attempt=1
    while :; do
    sleep 2
    wait_for_quiet
    f_load=$(load1)
    # The saved command runs until stopped; here it ends by itself after warm-up + window.
    "${F[@]:0:${#F[@]}-1}" -t "$total" -progress "$run_dir/ffmpeg.progress" "${F[@]: -1}" 2>"$run_dir/ffmpeg.log" &
    ffmpeg_pid=$!
    # The window starts and ends at a fresh -progress block (ffmpeg writes one every 0.5 s), so
    # frames and output time are paired with the wall clock and the CPU ticks read at that moment.
    window_out=$(python3 - "$run_dir/ffmpeg.progress" "$ffmpeg_pid" "$clk_tck" "$warmup" "$window" "$nginx_pid" <<'PY'
import sys, time
path, pid, tck, warmup, window = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
nginx_pid = sys.argv[6]

def machine_busy():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    return v[0] + v[1] + v[2] + v[5] + v[6] + v[7]

def blocks():
    try:
        text = open(path).read()
    except OSError:
        return 0, {}
    n = text.count("progress=continue")
    last = {}
    # the last complete block: everything before the last "progress=" marker
    body = text.rsplit("progress=", 1)[0].rsplit("progress=", 1)[-1]
    for line in body.splitlines():
        if "=" in line:
            k, v = line.split("=", 1)
            last[k.strip()] = v.strip()
    return n, last

def ticks(p=pid):
    try:
        f = open(f"/proc/{p}/stat").read().rsplit(") ", 1)[1].split()
        return int(f[11]) + int(f[12])
    except (OSError, IndexError, ValueError):
        return None

def at_next_block():
    n0, _ = blocks()
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        n, last = blocks()
        if n > n0:
            return (time.monotonic(), ticks(), int(last.get("frame", 0)), int(last.get("out_time_us", 0)),
                    machine_busy(), ticks(nginx_pid) or 0)
        time.sleep(0.02)
    return None

time.sleep(warmup)
a = at_next_block()
time.sleep(max(0.0, window - 0.25))
b = at_next_block()
if not a or not b or a[1] is None or b[1] is None:
    print("nan nan nan nan nan")
else:
    wall = b[0] - a[0]
    other = max(0.0, (b[4] - a[4] - (b[1] - a[1]) - (b[5] - a[5])) / tck / wall)
    print(f"{(b[1] - a[1]) / tck / wall:.3f} {(b[2] - a[2]) / wall:.2f} {(b[3] - a[3]) / 1e6 / wall:.3f} {wall:.2f} {other:.2f}")
PY
)
    wait "$ffmpeg_pid" || echo "# ffmpeg exited with $? (see $run_dir/ffmpeg.log)"
    ffmpeg_pid=""
    grep -q "Error parsing option" "$run_dir/ffmpeg.log" && die "libx264 refused an option translated from Tessera's SEI"
    read -r f_cores f_wfps f_wspeed f_wall f_other <<<"$window_out"
    [ "$f_cores" != nan ] || die "could not sample ffmpeg over the window (see $run_dir/ffmpeg.log)"
    # speed= as ffmpeg prints it is cumulative from its start: the encoder's fixed delay (lookahead
    # + frame threads, ~0.4 s) keeps it just under 1 on a short run even at full real time. The
    # window's own speed (output time / wall time between two progress blocks) has no such offset.
    f_speed=$(awk -F= '$1 == "speed" && $2 ~ /[0-9]/ { s = $2 } END { sub(/ *x$/, "", s); gsub(/ /, "", s); print s }' "$run_dir/ffmpeg.progress")
    f_drops=$(awk -F= '$1 == "drop_frames" { d = $2 } END { print d + 0 }' "$run_dir/ffmpeg.progress")
    f_rt=$(awk -v s="$f_wspeed" -v f="$f_wfps" -v m="$min_fps" 'BEGIN { print (s >= 0.99 && f >= m ? "yes" : "NO") }')
    echo
    echo "== ffmpeg CLI, same live mix to $(rtmp_url ffmpeg)$([ "$f_attempt" -gt 1 ] && echo " (attempt $f_attempt)") (load before $f_load) =="
    echo "  command: $run_dir/ffmpeg-command.sh"
    echo "  window ${f_wall}s: $f_cores cores, $f_wfps fps, speed ${f_wspeed}x (kept real time: $f_rt); speed= at exit ${f_speed:-?}x (cumulative from start), dropped frames $f_drops; other processes on the machine ${f_other} cores"
    awk -v s="$f_wspeed" 'BEGIN { exit !(s > 1.01) }' && echo "  (window speed above 1: it was behind at the window's start and caught up)"
    if [ "$f_rt" = yes ] || [ "$f_attempt" -gt "$retries" ] || awk -v o="$f_other" -v m="$busy_other" 'BEGIN { exit !(o <= m) }'; then
        break
    fi
    echo "  other processes took ${f_other} cores (> $busy_other) during the window: ffmpeg again once the machine is quiet"
    f_attempt=$((f_attempt + 1))
    done
fi

# ---------------------------------------------------------------------------------------------
# 8. Summary.
# ---------------------------------------------------------------------------------------------
echo
echo "== summary (load before measuring $load_start, now $(load1); $(nproc) cores) =="
printf '%3s  %-12s %6s %8s %10s %10s %7s %9s\n' K verdict late min-fps cores/task cores-all others load
printf '%s\n' "${table[@]}"
echo
if [ "$max_held" -eq "$max_k" ]; then
    echo "max K that held: $max_held (the cap, --max-k $max_k; try a larger cap)"
else
    echo "max K that held: $max_held"
fi
echo "tessera, one 2x2 720p30 live task (K=1): ${k1_cpu:-?} cores (worker process)"
if [ -n "$f_cores" ]; then
    echo "ffmpeg CLI, same live mix:              $f_cores cores (window speed ${f_wspeed}x, ${f_wfps} fps, real time: $f_rt)"
    echo "ratio tessera / ffmpeg CPU:             $(awk -v t="${k1_cpu:-0}" -v f="$f_cores" 'BEGIN { printf "%.2f", (f > 0 ? t / f : 0) }')"
fi
echo "# per-step samples, task documents, serve and nginx logs in $run_dir (overwritten by the next run)"
