"""Issue 32 on object storage: a per-participant output `s3://shows/room42/{input}.webm` spools each
participant's file and uploads it while it is written (a multipart upload open in moto while the
show runs, completed at its end; moto's S3 server, read back with boto3), the status lists it by
its s3 URL, and the show's manifest `room42/{taskId}.timeline.json` goes up last, once every file is
complete: a valid task document whose inputs name the objects beside it, so the folder downloaded
is mixed as it is. A worker killed mid-show (SIGKILL) leaves its participants' uploads open: the
task's next worker completes each from what reached the store and the dead worker's spool bytes,
lists them in the status as recovered, and records on under the next names, never over them."""
from __future__ import annotations

import json
import os
import signal
import time

import pytest

boto3 = pytest.importorskip("boto3")
from botocore.exceptions import ClientError  # noqa: E402

from helpers import BLUE, RED, colour_distance, decode_video, ffprobe, run_tessera  # noqa: E402
from livetools import log_tail, wait_until  # noqa: E402
from rtptools import RtpSender, free_udp_pair  # noqa: E402
from test_s3_output import Moto, servers, start_server  # noqa: E402,F401 (servers: the fixture)

pytestmark = pytest.mark.live

TASK = "tl-s3"
KEY, MANIFEST = "room42/host.webm", f"room42/{TASK}.timeline.json"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    moto = Moto(tmp_path_factory.mktemp("moto-timeline"))
    try:
        moto.client().create_bucket(Bucket="shows")
        yield moto
    finally:
        moto.stop()


def exists(s3, key: str) -> bool:
    try:
        s3.head_object(Bucket="shows", Key=key)
        return True
    except ClientError:
        return False


def test_per_participant_objects_then_the_manifest(tmp_path, media, monkeypatch, store, servers, senders):
    srv = start_server(servers, tmp_path, media, monkeypatch, store.url)
    api, s3 = srv.client, store.client()
    host = RtpSender(tmp_path, free_udp_pair(), free_udp_pair(), RED, 440, vcodec="vp8", name="host").start()
    senders.append(host)
    api.create({
        "taskId": TASK,
        "inputs": [{"id": "host", "rtp": {"sdp": host.sdp()}, "silenceTimeoutMs": 1000}],
        "encoder": {"video": {"width": 320, "height": 240, "fps": 30, "preset": "ultrafast"}},
        "layout": {"backgroundColor": "#000000", "regions": [{"input": "host", "x": 0, "y": 0, "width": 320, "height": 240}]},
        "outputs": [{"url": "s3://shows/room42/{input}.webm"}, {"url": "tl-s3/show.mp4"}],
    })
    listed = wait_until(lambda: (api.status(TASK)["outputs"][0].get("files") or None), 20)
    assert listed == [f"s3://shows/{KEY}"], f"status files {listed}:\n{log_tail(srv.log)}"
    time.sleep(3)
    # The file goes up while it is written: its multipart upload is open (created at its first
    # bytes, completed at its end); neither it nor the manifest that names it is an object yet.
    open_uploads = s3.list_multipart_uploads(Bucket="shows", Prefix="room42/").get("Uploads", [])
    assert [u["Key"] for u in open_uploads] == [KEY], f"open uploads {open_uploads}\n{log_tail(srv.log)}"
    assert not exists(s3, KEY), "the file is an object before its recording ended"
    assert not exists(s3, MANIFEST), "the manifest is in the store before the show ended"
    # What the spool holds now is final: the finished object starts with these very bytes.
    (spool,) = tmp_path.glob("serve-*/**/.tessera-spool/shows/room42/host.webm")
    written = spool.read_bytes()
    assert api.delete(f"/v1/tasks/{TASK}").status == 200
    final = api.wait_state(TASK, {"stopped", "failed"}, 25)
    assert final["state"] == "stopped", final

    keys = sorted(o["Key"] for o in s3.list_objects_v2(Bucket="shows", Prefix="room42/").get("Contents", []))
    assert keys == sorted([KEY, MANIFEST]), f"{keys}; uploads {final['outputs'][0].get('uploads')}\n{log_tail(srv.log)}"
    uploads = final["outputs"][0].get("uploads") or []
    assert [u["file"] for u in uploads] == [f"s3://shows/{KEY}", f"s3://shows/{MANIFEST}"], uploads
    assert all(u["state"] == "uploaded" for u in uploads), uploads
    assert not s3.list_multipart_uploads(Bucket="shows", Prefix="room42/").get("Uploads"), "an upload was left open"
    modified = {k: s3.head_object(Bucket="shows", Key=k)["LastModified"] for k in keys}
    assert modified[MANIFEST] >= modified[KEY], modified

    folder = tmp_path / "room42"
    folder.mkdir()
    for key in keys:
        s3.download_file("shows", key, str(tmp_path / key))
    whole = (tmp_path / KEY).read_bytes()
    assert len(written) > 1000 and whole[:len(written)] == written, (len(written), len(whole))
    info = ffprobe(tmp_path / KEY)
    codecs = sorted(s["codec_name"] for s in info["streams"])
    video = next(s for s in info["streams"] if s["codec_type"] == "video")
    assert codecs == ["opus", "vp8"] and (video["width"], video["height"]) == (320, 240), info["streams"]
    start = float(info["format"]["start_time"])
    # Written live (no duration in its header): it plays to its last packet, the show's length.
    packets = ffprobe(tmp_path / KEY, "-show_packets")["packets"]
    end = max(float(p["pts_time"]) + float(p.get("duration_time") or 0) for p in packets)
    assert end - start >= 2.5, (start, end, len(packets))

    manifest = json.loads((tmp_path / MANIFEST).read_text())
    (host_input,) = manifest["inputs"]
    assert host_input["id"] == "host" and host_input["url"] == "host.webm", host_input
    assert abs(host_input["startAtMs"] / 1000 - start) <= 0.04, (host_input, start)
    assert manifest["mode"] == "mix" and manifest["pace"] == "asap" and manifest["outputs"] == [{"url": f"{TASK}.remix.mp4"}]
    assert manifest["layout"]["regions"][0]["input"] == "host"
    timeline = manifest["timeline"]
    (file,) = timeline["files"]
    assert timeline["version"] == 1 and timeline["taskId"] == TASK and timeline["startedAt"].endswith("Z"), timeline
    assert file["url"] == f"s3://shows/{KEY}" and file["video"]["codec"] == "vp8" and file["audio"]["codec"] == "opus", file
    assert file["endMs"] > file["offsetMs"] + 2000, file
    # Its inputs name the objects beside it: the downloaded folder validates wherever it lies.
    r = run_tessera(["validate", tmp_path / MANIFEST])
    assert r.returncode == 0, f"tessera validate: {r.stdout}{r.stderr}\n{json.dumps(manifest, indent=1)}"


def recorded_seconds(path) -> float:
    packets = ffprobe(path, "-show_packets")["packets"]
    times = [float(p["pts_time"]) + float(p.get("duration_time") or 0) for p in packets if p.get("pts_time") not in (None, "N/A")]
    return max(times) - min(times)


def test_a_killed_workers_participant_uploads_are_completed(tmp_path, media, monkeypatch, store, servers, senders):
    srv = start_server(servers, tmp_path, media, monkeypatch, store.url)
    api, s3 = srv.client, store.client()
    task, colours = "tl-s3-kill", {"host": RED, "guest": BLUE}
    people = {name: RtpSender(tmp_path, free_udp_pair(), free_udp_pair(), rgb, 440 + 220 * i, vcodec=("vp8", "h264")[i],
                              name=f"kill-{name}").start() for i, (name, rgb) in enumerate(colours.items())}
    senders.extend(people.values())
    api.create({
        "taskId": task,
        "inputs": [{"id": name, "rtp": {"sdp": sender.sdp()}, "silenceTimeoutMs": 1000} for name, sender in people.items()],
        "encoder": {"video": {"width": 160, "height": 120, "fps": 15, "preset": "ultrafast"}},
        "layout": {"backgroundColor": "#000000", "regions": [{"input": "host", "x": 0, "y": 0, "width": 160, "height": 120}]},
        "outputs": [{"url": "s3://shows/kill/{input}.mkv"}, {"url": "tl-s3-kill/{input}.mkv"}],
    })
    first = {name: f"s3://shows/kill/{name}.mkv" for name in colours}
    listed = wait_until(lambda: all(len(o.get("files") or []) == 2 for o in api.status(task)["outputs"]), 20)
    assert listed, f"{api.status(task)['outputs']}\n{log_tail(srv.log)}"
    since = time.monotonic()
    time.sleep(3)
    # Under 5 MiB each: no part is in the store yet, every byte is in the dead worker's spool.
    open_keys = sorted(u["Key"] for u in s3.list_multipart_uploads(Bucket="shows", Prefix="kill/").get("Uploads", []))
    assert open_keys == ["kill/guest.mkv", "kill/host.mkv"], open_keys
    pid = api.status(task)["workerPid"]
    os.kill(pid, signal.SIGKILL)
    recorded = time.monotonic() - since
    st = wait_until(lambda: (s := api.status(task)).get("workerPid") not in (None, pid) and s["state"] == "running"
                    and all(len(o.get("files") or []) == 4 for o in s["outputs"]) and s, 25)
    assert st, f"{api.status(task)}\n{log_tail(srv.log)}"
    output = st["outputs"][0]
    # The earlier run's files first (recovered), then this run's under the next names.
    assert sorted(output["files"][:2]) == sorted(first.values()), output
    assert sorted(output["files"][2:]) == ["s3://shows/kill/guest.1.mkv", "s3://shows/kill/host.1.mkv"], output
    # Local files too: the dead run's timeline manifest beside them lists them.
    local_names = [f.rsplit("/", 1)[-1] for f in st["outputs"][1]["files"]]
    assert sorted(local_names[:2]) == ["guest.mkv", "host.mkv"] and sorted(local_names[2:]) == ["guest.1.mkv", "host.1.mkv"], \
        st["outputs"][1]
    recovered = {u["file"]: u for u in output.get("uploads") or [] if u.get("recovered")}
    assert sorted(recovered) == sorted(first.values()), output.get("uploads")
    assert all(u["state"] == "uploaded" and u["input"] in colours for u in recovered.values()), recovered
    time.sleep(1)
    assert api.delete(f"/v1/tasks/{task}").status == 200
    final = api.wait_state(task, {"stopped", "failed"}, 25)
    assert final["state"] == "stopped", final

    assert not s3.list_multipart_uploads(Bucket="shows", Prefix="kill/").get("Uploads"), "an upload was left open"
    keys = sorted(o["Key"] for o in s3.list_objects_v2(Bucket="shows", Prefix="kill/").get("Contents", []))
    assert {"kill/host.mkv", "kill/guest.mkv", "kill/host.1.mkv", "kill/guest.1.mkv"} <= set(keys), keys
    # The dead run's manifest, never sent by its worker, went up with this run's: it names the recovered files.
    assert {f"kill/{task}.timeline.json", f"kill/{task}.timeline.1.json"} <= set(keys), keys
    dead = json.loads(s3.get_object(Bucket="shows", Key=f"kill/{task}.timeline.json")["Body"].read())
    assert {f["url"] for f in dead["timeline"]["files"]} >= set(first.values()), dead["timeline"]
    for name, rgb in colours.items():
        local = tmp_path / f"{name}.mkv"
        s3.download_file("shows", f"kill/{name}.mkv", str(local))
        codecs = sorted(s["codec_name"] for s in ffprobe(local)["streams"])
        assert codecs == sorted(["opus", ("vp8", "h264")[name == "guest"]]), (name, codecs)
        # What was recorded before the kill, all of it (the spool's bytes went up), in its own colour.
        assert recorded_seconds(local) >= recorded - 1.0, (name, recorded_seconds(local), recorded)
        frames = decode_video(local)
        assert len(frames) >= 15, (name, len(frames))
        got = frames[len(frames) // 2].rgb_at(80, 60, 8)
        assert colour_distance(got, rgb) <= 40, (name, got, rgb)


def test_a_participant_recording_that_fails_is_told_once_with_a_labelled_metric(tmp_path, media, monkeypatch, servers):
    # An H.264 file input and a WebM per-participant output: WebM cannot hold H.264, which is
    # known only once the file is opened; that recording fails by name, the task goes on.
    srv = start_server(servers, tmp_path, media, monkeypatch, None)
    api, task = srv.client, "tl-fail"
    clip = media.solid(RED, size=(160, 120), fps=15, duration=1.0, tone=440)
    api.create({
        "taskId": task, "inputs": [{"id": "clip", "url": clip, "loop": True}],
        "encoder": {"video": {"width": 160, "height": 120, "fps": 15, "preset": "ultrafast"}},
        "layout": {"backgroundColor": "#000000", "regions": [{"input": "clip", "x": 0, "y": 0, "width": 160, "height": 120}]},
        "outputs": [{"url": "tl-fail/{input}.webm"}],
    })
    st = wait_until(lambda: (s := api.status(task))["outputs"][0]["state"] == "failed" and s, 20)
    assert st, f"{api.status(task)}\n{log_tail(srv.log)}"
    output = st["outputs"][0]
    assert output["failedInputs"] == ["clip"] and "input clip" in output["lastError"], output
    r = api.get("/metrics")
    assert r.status == 200
    assert f'tessera_recording_failed{{task_id="{task}",output="0",input="clip"}} 1' in r.body.decode(), r.body.decode()
    time.sleep(2.5)  # the 1 s clip loops: each pass opens the input again, and fails alike
    assert api.status(task)["state"] == "running"
    lines = [line for line in srv.log.read_text().splitlines() if f"task {task}: recording of input clip" in line and "failed" in line]
    assert len(lines) == 1, lines
    assert api.delete(f"/v1/tasks/{task}").status == 200
