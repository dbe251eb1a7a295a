"""Durable tasks on one node (SPEC §2, §6): the embedded task store in --state-dir. `kill -9` of
the server and its workers, then a restart on the same state dir, resumes every running task with
its id, document, sequence and outputs; deleted tasks stay stopped; no recording is overwritten
by a restart (worker crash or server restart) — each continues in a new file beside the first,
each playable on its own."""
from __future__ import annotations

import os
import signal
import time

import pytest

from helpers import ffprobe
from livetools import (LEFT_PT, RIGHT_PT, TOL, H, W, StreamReader, TesseraServer, colour_mismatch, log_tail,
                       side_by_side, wait_stream, wait_until)
from helpers import BLUE, RED

pytestmark = pytest.mark.live

ORIGINAL = [(LEFT_PT, RED), (RIGHT_PT, BLUE)]


def _playable_seconds(path) -> float:
    """Duration of the video stream as ffprobe reads it, counting its packets (fragmented MP4)."""
    info = ffprobe(path, "-count_packets", "-select_streams", "v:0")
    stream = info["streams"][0]
    return int(stream["nb_read_packets"]) / 30.0



def test_kill9_and_restart_resumes_tasks_and_keeps_recordings(tmp_path, media, clips, rtmp_server):
    state = tmp_path / "state"
    first = TesseraServer(tmp_path / "serve", media.root, ["--state-dir", str(state)])
    first.start()
    api = first.client
    url = rtmp_server.url("durable")
    try:
        api.create(side_by_side("durable", clips.red, clips.blue, [url, "rec/durable.mp4"]))
        api.create(side_by_side("deleted", clips.red, clips.blue, ["rec/deleted.mp4"]))
        api.wait_state("durable", "running", 15)
        r = api.patch("/v1/tasks/durable", {"sequence": 3, "layout": side_by_side("x", "a", "b", [])["layout"]})
        assert r.status == 200, r.body
        assert api.delete("/v1/tasks/deleted").status == 200
        wait_stream(url, 15)
        time.sleep(4)   # a few fragments into rec/durable.mp4
        before = api.status("durable")
        first.crash()
    finally:
        first.kill()

    second = TesseraServer(tmp_path / "serve", media.root, ["--state-dir", str(state)])
    second.port = first.port
    second.client = first.client
    second.start()
    listening = time.monotonic()
    try:
        st = api.wait_state("durable", "running", 5)
        print(f"task running again {time.monotonic() - listening:.1f} s after the server listened")
        assert st["taskId"] == "durable" and st["sequence"] == 3, st
        assert [i["id"] for i in st["inputs"]] == ["red", "blue"], st
        assert [o["url"] for o in st["outputs"]] == [o["url"] for o in before["outputs"]], st
        assert "resumed" in (st.get("reason") or ""), st
        files = st["outputs"][1]["files"]
        assert files == ["rec/durable.mp4", "rec/durable.1.mp4"], files
        # The sequence survived: an older one is refused, a newer one applied.
        assert api.patch("/v1/tasks/durable", {"sequence": 3}).status == 409
        assert api.patch("/v1/tasks/durable", {"sequence": 4}).status == 200
        assert api.status("deleted")["state"] == "stopped"
        assert len(second.workers()) == 1, f"workers {second.workers()} for one running task"

        # The CDN stream is back, drawn as before.
        wait_stream(url, 15)
        reader = StreamReader(url, tmp_path / "again.flv", W, H, duration=1.5)
        assert wait_until(lambda: not reader.running(), 20)
        frames = reader.snapshot()
        assert len(frames) >= 30, reader.stderr()
        bad = [m for _, f in frames if (m := colour_mismatch(f, ORIGINAL))]
        assert not bad, bad[:3]
        time.sleep(2)
        assert api.delete("/v1/tasks/durable").status == 200
    finally:
        rc = second.terminate(20)
        assert rc == 0, log_tail(second.log)

    out = second.out / "rec"
    first_part = _playable_seconds(out / "durable.mp4")
    assert first_part >= 3, f"the recording before the crash holds only {first_part:.1f} s"
    assert _playable_seconds(out / "durable.1.mp4") >= 2


def test_worker_crash_continues_the_recording_in_a_new_file(api, tessera_server, clips):
    api.create(side_by_side("crashy", clips.red, clips.blue, ["crash.mp4"]))
    api.wait_state("crashy", "running", 15)
    time.sleep(4)
    pid = api.status("crashy")["workerPid"]
    os.kill(pid, signal.SIGKILL)
    st = wait_until(lambda: (s := api.status("crashy")).get("workerPid") not in (None, pid) and s["state"] == "running" and s, 15)
    assert st, api.status("crashy")
    assert st["outputs"][0]["files"] == ["crash.mp4", "crash.1.mp4"], st["outputs"]
    time.sleep(3)
    final = api.delete("/v1/tasks/crashy").json
    assert final["state"] == "stopped", final
    assert _playable_seconds(tessera_server.out / "crash.mp4") >= 3
    assert _playable_seconds(tessera_server.out / "crash.1.mp4") >= 2


def test_limits_are_the_server_s_own_and_checked_once(tmp_path, media, rtmp_server):
    """`--max-inputs 40` admits a 34-input task, and its worker runs it: the worker gets the plan
    the server validated and reads no limits of its own (it used to refuse over 32)."""
    clip = media.solid(RED, size=(64, 64), fps=10, duration=2.0)
    server = TesseraServer(tmp_path / "serve", media.root, ["--max-inputs", "40", "--max-regions", "80"])
    server.start()
    try:
        api = server.client
        inputs = [{"id": f"p{i}", "url": clip, "loop": True} for i in range(34)]

        def tiles(n):
            return {"regions": [{"input": f"p{i}", "x": 40 * (i % 8), "y": 40 * (i // 8), "width": 40, "height": 40}
                                for i in range(n)]}
        doc = {"taskId": "crowd", "inputs": inputs,
               "encoder": {"video": {"width": 320, "height": 240, "fps": 10, "preset": "ultrafast"}},
               "layout": tiles(34), "outputs": [{"url": "crowd.mp4"}]}
        api.create(doc)
        st = api.wait_state("crowd", ["running", "failed"], 20)
        assert st["state"] == "running", st
        # An update within the server's limits is applied by the worker, not dropped.
        r = api.patch("/v1/tasks/crowd", {"inputs": inputs + [{"id": "p34", "url": clip, "loop": True}],
                                          "layout": tiles(35), "sequence": 1})
        assert r.status == 200, r.body
        assert len(r.json["inputs"]) == 35
        assert wait_until(lambda: (s := api.status("crowd"))["state"] == "running"
                          and next(i for i in s["inputs"] if i["id"] == "p34")["state"] == "live", 15), api.status("crowd")
        # Over the server's limit: refused at the edge, naming the field, and nothing changes.
        r = api.patch("/v1/tasks/crowd", {"inputs": [{"id": f"q{i}", "url": clip} for i in range(41)]})
        assert r.status == 400 and r.json["error"]["path"] == "inputs", r.body
        assert len(api.status("crowd")["inputs"]) == 35
    finally:
        assert server.terminate(30) == 0, log_tail(server.log)
