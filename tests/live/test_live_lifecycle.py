"""How live tasks end: DELETE, SIGTERM of the server with tasks running, maxDurationSeconds and
idleTimeoutSeconds."""
from __future__ import annotations

import time

import pytest

from helpers import count_video_frames, ffprobe
from livetools import (H, W, StreamReader, log_tail, pid_alive, probe_stream, side_by_side, stream_of, wait_stream,
                       wait_until)

pytestmark = pytest.mark.live


def test_delete_ends_the_stream(api, rtmp_server, clips, tmp_path):
    url = rtmp_server.url("bye")
    api.create(side_by_side("bye", clips.red, clips.blue, [url]))
    wait_stream(url, 15)
    reader = StreamReader(url, tmp_path / "bye.flv", W, H)
    try:
        assert reader.wait_frames(20, 15), f"no frames: {reader.stderr()}"
        r = api.delete("/v1/tasks/bye")
        done = time.monotonic()
        assert r.status == 200, f"DELETE: {r.status} {r.body[:1000]!r}"
        assert r.json["state"] == "stopped", f"DELETE returned state {r.json.get('state')!r}: {r.json}"
        assert r.json["taskId"] == "bye"
        ended = wait_until(lambda: not reader.running(), 4, 0.05)
        assert ended, "a player of the stream still receives it 4 s after DELETE returned"
        print(f"reader saw the end {reader.ended_at - done:.2f} s after DELETE returned")
    finally:
        reader.stop()
    assert probe_stream(url, timeout=10) is None, "the stream can still be read after DELETE"
    r = api.get("/v1/tasks/bye")
    assert r.status == 404 or (r.status == 200 and r.json["state"] == "stopped"), (r.status, r.json)
    r = api.patch("/v1/tasks/bye", {"layout": side_by_side("x", "a", "b", [])["layout"]})
    assert r.status in (404, 409), f"PATCH of a deleted task: {r.status} {r.body[:300]!r}"


def test_sigterm_with_running_tasks_exits_0_and_leaves_playable_files(tessera_server, rtmp_server, clips, tmp_path):
    api = tessera_server.client
    url = rtmp_server.url("term")
    api.create(side_by_side("term-a", clips.red, clips.blue, [url, "term-a.mp4"]))
    api.create(side_by_side("term-b", clips.blue, clips.red, [rtmp_server.url("term-b"), "sub/term-b.flv"]))
    api.wait_state("term-a", "running", 10)
    api.wait_state("term-b", "running", 10)
    wait_stream(url, 15)
    reader = StreamReader(url, tmp_path / "term.flv", W, H)
    try:
        assert reader.wait_frames(45, 15), f"no frames: {reader.stderr()}"   # ≥ 1.5 s of stream
        workers = tessera_server.workers()
        assert workers, "no worker processes under the server"
        t0 = time.monotonic()
        rc = tessera_server.terminate(20)
        took = time.monotonic() - t0
        assert rc == 0, f"`tessera serve` exited {rc} on SIGTERM:\n{log_tail(tessera_server.log)}"
        print(f"SIGTERM → exit in {took:.1f} s")
        assert wait_until(lambda: not reader.running(), 6), "the RTMP stream is still being received after exit"
    finally:
        reader.stop()
    left = [p for p in workers if pid_alive(p)]
    assert not left, f"worker processes outlived the server: {left}"
    for name in ("term-a.mp4", "sub/term-b.flv"):
        path = tessera_server.out / name
        assert path.exists(), f"{name} was not written (out/: {sorted(p.name for p in tessera_server.out.rglob('*'))})"
        info = ffprobe(path)
        dur = float(info["format"].get("duration", 0) or 0)
        assert dur > 1.0, f"{name}: duration {dur} s"
        v = stream_of(info, "video")
        assert v["codec_name"] == "h264" and (int(v["width"]), int(v["height"])) == (W, H), v
        assert stream_of(info, "audio")["codec_name"] == "aac"
        n = count_video_frames(path)
        assert n >= 30, f"{name}: {n} decodable frames"


def test_max_duration_stops_the_task(api, tessera_server, rtmp_server, clips):
    url = rtmp_server.url("short")
    t0 = time.monotonic()
    api.create(side_by_side("short", clips.red, clips.blue, [url], maxDurationSeconds=3))
    st = api.wait_state("short", ("stopped", "failed"), 6.5)
    took = time.monotonic() - t0
    assert st["state"] == "stopped", f"maxDurationSeconds ended the task as {st['state']!r}: {st}"
    assert took >= 2.5, f"a 3 s task stopped after {took:.1f} s"
    # Said in the status and, once, in the log (issue 30: it was in neither).
    assert st["reason"] == "reached maxDurationSeconds (3 s)", st
    assert wait_until(lambda: "reached maxDurationSeconds (3 s)" in tessera_server.log.read_text(), 5), \
        log_tail(tessera_server.log)
    assert probe_stream(url, timeout=8) is None, "the stream is still published after maxDurationSeconds"


def test_idle_timeout_stops_a_task_without_live_inputs(api, rtmp_server, media, clips):
    # A file that ends after 2 s (no loop), and a pull input nobody ever publishes.
    once = media.solid((255, 0, 0), size=(320, 240), fps=30, duration=2.0, tone=440)
    doc_a = side_by_side("idle-ended", once, once, [rtmp_server.url("idle-a")], idleTimeoutSeconds=2)
    doc_a["inputs"] = [{"id": "red", "url": once}, {"id": "blue", "url": clips.blue, "loop": False}]
    doc_b = side_by_side("idle-never", clips.red, clips.blue, [rtmp_server.url("idle-b")], idleTimeoutSeconds=2)
    doc_b["inputs"] = [{"id": "red", "url": rtmp_server.url("nobody-publishes")},
                       {"id": "blue", "url": rtmp_server.url("nobody-either")}]
    doc_c = side_by_side("idle-looping", clips.red, clips.blue, [rtmp_server.url("idle-c")], idleTimeoutSeconds=2)
    t0 = time.monotonic()
    for d in (doc_a, doc_b, doc_c):
        api.create(d)
    st_b = api.wait_state("idle-never", ("stopped", "failed"), 6)
    took_b = time.monotonic() - t0
    st_a = api.wait_state("idle-ended", ("stopped", "failed"), 8)
    took_a = time.monotonic() - t0
    assert st_b["state"] == "stopped", f"never-live task ended as {st_b['state']!r}: {st_b}"
    assert st_b["reason"] == "idle: no input was live for idleTimeoutSeconds (2 s)", st_b
    assert took_b >= 1.5, f"idleTimeoutSeconds 2 stopped a task after {took_b:.1f} s"
    assert st_a["state"] == "stopped", f"ended-inputs task ended as {st_a['state']!r}: {st_a}"
    assert 3.5 <= took_a <= 7.5, f"inputs of 2 s + idleTimeoutSeconds 2 stopped the task after {took_a:.1f} s"
    assert all(i["state"] == "ended" for i in st_a["inputs"]), st_a["inputs"]
    st_c = api.status("idle-looping")
    assert st_c["state"] == "running", f"a task with looping (live) inputs stopped as idle: {st_c}"
