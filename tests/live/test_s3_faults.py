"""An object store that fails under a recording (issue 30, "no recording lost"): moto's S3 server
behind a small HTTP proxy written here, which for 20 s answers 500 InternalError and 503 SlowDown
(S3's XML error bodies) and resets connections — some before the request reaches the store, some
after the store took it, so only the answer is lost — then forwards normally. Tessera retries with
back-off: afterwards every segment the final HLS playlist names is in the bucket, the HLS and the
multipart recording play to the task's length without a decoding error, and no upload reads
`failed`. (LiveKit Egress lost every later HLS segment after one failed upload: its issue #1284.)

And the other side: a store that refuses (AccessDenied, a bucket deleted under a running task)
is named in the output's `lastError` at once, and the output never reads `live` or `uploaded`
after it."""
from __future__ import annotations

import http.client
import http.server
import socket
import struct
import subprocess
import threading
import time
from pathlib import Path

import pytest

boto3 = pytest.importorskip("boto3")

from helpers import ffprobe  # noqa: E402
from livetools import log_tail, wait_until  # noqa: E402
from test_s3_output import Moto, open_parts, recording, servers, start_server  # noqa: E402,F401 (servers: a fixture)

pytestmark = pytest.mark.live

FAULT_SECONDS = 20.0


def s3_error(code: str, message: str) -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{code}</Code><Message>{message}</Message>'
            f"<RequestId>TESSERA{int(time.time() * 1000)}</RequestId></Error>").encode()


class FaultProxy:
    """An HTTP proxy in front of the store. `mode`: None forwards; "faults" answers, in turn,
    500 InternalError, 503 SlowDown, a reset before forwarding and (PUTs only) a reset after the
    store took the request; "deny" answers 403 AccessDenied. `lose_completion_answer`: the next
    CompleteMultipartUpload is forwarded and its answer replaced by a reset, and the one sent again
    is answered NoSuchUpload, as S3 answers for an upload that is complete. `seen` counts what was
    done, by kind."""

    def __init__(self, target_port: int):
        self.target = target_port
        self.lock = threading.Lock()
        self.mode: str | None = None
        self.lose_completion_answer = False
        self.completion_gone = False
        self.turn = 0
        self.seen: dict[str, int] = {}
        self.log: list[tuple[float, str, str, str]] = []
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def handle_one(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                action = proxy._decide(self.command, self.path)
                if action == "500":
                    return self._answer(500, s3_error("InternalError", "We encountered an internal error. Please try again."))
                if action == "503":
                    return self._answer(503, s3_error("SlowDown", "Please reduce your request rate."))
                if action == "403":
                    return self._answer(403, s3_error("AccessDenied", "Access Denied"))
                if action == "404-upload":
                    return self._answer(404, s3_error("NoSuchUpload", "The specified upload does not exist. The upload ID "
                                                      "may be invalid, or the upload may have been aborted or completed."))
                if action == "reset":
                    return self._reset()
                status, headers, answer = proxy._forward(self.command, self.path, self.headers, body)
                if action == "landed-reset":
                    return self._reset()
                self.send_response(status)
                for name, value in headers:
                    if name.lower() not in ("transfer-encoding", "connection", "content-length", "server", "date"):
                        self.send_header(name, value)
                length = dict((n.lower(), v) for n, v in headers).get("content-length", str(len(answer)))
                self.send_header("Content-Length", length if self.command == "HEAD" else str(len(answer)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(answer)

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = handle_one

            def _answer(self, status: int, body: bytes):
                self.send_response(status)
                self.send_header("Content-Type", "application/xml")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _reset(self):
                # SO_LINGER 0: close() sends a RST, as a load balancer dropping the connection does.
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.close_connection = True
                try:
                    self.connection.close()
                except OSError:
                    pass

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request, client_address):
                pass  # a reset connection: nothing to report

        self.server = Server(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def _decide(self, method: str, path: str) -> str:
        with self.lock:
            if self.lose_completion_answer and method == "POST" and "uploadId=" in path:
                self.lose_completion_answer, self.completion_gone = False, True
                action = "landed-reset"
            elif self.completion_gone and method == "POST" and "uploadId=" in path:
                self.completion_gone = False
                action = "404-upload"
            elif self.mode == "deny":
                action = "403"
            elif self.mode == "faults":
                kinds = ["500", "503", "reset"] + (["landed-reset"] if method == "PUT" else [])
                action = kinds[self.turn % len(kinds)]
                self.turn += 1
            else:
                action = "forward"
            self.seen[action] = self.seen.get(action, 0) + 1
            self.log.append((time.monotonic(), action, method, path))
            return action

    def _forward(self, method, path, headers, body):
        upstream = http.client.HTTPConnection("127.0.0.1", self.target, timeout=30)
        try:
            upstream.request(method, path, body=body if body or method in ("PUT", "POST") else None,
                             headers={n: v for n, v in headers.items() if n.lower() not in ("connection", "keep-alive")})
            response = upstream.getresponse()
            return response.status, response.getheaders(), response.read()
        finally:
            upstream.close()

    def set_mode(self, mode: str | None):
        with self.lock:
            self.mode = mode

    def count(self, *kinds: str) -> int:
        with self.lock:
            return sum(self.seen.get(k, 0) for k in kinds)

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def store(tmp_path):
    moto = Moto(tmp_path)
    proxy = FaultProxy(moto.port)
    try:
        moto.client().create_bucket(Bucket="rec")
        yield moto, proxy
    finally:
        proxy.stop()
        moto.stop()


@pytest.fixture(scope="module")
def noise(media):
    """A picture no encoder can shrink: 8 Mbit/s of it fill a 5 MiB part every ~5 s."""
    return media.video("nullsrc=s=320x180:r=30:d=2,geq=random(1)*255:128:128", stem="faultnoise",
                       audio="sine=frequency=440:sample_rate=48000:duration=2")


def get_text(s3, key: str) -> str:
    try:
        return s3.get_object(Bucket="rec", Key=key)["Body"].read().decode()
    except s3.exceptions.NoSuchKey:
        return ""


def playlist_names(playlist: str) -> list[str]:
    """The media segments and init segments (`#EXT-X-MAP`) a playlist names."""
    names = []
    for line in playlist.splitlines():
        if line.startswith("#EXT-X-MAP:") and 'URI="' in line:
            names.append(line.split('URI="')[1].split('"')[0])
        elif line and not line.startswith("#"):
            names.append(line)
    return list(dict.fromkeys(names))


def decode_errors(path: Path) -> str:
    """What `ffmpeg -v error` says decoding the whole file (empty: clean)."""
    run = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", str(path), "-f", "null", "-"],
                         capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr
    return run.stderr.strip()


def outputs_of(api, task_id: str) -> list[dict]:
    return api.status(task_id)["outputs"]


def test_a_store_failing_for_20_s_loses_no_segment_and_no_second(tmp_path, media, monkeypatch, store, noise, servers):
    moto, proxy = store
    srv = start_server(servers, tmp_path, media, monkeypatch, proxy.url)
    api, s3 = srv.client, moto.client()
    doc = recording("faulty-store", noise, [{"url": "s3://rec/faults/rec.mp4"},
                                             {"url": "s3://rec/faults/show.m3u8", "hls": {"segmentSeconds": 1}}])
    doc["encoder"]["video"].update(bitrateKbps=8000)
    api.create(doc)
    started = time.monotonic()
    # Going up before the fault: a part of the recording, segments of the HLS.
    assert wait_until(lambda: open_parts(s3, "rec", "faults/rec.mp4") and get_text(s3, "faults/show.m3u8").count("#EXTINF") >= 2,
                      25), f"{outputs_of(api, 'faulty-store')}\n{log_tail(srv.log)}"

    proxy.set_mode("faults")
    fault_started = time.monotonic()
    retrying_seen, reconnecting_seen, states = set(), set(), set()
    while time.monotonic() - fault_started < FAULT_SECONDS:
        st = api.status("faulty-store")
        assert st["state"] == "running", st
        for index, output in enumerate(st["outputs"]):
            states.add(output["state"])
            upload = (output.get("uploads") or [{}])[-1]
            assert upload.get("state") == "uploading", (index, output)
            if "retrying" in (output.get("lastError") or "") and "retrying" in (upload.get("reason") or ""):
                retrying_seen.add(index)
            if output["state"] == "reconnecting":
                reconnecting_seen.add(index)
        time.sleep(0.5)
    during = outputs_of(api, "faulty-store")
    backlog = [(o.get("uploads") or [{}])[-1].get("waitingBytes", 0) for o in during]
    proxy.set_mode(None)
    faults = {k: proxy.count(k) for k in ("500", "503", "reset", "landed-reset")}
    assert all(faults.values()), faults
    assert retrying_seen == {0, 1}, f"the retries were not named in lastError: {during}"
    # Not `live` while the store takes nothing: `reconnecting`, and told in the log.
    assert reconnecting_seen == {0, 1}, f"an output read live while its store failed: {during}"
    assert "failed" not in states, states

    # Caught up once the store answers again: the spool drains, HLS names new segments.
    assert wait_until(lambda: all((o["uploads"][-1]["waitingBytes"] < 6 * 1024 * 1024) for o in outputs_of(api, "faulty-store")),
                      25), outputs_of(api, "faulty-store")
    caught_up = time.monotonic() - fault_started - FAULT_SECONDS
    assert wait_until(lambda: all(o["state"] == "live" for o in outputs_of(api, "faulty-store")), 15), \
        outputs_of(api, "faulty-store")
    time.sleep(5)
    # The completion's answer is lost once (the store took it) and the one sent again is answered
    # NoSuchUpload: the upload must still read uploaded (the object is checked).
    with proxy.lock:
        proxy.lose_completion_answer = True
    assert api.delete("/v1/tasks/faulty-store").status == 200
    elapsed = time.monotonic() - started
    final = wait_until(lambda: (st := api.status("faulty-store"))["state"] in ("stopped", "failed") and st, 30)
    assert final and final["state"] == "stopped", final or api.status("faulty-store")
    for output in final["outputs"]:
        upload = output["uploads"][-1]
        assert output["state"] != "failed" and upload["state"] == "uploaded" and upload["waitingBytes"] == 0, output
    assert proxy.count("landed-reset") > faults["landed-reset"] and proxy.count("404-upload") == 1, proxy.seen

    # The bucket: every file the final playlist names, and the playlist is final.
    playlist = get_text(s3, "faults/show.m3u8")
    assert "#EXT-X-ENDLIST" in playlist, playlist
    keys = {o["Key"] for page in s3.get_paginator("list_objects_v2").paginate(Bucket="rec", Prefix="faults/")
            for o in page.get("Contents", [])}
    named = playlist_names(playlist)
    missing = [n for n in named if f"faults/{n}" not in keys]
    assert not missing, f"named by the playlist, not in the bucket: {missing}"
    local = tmp_path / "hls"
    local.mkdir()
    for name in ["show.m3u8", *named]:
        s3.download_file("rec", f"faults/{name}", str(local / name))
    listed = sum(float(line.split(":")[1].split(",")[0]) for line in playlist.splitlines() if line.startswith("#EXTINF:"))
    hls_duration = float(ffprobe(local / "show.m3u8")["format"]["duration"])
    assert elapsed - 4 <= hls_duration <= elapsed + 1, f"HLS {hls_duration:.2f} s of a {elapsed:.1f} s task"
    assert hls_duration == pytest.approx(listed, abs=0.5)
    hls_errors = decode_errors(local / "show.m3u8")
    assert not hls_errors, hls_errors

    # The multipart recording: complete (no upload left open), plays to its length, decodes clean.
    assert not open_parts(s3, "rec", "faults/rec.mp4"), "the multipart upload was left open"
    mp4 = tmp_path / "rec.mp4"
    s3.download_file("rec", "faults/rec.mp4", str(mp4))
    mp4_duration = float(ffprobe(mp4)["format"]["duration"])
    assert elapsed - 4 <= mp4_duration <= elapsed + 1, f"recording {mp4_duration:.2f} s of a {elapsed:.1f} s task"
    mp4_errors = decode_errors(mp4)
    assert not mp4_errors, mp4_errors
    parts = final["outputs"][0]["uploads"][-1]["parts"]
    print(f"\nS3 faults for {FAULT_SECONDS:.0f} s: {faults} answered; backlog at the end of the fault {backlog} bytes, "
          f"caught up {caught_up:.1f} s after; task {elapsed:.1f} s; HLS {len(named) - 1} segments named, all in the "
          f"bucket ({len(keys)} keys), {hls_duration:.2f} s; multipart {parts} parts, {mp4_duration:.2f} s; "
          f"requests forwarded {proxy.count('forward')}")


def refused_at_once(api, task_id: str, index: int, code: str, since: float, seconds: float = 6) -> float:
    """Seconds until output `index` reads `failed` naming `code`; then it must stay so."""
    def refused():
        output = outputs_of(api, task_id)[index]
        return output["state"] == "failed" and code in (output.get("lastError") or "") and output
    output = wait_until(refused, seconds, 0.1)
    took = time.monotonic() - since
    assert output, outputs_of(api, task_id)
    assert output["uploads"][-1]["state"] == "failed" and code in output["uploads"][-1]["reason"], output
    for _ in range(6):
        time.sleep(0.5)
        st = api.status(task_id)
        if st["state"] not in ("running", "starting"):
            break
        again = st["outputs"][index]
        assert again["state"] == "failed" and again["uploads"][-1]["state"] == "failed", again
    return took


def test_a_store_that_refuses_is_named_at_once(tmp_path, media, monkeypatch, store, clips, servers):
    moto, proxy = store
    s3 = moto.client()
    s3.create_bucket(Bucket="doomed")
    srv = start_server(servers, tmp_path, media, monkeypatch, proxy.url)
    api = srv.client

    def hls_task(task_id: str, url: str) -> dict:
        doc = recording(task_id, clips.red, [{"url": url, "hls": {"segmentSeconds": 1}}])
        doc["encoder"]["video"].update(width=320, height=240, bitrateKbps=600)
        doc["layout"]["regions"][0].update(width=320, height=240)
        return doc

    # Access denied under a running task (a policy changed): the next PUT is refused.
    api.create(hls_task("denied", "s3://rec/denied/show.m3u8"))
    assert wait_until(lambda: get_text(s3, "denied/show.m3u8").count("#EXTINF") >= 2, 20), outputs_of(api, "denied")
    assert outputs_of(api, "denied")[0]["state"] == "live"
    proxy.set_mode("deny")
    denied_after = refused_at_once(api, "denied", 0, "AccessDenied", time.monotonic())
    # Its only output failed: the task ends failed, naming it, instead of encoding for nobody.
    ended = wait_until(lambda: (st := api.status("denied"))["state"] == "failed" and st, 10)
    assert ended and "AccessDenied" in ended["reason"] and "outputs[0]" in ended["reason"], api.status("denied")
    proxy.set_mode(None)

    # The bucket deleted under a running task (objects first, as S3 demands).
    api.create(hls_task("orphan", "s3://doomed/live/show.m3u8"))
    assert wait_until(lambda: s3.list_objects_v2(Bucket="doomed").get("KeyCount", 0) >= 3, 20), outputs_of(api, "orphan")

    def delete_bucket():
        for o in s3.list_objects_v2(Bucket="doomed").get("Contents", []):
            s3.delete_object(Bucket="doomed", Key=o["Key"])
        try:
            s3.delete_bucket(Bucket="doomed")
            return True
        except s3.exceptions.ClientError:
            return False  # a segment went up meanwhile
    assert wait_until(delete_bucket, 10, 0.05)
    deleted = time.monotonic()
    orphan_after = refused_at_once(api, "orphan", 0, "NoSuchBucket", deleted)
    for task_id in ("denied", "orphan"):
        api.delete(f"/v1/tasks/{task_id}")
    for task_id in ("denied", "orphan"):
        final = wait_until(lambda: (st := api.status(task_id))["state"] in ("stopped", "failed") and st, 20)
        assert final, api.status(task_id)
        assert final["outputs"][0]["state"] == "failed" and final["outputs"][0]["uploads"][-1]["state"] == "failed", final
    print(f"\nrefusals named: AccessDenied {denied_after:.2f} s after the store began refusing, "
          f"NoSuchBucket {orphan_after:.2f} s after the bucket was deleted")


def test_a_store_that_comes_back_just_after_the_task_stops_gets_the_rest(tmp_path, media, monkeypatch, store, clips, servers):
    """Faults from the start of the recording until 3 s after the DELETE: by then the uploads are
    deep in their back-off (8 s between tries), but a finishing worker retries every second, so
    the rest goes up within its finish window and nothing is lost."""
    moto, proxy = store
    srv = start_server(servers, tmp_path, media, monkeypatch, proxy.url)
    api, s3 = srv.client, moto.client()
    doc = recording("late-store", clips.red, [{"url": "s3://rec/late/rec.mp4"},
                                              {"url": "s3://rec/late/show.m3u8", "hls": {"segmentSeconds": 1}}])
    doc["encoder"]["video"].update(width=320, height=240, bitrateKbps=600)
    doc["layout"]["regions"][0].update(width=320, height=240)
    api.create(doc)
    started = time.monotonic()
    assert wait_until(lambda: get_text(s3, "late/show.m3u8").count("#EXTINF") >= 2, 20), outputs_of(api, "late-store")
    proxy.set_mode("faults")
    time.sleep(17)
    # The DELETE answers once the worker has ended: the store comes back 3 s after it is sent.
    threading.Timer(3.0, proxy.set_mode, [None]).start()
    stop_sent = time.monotonic()
    elapsed = stop_sent - started
    assert api.delete("/v1/tasks/late-store").status == 200
    stop_took = time.monotonic() - stop_sent
    final = wait_until(lambda: (st := api.status("late-store"))["state"] in ("stopped", "failed") and st, 30)
    assert final and final["state"] == "stopped", final or api.status("late-store")
    for output in final["outputs"]:
        upload = output["uploads"][-1]
        assert upload["state"] == "uploaded" and upload["waitingBytes"] == 0, \
            (output, [(round(t - started, 1), a, m, p[:70]) for t, a, m, p in proxy.log[-40:]])
    playlist = get_text(s3, "late/show.m3u8")
    assert "#EXT-X-ENDLIST" in playlist, playlist
    keys = {o["Key"] for o in s3.list_objects_v2(Bucket="rec", Prefix="late/").get("Contents", [])}
    named = playlist_names(playlist)
    assert not [n for n in named if f"late/{n}" not in keys], (named, keys)
    local = tmp_path / "late"
    local.mkdir()
    for name in ["show.m3u8", *named]:
        s3.download_file("rec", f"late/{name}", str(local / name))
    hls_duration = float(ffprobe(local / "show.m3u8")["format"]["duration"])
    mp4 = tmp_path / "late.mp4"
    s3.download_file("rec", "late/rec.mp4", str(mp4))
    mp4_duration = float(ffprobe(mp4)["format"]["duration"])
    for what, duration in (("HLS", hls_duration), ("recording", mp4_duration)):
        assert elapsed - 4 <= duration <= elapsed + 1, f"{what} {duration:.2f} s of a {elapsed:.1f} s task"
    assert not decode_errors(local / "show.m3u8") and not decode_errors(mp4)
    print(f"\nstore back 3 s after the stop was asked: the DELETE answered after {stop_took:.1f} s; "
          f"HLS {len(named) - 1} segments, {hls_duration:.2f} s; recording {mp4_duration:.2f} s of a {elapsed:.1f} s task; "
          f"faults answered {proxy.count('500', '503', 'reset', 'landed-reset')}")
