"""Issue 32 on object storage: a per-participant output `s3://shows/room42/{input}.webm` spools each
participant's file and uploads it while it is written (a multipart upload open in moto while the
show runs, completed at its end; moto's S3 server, read back with boto3), the status lists it by
its s3 URL, and the show's manifest `room42/{taskId}.timeline.json` goes up last, once every file is
complete: a valid task document whose inputs name the objects beside it, so the folder downloaded
is mixed as it is."""
from __future__ import annotations

import json
import time

import pytest

boto3 = pytest.importorskip("boto3")
from botocore.exceptions import ClientError  # noqa: E402

from helpers import RED, ffprobe, run_tessera  # noqa: E402
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
