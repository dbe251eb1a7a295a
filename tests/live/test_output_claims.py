"""No recording is lost to another task (issue 30): a file, a playlist or an object is written by
one running task at a time (`409 OutputInUse` naming the field and the holder, nothing started),
a task never overwrites what an earlier task wrote (it gets the next free name, reported in
`files`), a node low on disk space starts no new recording (`507`, `/readyz` tells the free
bytes), and a task that ended says how everything in it ended."""
from __future__ import annotations

import hashlib
import time

import pytest

from helpers import count_video_frames, ffprobe
from livetools import TesseraServer, log_tail, side_by_side, wait_until

pytestmark = pytest.mark.live


def with_outputs(doc: dict, outputs: list[dict]) -> dict:
    doc["outputs"] = outputs
    return doc


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_two_tasks_on_one_file_one_is_refused_and_a_later_task_never_overwrites(api, tessera_server, clips, rtmp_server):
    out = tessera_server.out
    api.create(side_by_side("rec", clips.red, clips.blue, ["same/rec.mp4"]))
    api.wait_outputs("rec", "live", 15)
    # A second task naming the same file: refused at the field, naming the holder; nothing starts.
    r = api.post("/v1/tasks", side_by_side("rec-b", clips.blue, clips.red, [rtmp_server.url("b"), "same/rec.mp4"]))
    assert r.status == 409, r.body
    err = r.json["error"]
    assert err["code"] == "OutputInUse" and err["path"] == "outputs[1].url" and '"rec"' in err["message"], err
    assert api.get("/v1/tasks/rec-b").status == 404
    # The same through an update of another task: refused, its outputs unchanged.
    api.create(side_by_side("other", clips.blue, clips.red, ["same/other.mp4"]))
    r = api.patch("/v1/tasks/other", {"outputs": [{"url": "same/other.mp4"}, {"url": "same/rec.mp4"}]})
    assert r.status == 409 and r.json["error"]["path"] == "outputs[1].url", r.body
    assert [o["url"] for o in api.status("other")["outputs"]] == ["same/other.mp4"]
    time.sleep(2)
    final = api.delete("/v1/tasks/rec").json
    assert final["state"] == "stopped", final
    first = out / "same/rec.mp4"
    before = digest(first)
    frames_before = count_video_frames(first)
    assert frames_before >= 30, frames_before

    # Once that task ended, a new one may name the file, and writes beside it.
    st = api.create(side_by_side("rec-b", clips.blue, clips.red, ["same/rec.mp4"]))
    api.wait_outputs("rec-b", "live", 15)
    assert st["outputs"][0]["files"] == ["same/rec.1.mp4"], st["outputs"][0]
    time.sleep(2)
    api.delete("/v1/tasks/rec-b")
    api.delete("/v1/tasks/other")
    assert digest(first) == before, "the earlier task's recording was changed"
    assert count_video_frames(out / "same/rec.1.mp4") >= 30
    assert count_video_frames(first) == frames_before


def test_an_hls_playlist_has_one_writer_and_a_later_task_gets_its_own(api, tessera_server, clips):
    out = tessera_server.out
    hls = {"url": "hls/live1.m3u8", "hls": {"segmentSeconds": 1}}
    api.create(with_outputs(side_by_side("show", clips.red, clips.blue, []), [hls]))
    assert wait_until(lambda: (out / "hls/live1.m3u8").exists(), 15), log_tail(tessera_server.log)
    r = api.post("/v1/tasks", with_outputs(side_by_side("show-b", clips.blue, clips.red, []), [hls]))
    assert r.status == 409 and r.json["error"]["code"] == "OutputInUse" and r.json["error"]["path"] == "outputs[0].url", r.body
    time.sleep(2)
    api.delete("/v1/tasks/show")
    playlist = (out / "hls/live1.m3u8").read_text()
    assert "#EXT-X-ENDLIST" in playlist, playlist

    st = api.create(with_outputs(side_by_side("show-b", clips.blue, clips.red, []), [hls]))
    assert st["outputs"][0]["files"] == ["hls/live1.1.m3u8"], st["outputs"][0]
    assert wait_until(lambda: (out / "hls/live1.1.m3u8").exists(), 15)
    time.sleep(2)
    api.delete("/v1/tasks/show-b")
    assert (out / "hls/live1.m3u8").read_text() == playlist, "the earlier task's playlist was changed"
    # A task that adds the playlist by an update moves off it too (and the name it moved to).
    api.create(side_by_side("show-c", clips.red, clips.blue, ["show-c.mp4"]))
    r = api.patch("/v1/tasks/show-c", {"outputs": [{"url": "show-c.mp4"}, hls]})
    assert r.status == 200, r.body
    assert r.json["outputs"][1]["files"] == ["hls/live1.2.m3u8"], r.json["outputs"]
    assert wait_until(lambda: (out / "hls/live1.2.m3u8").exists(), 15)
    api.delete("/v1/tasks/show-c")
    assert (out / "hls/live1.m3u8").read_text() == playlist, "the earlier task's playlist was changed by an update"
    second = (out / "hls/live1.1.m3u8").read_text()
    names = [line for line in second.splitlines() if line and not line.startswith("#")]
    assert names and all(name.startswith("live1.1_") for name in names), second
    info = ffprobe(out / "hls/live1.1.m3u8")
    assert float(info["format"]["duration"]) > 1, info["format"]


def test_the_final_status_after_delete_says_how_everything_ended(api, clips, rtmp_server):
    api.create(side_by_side("bye", clips.red, clips.blue, [rtmp_server.url("bye"), "bye.mp4"]))
    api.wait_outputs("bye", "live", 15)
    final = api.delete("/v1/tasks/bye").json
    assert final["state"] == "stopped" and final["reason"] == "stopped by request (DELETE)", final
    assert {i["state"] for i in final["inputs"]} == {"ended"}, final["inputs"]
    assert {o["state"] for o in final["outputs"]} == {"finished"}, final["outputs"]
    again = api.status("bye")
    assert again["reason"] == final["reason"] and {o["state"] for o in again["outputs"]} == {"finished"}, again


@pytest.mark.serve_args("--min-free-bytes", str(10 ** 18))
def test_a_node_low_on_disk_space_starts_no_recording_and_says_so(api, tessera_server, clips, rtmp_server):
    r = api.get("/readyz")
    assert r.status == 200, r.body
    assert r.json["outputDirFreeBytes"] > 0 and "min-free-bytes" in r.json["reason"], r.json
    r = api.post("/v1/tasks", side_by_side("rec", clips.red, clips.blue, [rtmp_server.url("x"), "rec.mp4"]))
    assert r.status == 507, r.body
    assert r.json["error"]["code"] == "InsufficientStorage" and r.json["error"]["path"] == "outputs[1].url", r.body
    assert api.get("/v1/tasks/rec").status == 404
    # A task that records nothing still runs here.
    api.create(side_by_side("stream", clips.red, clips.blue, [rtmp_server.url("stream")]))
    api.wait_outputs("stream", "live", 15)
    assert wait_until(lambda: "low on space" in tessera_server.log.read_text(), 10), log_tail(tessera_server.log)
    assert tessera_server.log.read_text().count("low on space") == 1
