"""Tools for the live-service tests: a private nginx-rtmp server, a `tessera serve` process with a
small JSON client, readers of live RTMP streams (decoded frames with their arrival times, plus a
copy of every packet for timestamp checks), and process helpers.

Everything here starts processes and stops them by their own PID (never by name).
"""
from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from helpers import TESSERA_BIN, Frame, split_yuv420
from ports import free_port  # noqa: F401 (the live tests import it from here)

RTMP_MODULE_CANDIDATES = ("/usr/lib/nginx/modules/ngx_rtmp_module.so",
                          "/usr/share/nginx/modules/ngx_rtmp_module.so")
RW_TIMEOUT_US = "5000000"


# --------------------------------------------------------------------------------------------- #
# ports, processes
# --------------------------------------------------------------------------------------------- #
def port_accepts(port: int, host: str = "127.0.0.1") -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.3):
            return True
    except OSError:
        return False


def wait_until(predicate, timeout: float, interval: float = 0.1, what: str = ""):
    """Polls predicate() until it returns something truthy; returns that, or None at the deadline."""
    deadline = time.monotonic() + timeout
    while True:
        v = predicate()
        if v:
            return v
        if time.monotonic() >= deadline:
            return None
        time.sleep(interval)


def child_pids(pid: int) -> set[int]:
    """Direct children of `pid`, from /proc/*/stat (field 4 is the parent PID)."""
    kids = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        # comm may contain spaces and parentheses: split after the last ')'.
        rest = stat[stat.rfind(")") + 2:].split()
        if len(rest) > 1 and int(rest[1]) == pid and rest[0] != "Z":
            kids.add(int(entry))
    return kids


def pid_alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2:].split()[0] != "Z"


def cmdline(pid: int) -> list[str]:
    try:
        return [a.decode(errors="replace") for a in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0") if a]
    except OSError:
        return []


def log_tail(path: Path, n: int = 4000) -> str:
    try:
        return Path(path).read_text(errors="replace")[-n:]
    except OSError:
        return "(no log)"


# --------------------------------------------------------------------------------------------- #
# nginx-rtmp
# --------------------------------------------------------------------------------------------- #
def rtmp_module_path() -> str | None:
    for p in RTMP_MODULE_CANDIDATES:
        if Path(p).exists():
            return p
    try:
        out = subprocess.run(["dpkg", "-L", "libnginx-mod-rtmp"], capture_output=True, text=True, timeout=10).stdout
        for line in out.splitlines():
            if line.endswith("ngx_rtmp_module.so") and Path(line).exists():
                return line
    except (OSError, subprocess.TimeoutExpired):
        pass
    return None


class RtmpServer:
    """Debian's nginx with libnginx-mod-rtmp on a free loopback port, from a config in its own
    directory. Application `live`: live on, record off, `wait_key on` (a player starts at a
    keyframe), `idle_streams off` (playing a stream nobody publishes fails at once, and players are
    dropped when the publisher leaves). `stop()` kills it; `start()` brings it back on the same port."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        module = rtmp_module_path()
        if module is None or shutil.which("nginx") is None:
            raise RuntimeError("nginx with libnginx-mod-rtmp is not installed (scripts/install.sh)")
        self.conf = self.root / "nginx.conf"
        self.error_log = self.root / "error.log"
        self.conf.write_text(f"""daemon off;
master_process off;
worker_processes 1;
pid {self.root}/nginx.pid;
error_log {self.error_log} info;
load_module {module};
events {{ worker_connections 512; }}
rtmp {{
    server {{
        listen 127.0.0.1:{self.port};
        chunk_size 4096;
        access_log off;   # the module's default, /var/log/nginx/access.log, needs root
        application live {{
            live on;
            record off;
            wait_key on;
            idle_streams off;
        }}
    }}
}}
""")

    def url(self, stream: str) -> str:
        return f"rtmp://127.0.0.1:{self.port}/live/{stream}"

    def start(self, timeout: float = 10.0) -> None:
        assert self.proc is None or self.proc.poll() is not None, "nginx is already running"
        self.proc = subprocess.Popen(["nginx", "-p", str(self.root), "-c", str(self.conf), "-e", str(self.error_log)],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=open(self.root / "stderr.log", "ab"))
        ok = wait_until(lambda: self.proc.poll() is not None or port_accepts(self.port), timeout, 0.05)
        if not ok or self.proc.poll() is not None:
            self.stop()
            raise RuntimeError(f"nginx did not listen on {self.port}:\n{log_tail(self.error_log)}\n"
                               f"{log_tail(self.root / 'stderr.log')}")

    def stop(self, sig: int = signal.SIGKILL) -> None:
        """Kills nginx by its own PID (SIGKILL by default: a crashed CDN) and waits for the port to close."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(sig)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        wait_until(lambda: not port_accepts(self.port), 5, 0.05)

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


# --------------------------------------------------------------------------------------------- #
# tessera serve
# --------------------------------------------------------------------------------------------- #
@dataclass
class Response:
    status: int
    body: bytes
    headers: dict

    @property
    def json(self):
        try:
            return json.loads(self.body.decode()) if self.body else None
        except (ValueError, UnicodeDecodeError):
            return None

    def __iter__(self):  # (status, json) unpacking
        yield self.status
        yield self.json


class Client:
    """A tiny JSON client over http.client (stdlib). Each call returns a Response, which also
    unpacks as (status, json)."""

    def __init__(self, host: str, port: int):
        self.host, self.port = host, port

    def request(self, method: str, path: str, body=None, headers=None, timeout: float = 30) -> Response:
        if body is not None and not isinstance(body, (bytes, bytearray, str)):
            body = json.dumps(body)
        if isinstance(body, str):
            body = body.encode()
        hdrs = {"Accept": "application/json"}
        if body is not None:
            hdrs["Content-Type"] = "application/json"
        hdrs.update(headers or {})
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            try:
                conn.request(method, path, body=body, headers=hdrs)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the server may answer (413) before reading the whole body
            r = conn.getresponse()
            data = r.read()
            return Response(r.status, data, {k.lower(): v for k, v in r.getheaders()})
        finally:
            conn.close()

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.request("POST", path, body, **kw)

    def patch(self, path, body=None, **kw):
        return self.request("PATCH", path, body, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)

    # -- task conveniences --------------------------------------------------------------------
    def create(self, doc: dict) -> dict:
        r = self.post("/v1/tasks", doc)
        assert r.status == 201, f"POST /v1/tasks: expected 201, got {r.status}: {r.body[:2000]!r}"
        st = r.json
        assert isinstance(st, dict) and st.get("taskId"), f"POST /v1/tasks: no status document: {r.body[:2000]!r}"
        if doc.get("taskId"):
            assert st["taskId"] == doc["taskId"], st
        return st

    def status(self, task_id: str) -> dict:
        r = self.get(f"/v1/tasks/{task_id}")
        assert r.status == 200, f"GET /v1/tasks/{task_id}: expected 200, got {r.status}: {r.body[:2000]!r}"
        return r.json

    def task_ids(self) -> list[str]:
        r = self.get("/v1/tasks")
        assert r.status == 200, f"GET /v1/tasks: {r.status} {r.body[:500]!r}"
        doc = r.json
        assert isinstance(doc, dict) and isinstance(doc.get("tasks"), list), f"GET /v1/tasks: {doc!r}"
        return [t.get("taskId") for t in doc["tasks"]]

    def wait_state(self, task_id: str, states, timeout: float) -> dict:
        """Polls until the task's state is one of `states`; returns the status (assertion on timeout)."""
        states = {states} if isinstance(states, str) else set(states)
        last = {}

        def check():
            nonlocal last
            r = self.get(f"/v1/tasks/{task_id}")
            if r.status == 200:
                last = r.json
                return last.get("state") in states
            last = {"http": r.status, "body": r.body[:500]}
            return False

        ok = wait_until(check, timeout, 0.1)
        assert ok, f"task {task_id} did not reach {sorted(states)} within {timeout} s; last status: {last}"
        return last

    def wait_outputs(self, task_id: str, state: str, timeout: float, indices=None) -> dict:
        last = {}

        def check():
            nonlocal last
            last = self.status(task_id)
            outs = last.get("outputs", [])
            sel = [outs[i] for i in indices] if indices is not None else outs
            return bool(sel) and all(o.get("state") == state for o in sel)

        ok = wait_until(check, timeout, 0.1)
        assert ok, f"task {task_id}: outputs {indices or 'all'} not {state!r} within {timeout} s: {last.get('outputs')}"
        return last


def raw_request(host: str, port: int, method: str, path: str, body: bytes, wait_early: float = 1.0,
                timeout: float = 30, headers: dict | None = None) -> Response:
    """A request over a raw socket the way curl sends a large body: headers with
    `Expect: 100-continue`, then up to `wait_early` s for an early answer (a 413 refused on the
    declared Content-Length), else the body. A server that answers and closes before reading the
    body is read correctly (http.client may lose such an answer to a connection reset)."""
    sock = socket.create_connection((host, port), timeout=timeout)
    try:
        extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        head = (f"{method} {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n{extra}"
                f"Content-Length: {len(body)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n").encode()
        sock.sendall(head)
        data = b""
        if wait_early > 0:
            sock.settimeout(wait_early)
            try:
                data = sock.recv(65536)
            except socket.timeout:
                pass
            sock.settimeout(timeout)
        if not data or data.startswith(b"HTTP/1.1 100"):
            data = b""
            try:
                sock.sendall(body)
            except (BrokenPipeError, ConnectionResetError):
                pass
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            data += chunk
            if b"\r\n\r\n" in data:
                hdr, _, rest = data.partition(b"\r\n\r\n")
                m = [ln.split(b":", 1)[1].strip() for ln in hdr.split(b"\r\n") if ln.lower().startswith(b"content-length:")]
                if m and len(rest) >= int(m[0]):
                    break
    finally:
        sock.close()
    if data.startswith(b"HTTP/1.1 100"):
        data = data.split(b"\r\n\r\n", 1)[1]
    assert data.startswith(b"HTTP/"), f"no HTTP answer to {method} {path} ({len(body)} bytes): {data[:200]!r}"
    hdr, _, rest = data.partition(b"\r\n\r\n")
    lines = hdr.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, v in (ln.split(":", 1) for ln in lines[1:] if ":" in ln)}
    return Response(status, rest, headers)


class TesseraServer:
    """`tessera serve` on a free loopback port; its log goes to `log`."""

    def __init__(self, root: Path, media_root: Path, extra_args=()):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.media_root = Path(media_root)
        self.out = self.root / "out"
        self.out.mkdir(exist_ok=True)
        self.port = free_port()
        self.log = self.root / "serve.log"
        self.extra_args = list(extra_args)
        self.proc: subprocess.Popen | None = None
        self.client = Client("127.0.0.1", self.port)
        self.returncode: int | None = None

    @property
    def pid(self) -> int:
        return self.proc.pid

    def start(self, timeout: float = 20.0) -> None:
        if not TESSERA_BIN.exists():
            raise AssertionError(f"tessera binary not found at {TESSERA_BIN} (build it, or set TESSERA_BIN)")
        cmd = [str(TESSERA_BIN), "serve", "--host", "127.0.0.1", "--port", str(self.port),
               "--media-root", str(self.media_root), "--output-dir", str(self.out), *self.extra_args]
        self.proc = subprocess.Popen(cmd, cwd=self.root, stdin=subprocess.DEVNULL,
                                     stdout=open(self.log, "ab"), stderr=subprocess.STDOUT)

        def healthy():
            if self.proc.poll() is not None:
                return True
            try:
                return self.client.get("/healthz", timeout=2).status == 200
            except OSError:
                return False

        ok = wait_until(healthy, timeout, 0.1)
        if self.proc.poll() is not None:
            raise AssertionError(f"`{' '.join(cmd)}` exited with {self.proc.returncode} before serving:\n"
                                 f"{log_tail(self.log)}")
        if not ok:
            self.proc.kill()
            self.proc.wait(10)
            raise AssertionError(f"`tessera serve` did not answer GET /healthz 200 within {timeout} s:\n"
                                 f"{log_tail(self.log)}")

    def terminate(self, timeout: float = 20.0) -> int:
        """SIGTERM, wait up to `timeout` s; returns the exit code (kills it, and raises, if it hangs)."""
        if self.proc is None:
            return 0
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
                raise AssertionError(f"`tessera serve` did not exit within {timeout} s of SIGTERM:\n"
                                     f"{log_tail(self.log)}")
        self.returncode = self.proc.returncode
        return self.returncode

    def kill(self) -> None:
        """SIGKILL the server, then its worker processes (by PID) so none outlive the test."""
        if self.proc is None:
            return
        kids = child_pids(self.proc.pid) if self.proc.poll() is None else set()
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        for k in kids:
            try:
                os.kill(k, signal.SIGKILL)
            except OSError:
                pass

    def workers(self) -> set[int]:
        return child_pids(self.proc.pid) if self.proc and self.proc.poll() is None else set()

    def crash(self) -> None:
        """SIGKILL the server and its workers at once (a crash, an OOM kill, a lost machine)."""
        workers = self.workers()
        os.kill(self.pid, signal.SIGKILL)
        for pid in workers:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        self.proc.wait(10)


# --------------------------------------------------------------------------------------------- #
# reading live streams
# --------------------------------------------------------------------------------------------- #
def probe_stream(url: str, timeout: float = 15) -> dict | None:
    """ffprobe's streams of a live RTMP stream, or None when it cannot be read."""
    cmd = ["ffprobe", "-v", "error", "-rw_timeout", RW_TIMEOUT_US, "-show_streams", "-of", "json", url]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if r.returncode != 0:
        return None
    try:
        info = json.loads(r.stdout)
    except ValueError:
        return None
    return info if info.get("streams") else None


def wait_stream(url: str, timeout: float = 15, need=("video",)) -> dict:
    """Polls ffprobe until the stream has the `need`ed kinds of stream; returns ffprobe's document."""
    last = None

    def ok():
        nonlocal last
        last = probe_stream(url)
        kinds = {s.get("codec_type") for s in (last or {}).get("streams", [])}
        return last if all(k in kinds for k in need) else None

    got = wait_until(ok, timeout, 0.3)
    assert got, f"{url}: no readable stream with {list(need)} within {timeout} s (last probe: {last})"
    return got


def stream_of(info: dict, kind: str) -> dict:
    s = [s for s in info["streams"] if s.get("codec_type") == kind]
    assert s, f"no {kind} stream in {[x.get('codec_type') for x in info['streams']]}"
    return s[0]


@dataclass
class Packet:
    kind: str          # "video" / "audio"
    pts: float | None
    dts: float | None
    key: bool
    size: int


def read_packets(path) -> list[Packet]:
    cmd = ["ffprobe", "-v", "error", "-show_entries", "packet=codec_type,pts_time,dts_time,flags,size",
           "-of", "json", str(path)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"ffprobe -show_packets {path}: {r.stderr}"

    def f(v):
        return float(v) if v not in (None, "N/A") else None

    return [Packet(p.get("codec_type", ""), f(p.get("pts_time")), f(p.get("dts_time")), "K" in p.get("flags", ""),
                   int(p.get("size", 0) or 0)) for p in json.loads(r.stdout).get("packets", [])]


def timestamp_problems(packets: list[Packet], kind: str, max_gap: float) -> list[str]:
    """Non-monotonic or gapped timestamps of one kind of packet, in arrival order."""
    ts = [p.dts if p.dts is not None else p.pts for p in packets if p.kind == kind]
    problems = []
    if len(ts) < 2:
        return [f"only {len(ts)} {kind} packets"]
    for i in range(1, len(ts)):
        if ts[i] is None or ts[i - 1] is None:
            problems.append(f"{kind} packet {i}: no timestamp")
            continue
        d = ts[i] - ts[i - 1]
        if d <= 0:
            problems.append(f"{kind} packet {i}: timestamp {ts[i]:.3f} not after {ts[i - 1]:.3f}")
        elif d > max_gap:
            problems.append(f"{kind} packet {i}: gap {d * 1000:.0f} ms ({ts[i - 1]:.3f} → {ts[i]:.3f})")
    return problems


class StreamReader:
    """ffmpeg reading a live RTMP stream for as long as it runs (or `duration` s): decoded video
    frames (yuv420p) arrive through a pipe and are kept with their wall-clock arrival time
    (time.monotonic()), and every packet is copied into `dump` (FLV) for timestamp checks and audio.
    `stop()` ends it cleanly (SIGINT, trailer written)."""

    def __init__(self, url: str, dump: Path, width: int, height: int, duration: float | None = None,
                 keep_every: int = 1):
        self.url, self.dump, self.width, self.height = url, Path(dump), width, height
        self.keep_every = keep_every
        self.frames: list[tuple[float, Frame]] = []
        self.frame_count = 0
        self.started = time.monotonic()
        self.lock = threading.Lock()
        cmd = ["ffmpeg", "-hide_banner", "-nostdin", "-y", "-loglevel", "error", "-rw_timeout", RW_TIMEOUT_US]
        if duration:
            cmd += ["-t", str(duration)]
        cmd += ["-i", url,
                "-map", "0:v:0", "-vsync", "passthrough", "-f", "rawvideo", "-pix_fmt", "yuv420p", "pipe:1",
                "-map", "0", "-c", "copy", "-f", "flv", str(self.dump)]
        self.stderr_path = self.dump.with_suffix(".stderr.log")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=open(self.stderr_path, "wb"))
        self.ended_at: float | None = None
        self.thread = threading.Thread(target=self._pump, daemon=True)
        self.thread.start()

    def _pump(self):
        size = self.width * self.height + 2 * ((self.width + 1) // 2) * ((self.height + 1) // 2)
        out = self.proc.stdout
        while True:
            buf = bytearray()
            while len(buf) < size:
                chunk = out.read(size - len(buf))
                if not chunk:
                    break
                buf += chunk
            if len(buf) < size:
                break
            now = time.monotonic()
            with self.lock:
                if self.frame_count % self.keep_every == 0:
                    self.frames.append((now, split_yuv420(bytes(buf), self.width, self.height)[0]))
                self.frame_count += 1
        self.proc.wait()
        self.ended_at = time.monotonic()

    def snapshot(self) -> list[tuple[float, Frame]]:
        with self.lock:
            return list(self.frames)

    def latest(self) -> tuple[float, Frame] | None:
        with self.lock:
            return self.frames[-1] if self.frames else None

    def wait_frames(self, n: int, timeout: float) -> bool:
        return bool(wait_until(lambda: self.frame_count >= n or self.ended_at is not None, timeout, 0.05)) \
            and self.frame_count >= n

    def running(self) -> bool:
        return self.ended_at is None

    def stop(self, timeout: float = 10) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.thread.join(timeout)
        return self.proc.returncode

    def stderr(self) -> str:
        return log_tail(self.stderr_path, 2000)


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"not a PNG (starts {data[:8]!r})"
    assert data[12:16] == b"IHDR", "PNG without IHDR first"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def decode_png_rgb(data: bytes, tmp: Path) -> np.ndarray:
    """H×W×3 uint8 R'G'B' of a PNG (decoded by ffmpeg, no colour conversion but to rgb24)."""
    w, h = png_size(data)
    p = Path(tmp)
    p.write_bytes(data)
    r = subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-i", str(p), "-frames:v", "1",
                        "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    assert len(r.stdout) == w * h * 3, f"decoded {len(r.stdout)} bytes for {w}x{h}"
    return np.frombuffer(r.stdout, dtype=np.uint8).reshape(h, w, 3)


# --------------------------------------------------------------------------------------------- #
# task documents and checks shared by the live tests
# --------------------------------------------------------------------------------------------- #
W, H, FPS = 320, 240, 30
LEFT_PT, RIGHT_PT = (80, 120), (240, 120)   # centres of the two halves of the canvas
TOL = 24                                    # R'G'B' levels, samples well inside uniform areas


def halves(left_input: str, right_input: str) -> dict:
    """A layout: `left_input` on the left half of the canvas, `right_input` on the right."""
    return {"backgroundColor": "#000000", "regions": [
        {"input": left_input, "x": 0, "y": 0, "width": W // 2, "height": H},
        {"input": right_input, "x": W // 2, "y": 0, "width": W // 2, "height": H},
    ]}


def side_by_side(task_id: str, red_clip: str, blue_clip: str, outputs, **extra) -> dict:
    """Inputs `red` (red picture, 440 Hz) and `blue` (blue, 1000 Hz), both looping, red on the left."""
    doc = {
        "taskId": task_id,
        "inputs": [{"id": "red", "url": red_clip, "loop": True}, {"id": "blue", "url": blue_clip, "loop": True}],
        "encoder": {"video": {"width": W, "height": H, "fps": FPS, "bitrateKbps": 800, "gopSeconds": 1,
                              "preset": "ultrafast"},
                    "audio": {"sampleRate": 48000, "channels": 2, "bitrateKbps": 128}},
        "layout": halves("red", "blue"),
        "outputs": [{"url": o} for o in outputs],
    }
    doc.update(extra)
    return doc


def colour_mismatch(frame: Frame, expected: list, tol: float = TOL) -> str | None:
    """None when every ((x, y), rgb) sample matches; else a description of the first mismatch."""
    for (x, y), rgb in expected:
        got = frame.rgb_at(x, y, 3)
        if float(np.max(np.abs(got - np.asarray(rgb, dtype=np.float64)))) > tol:
            return f"({x},{y}) expected {tuple(rgb)} ±{tol}, got {tuple(np.round(got, 1))}"
    return None


def rtmp_port_url_prefix(url: str) -> str:
    """rtmp://host:port/app/stream?query → rtmp://host:port/app/ (what a redacted URL keeps)."""
    return url.split("?")[0].rsplit("/", 1)[0] + "/"
