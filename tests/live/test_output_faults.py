"""Network outputs that stall, refuse or die, and a disk that fills, against real parts: nginx-rtmp,
a TCP proxy (written here) that stops reading without closing, a tiny HTTP server that refuses
nginx-rtmp's `on_publish`, a port nothing listens on, and a 2 MiB tmpfs.

What a viewer and an operator see is checked: the status names each fault in plain words within
seconds, a stalled output reconnects on its own, a recording beside it keeps every frame, a task
whose outputs all gave up ends `failed` naming them (and says so by webhook), and the final
status has every input and output in a final state.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from livetools import FPS, free_port, read_packets, side_by_side, timestamp_problems, wait_stream, wait_until

pytestmark = pytest.mark.live

STALL_SECONDS = 4
GIVE_UP_SECONDS = 5
WEBHOOK_SECRET = "output-faults-secret"


@pytest.fixture(autouse=True)
def _webhook_secret(monkeypatch):
    """Before `tessera_server` starts, so the server inherits it (a callbackUrl needs a secret)."""
    monkeypatch.setenv("TESSERA_WEBHOOK_SECRET", WEBHOOK_SECRET)


# --------------------------------------------------------------------------------------------- #
# a TCP proxy that can stop reading (no FIN, no RST): the silent CDN
# --------------------------------------------------------------------------------------------- #
class WedgingProxy:
    """Forwards loopback TCP connections to `upstream_port`. `wedge()` makes every connection open
    at that moment stop reading from its client — the socket stays open, nothing is closed or
    reset — while connections made later are forwarded normally (the reconnect). The proxy's
    receive buffer is kept small, as a CDN's window would be, so the sender's kernel buffers fill
    in a moment rather than minutes."""

    def __init__(self, upstream_port: int):
        self.upstream_port = upstream_port
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32 * 1024)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self.lock = threading.Lock()
        self.connections: list[dict] = []   # {"at", "client", "upstream", "wedged", "bytes"}
        self.closing = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.closing:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.upstream_port), timeout=5)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            conn = {"at": time.monotonic(), "client": client, "upstream": upstream, "wedged": False, "bytes": 0}
            with self.lock:
                self.connections.append(conn)
            threading.Thread(target=self._client_to_upstream, args=(conn,), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client), daemon=True).start()

    def _client_to_upstream(self, conn):
        client, upstream = conn["client"], conn["upstream"]
        while not self.closing:
            if conn["wedged"]:
                time.sleep(0.05)          # holds the socket open and unread
                continue
            try:
                client.settimeout(0.1)
                data = client.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                break
            if not data:
                break
            conn["bytes"] += len(data)
            try:
                upstream.sendall(data)
            except OSError:
                break
        if not conn["wedged"]:
            self._close(conn)

    @staticmethod
    def _pump(src, dst):
        while True:
            try:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
            except OSError:
                break

    @staticmethod
    def _close(conn):
        for s in (conn["client"], conn["upstream"]):
            try:
                s.close()
            except OSError:
                pass

    def wedge(self) -> int:
        """Stops reading from every connection open now; returns how many there were. Their
        upstream side is closed, as a CDN's ingest that dropped the stream would be (nginx then
        lets the stream's name be published again), while the client's socket stays open, unread."""
        with self.lock:
            for c in self.connections:
                c["wedged"] = True
                try:
                    # shutdown, not just close: another thread is blocked reading it.
                    c["upstream"].shutdown(socket.SHUT_RDWR)
                    c["upstream"].close()
                except OSError:
                    pass
            return len(self.connections)

    def count(self) -> int:
        with self.lock:
            return len(self.connections)

    def close(self):
        self.closing = True
        self.listener.close()
        with self.lock:
            for c in self.connections:
                self._close(c)


# --------------------------------------------------------------------------------------------- #
# helpers
# --------------------------------------------------------------------------------------------- #
def video_frames(path: Path) -> tuple[int, float]:
    """(decoded video frames, the video stream's duration in seconds) of a file, by ffprobe."""
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames",
                          "-show_entries", "stream=nb_read_frames:format=duration", "-of", "json", str(path)],
                         capture_output=True, text=True, timeout=120)
    info = json.loads(out.stdout or "{}")
    frames = int(info["streams"][0]["nb_read_frames"])
    packets = [p for p in read_packets(path) if p.kind == "video"]
    span = (max(p.pts for p in packets) - min(p.pts for p in packets)) + 1 / FPS if packets else 0.0
    return frames, span


def decode_errors(path: Path) -> str:
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-f", "null", "-"],
                         capture_output=True, text=True, timeout=120)
    return out.stderr.strip()


def stop_task(api, task_id: str) -> dict:
    r = api.delete(f"/v1/tasks/{task_id}")
    assert r.status in (200, 202, 204), f"DELETE: {r.status} {r.body[:300]!r}"
    return api.wait_state(task_id, ("stopped", "failed"), 30)


def assert_final_states(status: dict):
    outputs = [(o["url"], o["state"]) for o in status["outputs"]]
    inputs = [(i["id"], i["state"]) for i in status["inputs"]]
    assert all(s in ("finished", "failed") for _, s in outputs), f"outputs not final after the task ended: {outputs}"
    assert all(s in ("ended", "failed") for _, s in inputs), f"inputs not final after the task ended: {inputs}"


class _BackgroundHTTPServer:
    """A ThreadingHTTPServer on a free loopback port, serving from a daemon thread until `close()`."""

    def _serve(self, handler) -> int:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self.server.server_address[1]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class HookReceiver(_BackgroundHTTPServer):
    """Records the JSON of every webhook POST."""

    def __init__(self):
        self.events: list[dict] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                try:
                    receiver.events.append(json.loads(body))
                except ValueError:
                    pass
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.url = f"http://127.0.0.1:{self._serve(Handler)}/hooks"


class Answering403(_BackgroundHTTPServer):
    """nginx-rtmp's `on_publish` target: every publish refused with 403."""

    def __init__(self):
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self.send_response(403)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.port = self._serve(Handler)


# --------------------------------------------------------------------------------------------- #
# (a) a destination that stops reading
# --------------------------------------------------------------------------------------------- #
# serial: at most 3 late frames while one output stalls, which a parallel test's load can cost it.
@pytest.mark.serial
@pytest.mark.serve_args("--output-stall-seconds", str(STALL_SECONDS))
def test_silent_destination_is_a_stall_and_reconnects_while_the_recording_keeps_every_frame(
        api, tessera_server, rtmp_server, clips):
    proxy = WedgingProxy(rtmp_server.port)
    try:
        rtmp = f"rtmp://127.0.0.1:{proxy.port}/live/wedged"
        api.create(side_by_side("wedge", clips.red, clips.blue, [rtmp, "faults/wedge.mp4"]))
        api.wait_outputs("wedge", "live", 20)
        wait_stream(rtmp_server.url("wedged"), 15)
        time.sleep(2)

        assert proxy.wedge() == 1, "one RTMP connection before the wedge"
        wedged_at = time.monotonic()
        seen: list[str] = []
        last = {}

        def stalled():
            nonlocal last
            last = api.status("wedge")
            out = last["outputs"][0]
            if not seen or seen[-1] != out["state"]:
                seen.append(out["state"])
            return "stall" in (out.get("lastError") or "")

        assert wait_until(stalled, STALL_SECONDS + 25, 0.1), \
            f"no stall named within {STALL_SECONDS + 25} s of the wedge: {last.get('outputs')} (states {seen})"
        detected = time.monotonic() - wedged_at
        out = last["outputs"][0]
        print(f"stall named {detected:.1f} s after the wedge: {out['lastError']!r}")
        assert last["outputs"][1]["state"] == "live", f"the recording beside it: {last['outputs'][1]}"

        def reconnected():
            nonlocal last
            last = api.status("wedge")
            return proxy.count() >= 2 and last["outputs"][0]["state"] == "live"

        assert wait_until(reconnected, 15, 0.1), \
            f"no new connection and live again within 15 s of the stall: {proxy.count()} connections, {last['outputs'][0]}"
        back = time.monotonic() - wedged_at - detected
        print(f"live again {back:.1f} s after the stall was named; reconnects {last['outputs'][0]['reconnects']}")
        assert last["outputs"][0]["reconnects"] >= 1, last["outputs"][0]
        assert last["state"] == "running", last
        wait_stream(rtmp_server.url("wedged"), 15)   # a viewer reads the CDN again
        time.sleep(2)

        final = stop_task(api, "wedge")
        assert final["state"] == "stopped", final
        assert_final_states(final)
        assert final["outputs"][1]["state"] == "finished", final["outputs"]
        late = final.get("lateFrames", 0)
        print(f"late frames over the run: {late}")
        assert late <= 3, f"{late} late frames: the stall held up the other outputs"

        path = tessera_server.out / "faults" / "wedge.mp4"
        frames, span = video_frames(path)
        expected = round(span * FPS)
        print(f"recording beside the stalled output: {frames} frames over {span:.2f} s ({expected} expected)")
        assert abs(frames - expected) <= 1, f"{frames} frames in {span:.2f} s at {FPS} fps: frames were lost"
        problems = timestamp_problems(read_packets(path), "video", 1.5 / FPS)
        assert not problems, f"gaps in the recording's video: {problems[:5]}"
        assert not decode_errors(path), decode_errors(path)[:500]
    finally:
        proxy.close()


# --------------------------------------------------------------------------------------------- #
# (b) a destination nobody listens at
# --------------------------------------------------------------------------------------------- #
@pytest.mark.serve_args("--output-give-up-seconds", str(GIVE_UP_SECONDS), "--max-tasks", "1")
def test_task_whose_only_output_is_dead_ends_failed_naming_it(api, tessera_server, clips):
    port = free_port()
    hooks = HookReceiver()
    try:
        url = f"rtmp://127.0.0.1:{port}/live/nobody"
        created_at = time.monotonic()
        api.create(side_by_side("dead", clips.red, clips.blue, [url], callbackUrl=hooks.url))
        final = api.wait_state("dead", ("failed", "stopped"), GIVE_UP_SECONDS + 20)
        took = time.monotonic() - created_at
        print(f"task failed {took:.1f} s after POST; reason {final.get('reason')!r}")
        assert final["state"] == "failed", final
        reason = final.get("reason") or ""
        assert f"127.0.0.1:{port}" in reason and "outputs[0]" in reason, reason
        assert "refused" in reason, reason
        out = final["outputs"][0]
        assert out["state"] == "failed", out
        assert out["reconnects"] > 0, out
        assert "refused" in (out.get("lastError") or ""), out
        assert_final_states(final)

        # The webhook of a task that failed: `task.state` with state `failed` and the reason.
        hook = wait_until(lambda: next((e for e in hooks.events if e.get("event") == "task.state"
                                        and (e.get("task") or {}).get("state") == "failed"), None), 10, 0.1)
        assert hook, f"no task.state failed webhook: {[e.get('event') for e in hooks.events]}"
        assert "outputs[0]" in (hook["task"].get("reason") or ""), hook
        print(f"webhook: {hook.get('event')} failed {(hook.get('task') or {}).get('reason')!r}")

        # Its capacity is free: with --max-tasks 1, another task is taken at once and goes live.
        r = api.post("/v1/tasks", side_by_side("after-dead", clips.red, clips.blue, ["faults/after.mp4"]))
        assert r.status == 201, f"POST after the failed task: {r.status} {r.body[:300]!r}"
        api.wait_outputs("after-dead", "live", 20)
        stop_task(api, "after-dead")
    finally:
        hooks.close()


@pytest.mark.serve_args("--output-give-up-seconds", str(GIVE_UP_SECONDS))
def test_relay_whose_only_output_is_dead_ends_failed_naming_it(api, tessera_server, clips):
    port = free_port()
    url = f"rtmp://127.0.0.1:{port}/live/nobody"
    api.create({"taskId": "dead-relay", "mode": "relay",
                "inputs": [{"id": "cam", "url": clips.red, "loop": True}], "outputs": [{"url": url}]})
    final = api.wait_state("dead-relay", ("failed", "stopped"), GIVE_UP_SECONDS + 20)
    assert final["state"] == "failed", final
    assert f"127.0.0.1:{port}" in (final.get("reason") or ""), final
    assert final["outputs"][0]["state"] == "failed" and final["outputs"][0]["reconnects"] > 0, final["outputs"]
    assert_final_states(final)


# --------------------------------------------------------------------------------------------- #
# (c) a publish the RTMP server refuses
# --------------------------------------------------------------------------------------------- #
def test_refused_rtmp_publish_never_reads_live_and_names_the_refusal(api, tessera_server, rtmp_server, clips):
    denier = Answering403()
    try:
        # Restart the test's nginx with an application whose on_publish answers 403.
        rtmp_server.stop()
        conf = rtmp_server.conf.read_text()
        deny_app = (f"        application deny {{\n            live on;\n            record off;\n"
                    f"            on_publish http://127.0.0.1:{denier.port}/publish;\n        }}\n")
        rtmp_server.conf.write_text(conf.replace("        application live {", deny_app + "        application live {", 1))
        rtmp_server.start()
        urls = [f"rtmp://127.0.0.1:{rtmp_server.port}/deny/key",
                f"rtmp://127.0.0.1:{rtmp_server.port}/nosuchapp/key"]
        api.create(side_by_side("refused", clips.red, clips.blue, urls + ["faults/refused.mp4"]))
        started = time.monotonic()
        states: list[set] = [set(), set()]
        named_at: list[float | None] = [None, None]
        last = {}
        while time.monotonic() - started < 8:
            last = api.status("refused")
            for i in (0, 1):
                out = last["outputs"][i]
                states[i].add(out["state"])
                if named_at[i] is None and "refused" in (out.get("lastError") or ""):
                    named_at[i] = time.monotonic() - started
            time.sleep(0.1)
        for i in (0, 1):
            assert "live" not in states[i], f"{urls[i]} read live though refused: states {states[i]}"
            assert named_at[i] is not None, f"{urls[i]}: no refusal named within 8 s: {last['outputs'][i]}"
            print(f"{urls[i]}: refusal named {named_at[i]:.1f} s after POST: {last['outputs'][i]['lastError']!r}")
        assert last["outputs"][2]["state"] == "live", last["outputs"][2]
        assert last["state"] == "running", last
        final = stop_task(api, "refused")
        assert_final_states(final)
        assert [o["state"] for o in final["outputs"]] == ["failed", "failed", "finished"], final["outputs"]
    finally:
        denier.close()


class HLSOrigin(_BackgroundHTTPServer):
    """An HTTP/1.1 origin taking HLS PUTs (chunked, after `Expect: 100-continue`), or, with
    `refuse`, answering every PUT's Expect with that status. Records (path, bytes) of each PUT."""

    def __init__(self, refuse: int | None = None):
        self.puts: list[tuple[str, int]] = []
        self.asked = 0
        origin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def handle_expect_100(self):
                origin.asked += 1
                if refuse is None:
                    return super().handle_expect_100()
                self.send_response(refuse)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return False

            def do_PUT(self):
                n = 0
                if self.headers.get("Transfer-Encoding") == "chunked":
                    while True:
                        size = int(self.rfile.readline().strip() or b"0", 16)
                        if size == 0:
                            self.rfile.readline()
                            break
                        n += len(self.rfile.read(size))
                        self.rfile.readline()
                else:
                    n = len(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                origin.puts.append((self.path, n))
                self.send_response(201)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.base = f"http://127.0.0.1:{self._serve(Handler)}"


def test_hls_origin_refusing_the_put_never_reads_live_and_names_the_refusal(api, tessera_server, clips):
    refusing, taking = HLSOrigin(refuse=403), HLSOrigin()
    try:
        urls = [f"{refusing.base}/live/no.m3u8", f"{taking.base}/live/yes.m3u8"]
        api.create(side_by_side("hls-put", clips.red, clips.blue, urls))
        started = time.monotonic()
        states: set = set()
        named_at = None
        last = {}
        while time.monotonic() - started < 8:
            last = api.status("hls-put")
            out = last["outputs"][0]
            states.add(out["state"])
            if named_at is None and "403" in (out.get("lastError") or ""):
                named_at = time.monotonic() - started
            time.sleep(0.1)
        assert "live" not in states, f"the refused HLS output read live: states {states}, {last['outputs'][0]}"
        assert named_at is not None, f"no 403 named within 8 s: {last['outputs'][0]}"
        print(f"HLS PUT refusal named {named_at:.1f} s after POST: {last['outputs'][0]['lastError']!r}")
        assert "refused" in last["outputs"][0]["lastError"], last["outputs"][0]
        assert refusing.asked >= 1 and not refusing.puts, (refusing.asked, refusing.puts)
        # The origin that takes them gets segments and playlists, and its output reads live.
        assert last["outputs"][1]["state"] == "live", last["outputs"][1]
        paths = [p for p, n in taking.puts if n > 0]
        assert any(p.endswith(".m3u8") for p in paths) and any(not p.endswith(".m3u8") for p in paths), taking.puts
        final = stop_task(api, "hls-put")
        assert_final_states(final)
        assert [o["state"] for o in final["outputs"]] == ["failed", "finished"], final["outputs"]
    finally:
        refusing.close()
        taking.close()


# --------------------------------------------------------------------------------------------- #
# (d) the disk fills under a recording
# --------------------------------------------------------------------------------------------- #
def test_full_disk_fails_the_recording_only(api, tessera_server, rtmp_server, clips):
    if os.geteuid() != 0:
        pytest.skip("mounting a 2 MiB tmpfs needs root (id -u is not 0)")
    mount = tessera_server.out / "small"
    mount.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.strip()}")
    try:
        rtmp = rtmp_server.url("diskfull")
        api.create(side_by_side("diskfull", clips.red, clips.blue, [rtmp, "small/rec.mp4"]))
        api.wait_outputs("diskfull", "live", 20)
        time.sleep(4)
        # Fill what is left of the disk under the running recording.
        free = shutil.disk_usage(mount).free
        with open(mount / "filler", "wb") as filler:
            try:
                filler.write(b"\0" * free)
            except OSError:
                pass   # full: just what we wanted
        started = time.monotonic()
        last = {}

        def recording_failed():
            nonlocal last
            last = api.status("diskfull")
            return last["outputs"][1]["state"] == "failed"

        assert wait_until(recording_failed, 60, 0.2), f"the recording did not fail as the disk filled: {last.get('outputs')}"
        print(f"recording failed {time.monotonic() - started:.1f} s after the disk filled: {last['outputs'][1].get('lastError')!r}")
        assert "No space left on device" in (last["outputs"][1].get("lastError") or ""), last["outputs"][1]
        assert last["outputs"][0]["state"] == "live", f"RTMP beside the full disk: {last['outputs'][0]}"
        assert last["state"] == "running", last
        before = api.status("diskfull")["outputs"][0]["bytes"]
        time.sleep(2)
        assert api.status("diskfull")["outputs"][0]["bytes"] > before, "RTMP stopped taking bytes"
        wait_stream(rtmp, 15)

        final = stop_task(api, "diskfull")
        assert_final_states(final)
        assert [o["state"] for o in final["outputs"]] == ["finished", "failed"], final["outputs"]
        path = mount / "rec.mp4"
        frames, span = video_frames(path)
        print(f"what the full disk kept: {frames} frames over {span:.2f} s, {path.stat().st_size} bytes")
        assert frames >= FPS * 3, f"only {frames} frames playable from the full disk"
    finally:
        # The worker has exited (the task stopped); a lazy unmount never blocks the test on a busy file.
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)
