"""Recordings in object storage (issue 23, item 3): `s3://BUCKET/KEY` outputs go through a local
spool into an S3-compatible store while they are written — moto's server mode here, read back with
boto3 as a user's code would. A recording's multipart parts appear before the task stops and the
object plays afterwards; HLS segments and playlists are PUT as they are finished; a store that is
away for a while (a TCP proxy the test pauses) is caught up with; a worker killed mid-recording
leaves an open multipart upload that its next worker completes, playable to the loss; unknown
buckets and wrong credentials are named in the output's status."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

boto3 = pytest.importorskip("boto3")
from botocore.config import Config  # noqa: E402

from helpers import ffprobe  # noqa: E402
from livetools import TesseraServer, free_port, log_tail, port_accepts, wait_until  # noqa: E402

pytestmark = pytest.mark.live

KEY_ID, SECRET = "AKIATESSERATEST00001", "tessera-test-secret-key"
FPS = 30


class Moto:
    """moto's S3 server on a free loopback port, started and stopped by PID. `no_auth`: how many
    first requests skip authentication (None: moto checks no credentials at all)."""

    def __init__(self, root: Path, auth_after: int | None = None):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = root / f"moto-{self.port}.log"
        env = dict(os.environ)
        if auth_after is not None:
            env["INITIAL_NO_AUTH_ACTION_COUNT"] = str(auth_after)
        self.proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
                                     stdout=open(self.log, "ab"), stderr=subprocess.STDOUT, env=env)
        assert wait_until(lambda: port_accepts(self.port), 20), f"moto did not start:\n{log_tail(self.log)}"

    def client(self, key_id=KEY_ID, secret=SECRET, endpoint=None):
        return boto3.client("s3", endpoint_url=endpoint or self.url, region_name="us-east-1", aws_access_key_id=key_id,
                            aws_secret_access_key=secret, config=Config(retries={"max_attempts": 1}))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)


class PausableProxy:
    """A TCP proxy in front of the store: `pause()` closes every connection and the listening
    socket (connections are refused: the store is away), `resume()` listens on the same port again."""

    def __init__(self, target_port: int):
        self.target = target_port
        self.port = free_port()
        self.lock = threading.Lock()
        self.conns: list[socket.socket] = []
        self.listener: socket.socket | None = None
        self.resume()

    def resume(self):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", self.port))
        s.listen(64)
        self.listener = s
        threading.Thread(target=self._accept, args=(s,), daemon=True).start()

    def pause(self):
        with self.lock:
            listener, self.listener = self.listener, None
            conns, self.conns = self.conns, []
        for c in [listener, *conns]:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            c.close()

    def _accept(self, listener):
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            with self.lock:
                if self.listener is not listener:
                    client.close(); upstream.close()
                    return
                self.conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(a, b):
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


@pytest.fixture(scope="module")
def moto(tmp_path_factory):
    store = Moto(tmp_path_factory.mktemp("moto"))
    try:
        store.client().create_bucket(Bucket="rec")
        yield store
    finally:
        store.stop()


@pytest.fixture(scope="module")
def noise(media):
    """A picture no encoder can shrink: 12 Mbit/s of it fill a 5 MiB part every ~3.5 s."""
    return media.video("nullsrc=s=320x180:r=30:d=2,geq=random(1)*255:128:128", stem="noise",
                       audio="sine=frequency=440:sample_rate=48000:duration=2")


def start_server(servers, tmp_path, media, monkeypatch, endpoint: str | None, *extra, key_id=KEY_ID, secret=SECRET):
    if endpoint:
        monkeypatch.setenv("AWS_ACCESS_KEY_ID", key_id)
        monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", secret)
        extra = ("--storage-endpoint", endpoint, *extra)
    else:
        monkeypatch.delenv("AWS_ACCESS_KEY_ID", raising=False)
        monkeypatch.delenv("AWS_SECRET_ACCESS_KEY", raising=False)
    srv = TesseraServer(tmp_path / f"serve-{free_port()}", media.root, extra_args=extra)
    srv.start()
    servers.append(srv)
    return srv


@pytest.fixture
def servers():
    started: list[TesseraServer] = []
    yield started
    for srv in started:
        try:
            if srv.proc.poll() is None:
                rc = srv.terminate(30)
                assert rc == 0, f"tessera serve exited with {rc}:\n{log_tail(srv.log)}"
        finally:
            srv.kill()


def recording(task_id: str, clip: str, outputs: list[dict]) -> dict:
    return {
        "taskId": task_id,
        "inputs": [{"id": "noise", "url": clip, "loop": True}],
        "encoder": {"video": {"width": 640, "height": 360, "fps": FPS, "bitrateKbps": 12000, "gopSeconds": 1,
                              "preset": "ultrafast"},
                    "audio": {"sampleRate": 48000, "channels": 2, "bitrateKbps": 96}},
        "layout": {"backgroundColor": "#000000",
                   "regions": [{"input": "noise", "x": 0, "y": 0, "width": 640, "height": 360}]},
        "outputs": outputs,
    }


def small_hls(task_id: str, clip: str, url: str, hls: dict, **video) -> dict:
    """`recording` to one HLS output at 320x240, 600 kb/s (`video`: more encoder settings)."""
    doc = recording(task_id, clip, [{"url": url, "hls": hls}])
    doc["encoder"]["video"].update(width=320, height=240, bitrateKbps=600, **video)
    doc["layout"]["regions"][0].update(width=320, height=240)
    return doc


def open_parts(s3, bucket: str, key: str) -> list[dict]:
    uploads = [u for u in s3.list_multipart_uploads(Bucket=bucket).get("Uploads", []) if u["Key"] == key]
    if not uploads:
        return []
    return s3.list_parts(Bucket=bucket, Key=key, UploadId=uploads[0]["UploadId"]).get("Parts", [])


def uploads_of(api, task_id: str, index: int = 0) -> list[dict]:
    return api.status(task_id)["outputs"][index].get("uploads") or []


def object_text(s3, bucket: str, key: str) -> str:
    """The object's text, or "" while it is not in the store."""
    try:
        return s3.get_object(Bucket=bucket, Key=key)["Body"].read().decode()
    except s3.exceptions.NoSuchKey:
        return ""


def keys_under(s3, bucket: str, prefix: str) -> set[str]:
    return {o["Key"] for o in s3.list_objects_v2(Bucket=bucket, Prefix=prefix)["Contents"]}


def download_prefix(s3, bucket: str, prefix: str, folder: Path) -> Path:
    """Every object under `prefix` into the new `folder` by its last name, as a user's code
    downloads a recording to play it."""
    folder.mkdir()
    for key in keys_under(s3, bucket, prefix):
        s3.download_file(bucket, key, str(folder / key.split("/")[-1]))
    return folder


def download_duration(s3, bucket: str, key: str, tmp: Path) -> float:
    path = tmp / key.replace("/", "_")
    s3.download_file(bucket, key, str(path))
    info = ffprobe(path)
    assert any(s["codec_type"] == "video" for s in info["streams"]), info
    return float(info["format"]["duration"])


def stop_and_play(api, s3, task_id: str, key: str, started: float, tmp: Path) -> dict:
    """Stops the task; its object is complete and plays for as long as the task ran."""
    assert api.delete(f"/v1/tasks/{task_id}").status == 200
    elapsed = time.monotonic() - started
    final = wait_until(lambda: (st := api.status(task_id))["state"] == "stopped" and st, 20)
    assert final, api.status(task_id)
    upload = final["outputs"][0]["uploads"][-1]
    assert upload["file"] == f"s3://rec/{key}" and upload["state"] == "uploaded" and upload["waitingBytes"] == 0, upload
    assert not open_parts(s3, "rec", key), "the multipart upload was left open"
    duration = download_duration(s3, "rec", key, tmp)
    assert elapsed - 4 <= duration <= elapsed + 1, f"{duration} s recorded in {elapsed:.1f} s"
    return final


def test_recording_goes_up_while_written_and_plays(tmp_path, media, monkeypatch, moto, noise, servers):
    srv = start_server(servers, tmp_path, media, monkeypatch, moto.url)
    api, s3 = srv.client, moto.client()
    # An unknown bucket is refused at the POST, naming the output, and nothing starts.
    good, missing = {"url": "s3://rec/shows/room42.mp4"}, {"url": "s3://no-such-bucket/x.mp4"}
    r = api.post("/v1/tasks", recording("rec-live", noise, [good, missing]))
    assert r.status == 400 and r.json["error"]["path"] == "outputs[1].url" and "NoSuchBucket" in r.json["error"]["message"], r.body
    assert api.get("/v1/tasks/rec-live").status == 404
    api.create(recording("rec-live", noise, [good]))
    started = time.monotonic()
    # Parts are in the store while the task still runs.
    assert wait_until(lambda: len(open_parts(s3, "rec", "shows/room42.mp4")) >= 2, 25), \
        f"fewer than 2 parts while recording: {api.status('rec-live')['outputs']}\n{log_tail(srv.log)}"
    parts = open_parts(s3, "rec", "shows/room42.mp4")
    assert all(p["Size"] >= 5 * 1024 * 1024 for p in parts), parts
    upload = uploads_of(api, "rec-live")[0]
    assert upload["file"] == "s3://rec/shows/room42.mp4" and upload["state"] == "uploading" and upload["parts"] >= 2, upload
    # An update naming an unknown bucket is refused the same way and changes nothing.
    r = api.patch("/v1/tasks/rec-live", {"outputs": [good, missing]})
    assert r.status == 400 and r.json["error"]["path"] == "outputs[1].url" and "NoSuchBucket" in r.json["error"]["message"], r.body
    assert [o["url"] for o in api.status("rec-live")["outputs"]] == [good["url"]]
    final = stop_and_play(api, s3, "rec-live", "shows/room42.mp4", started, tmp_path)
    assert final["outputs"][0]["files"] == ["s3://rec/shows/room42.mp4"], final["outputs"][0]


def test_hls_segments_and_playlists_go_up_as_they_are_finished(tmp_path, media, monkeypatch, moto, clips, servers):
    srv = start_server(servers, tmp_path, media, monkeypatch, moto.url)
    api, s3 = srv.client, moto.client()
    api.create(small_hls("hls-s3", clips.red, "s3://rec/live/show.m3u8", {"segmentSeconds": 1}))

    def playlist():
        return object_text(s3, "rec", "live/show.m3u8")

    assert wait_until(lambda: playlist().count("#EXTINF") >= 3, 20), f"{playlist()!r}\n{log_tail(srv.log)}"
    live = playlist()
    keys = keys_under(s3, "rec", "live/")
    listed = [line for line in live.splitlines() if line and not line.startswith("#")]
    # Every segment a playlist names was in the store before it.
    assert all(f"live/{name}" in keys for name in listed), (listed, keys)
    assert "live/show_init.mp4" in keys and "#EXT-X-ENDLIST" not in live
    assert api.delete("/v1/tasks/hls-s3").status == 200
    assert wait_until(lambda: "#EXT-X-ENDLIST" in playlist(), 15), playlist()
    local = download_prefix(s3, "rec", "live/", tmp_path / "hls")
    vod = (local / "show.m3u8").read_text()
    total = sum(float(line.split(":")[1].split(",")[0]) for line in vod.splitlines() if line.startswith("#EXTINF:"))
    assert float(ffprobe(local / "show.m3u8")["format"]["duration"]) == pytest.approx(total, abs=0.3)
    status = api.status("hls-s3")["outputs"][0]
    assert status["uploads"][0]["state"] == "uploaded", status


def test_an_hls_ladder_goes_up_variants_before_their_master(tmp_path, media, monkeypatch, moto, clips, servers):
    srv = start_server(servers, tmp_path, media, monkeypatch, moto.url)
    api, s3 = srv.client, moto.client()
    api.create(small_hls("ladder-s3", clips.red, "s3://rec/ladder/show.m3u8", {"segmentSeconds": 1},
                         renditions=[{"width": 160, "height": 120, "bitrateKbps": 200}]))

    def get(key):
        return object_text(s3, "rec", key)

    # The master is in the store only once every variant it names is, each with its segments.
    master = wait_until(lambda: get("ladder/show.m3u8"), 25)
    assert master, f"no master playlist in the store\n{log_tail(srv.log)}"
    variants = [line for line in master.splitlines() if line and not line.startswith("#")]
    assert sorted(variants) == ["show_r0.m3u8", "show_r1.m3u8"], master
    assert "RESOLUTION=320x240" in master and "RESOLUTION=160x120" in master, master
    keys = keys_under(s3, "rec", "ladder/")
    assert all(f"ladder/{name}" in keys for name in variants), (variants, keys)
    assert wait_until(lambda: all(get(f"ladder/{v}").count("#EXTINF") >= 2 for v in variants), 20), \
        [get(f"ladder/{v}") for v in variants]
    assert api.delete("/v1/tasks/ladder-s3").status == 200
    assert wait_until(lambda: all("#EXT-X-ENDLIST" in get(f"ladder/{v}") for v in variants), 15), \
        [get(f"ladder/{v}") for v in variants]
    # Downloaded as a user's code would, each variant plays at its own size.
    local = download_prefix(s3, "rec", "ladder/", tmp_path / "ladder")
    for name, size in (("show_r0.m3u8", (320, 240)), ("show_r1.m3u8", (160, 120))):
        video = [st for st in ffprobe(local / name)["streams"] if st["codec_type"] == "video"][0]
        assert (video["width"], video["height"]) == size, (name, video)
    final = wait_until(lambda: (u := uploads_of(api, "ladder-s3")) and u[0]["state"] != "uploading" and u[0], 15)
    assert final and final["file"] == "s3://rec/ladder/show.m3u8" and final["state"] == "uploaded" and final["parts"] >= 4, \
        uploads_of(api, "ladder-s3")


def test_a_store_away_for_a_while_is_caught_up_with(tmp_path, media, monkeypatch, moto, noise, servers):
    proxy = PausableProxy(moto.port)
    srv = start_server(servers, tmp_path, media, monkeypatch, f"http://127.0.0.1:{proxy.port}")
    api, s3 = srv.client, moto.client()
    api.create(recording("rec-outage", noise, [{"url": "s3://rec/outage.mp4"}]))
    started = time.monotonic()
    assert wait_until(lambda: len(open_parts(s3, "rec", "outage.mp4")) >= 1, 20), log_tail(srv.log)
    proxy.pause()
    time.sleep(8)
    during = uploads_of(api, "rec-outage")[0]
    parts_during = len(open_parts(s3, "rec", "outage.mp4"))
    assert during["state"] == "uploading" and "retrying" in (during.get("reason") or ""), during
    assert during["waitingBytes"] >= 5 * 1024 * 1024, during
    assert api.status("rec-outage")["state"] == "running"
    proxy.resume()
    # Catching up: the spool drains to under one part.
    assert wait_until(lambda: uploads_of(api, "rec-outage")[0]["waitingBytes"] < 6 * 1024 * 1024
                      and len(open_parts(s3, "rec", "outage.mp4")) > parts_during, 20), uploads_of(api, "rec-outage")
    stop_and_play(api, s3, "rec-outage", "outage.mp4", started, tmp_path)


def test_a_killed_workers_upload_is_completed_and_plays_to_the_loss(tmp_path, media, monkeypatch, moto, noise, servers):
    srv = start_server(servers, tmp_path, media, monkeypatch, moto.url)
    api, s3 = srv.client, moto.client()
    api.create(recording("rec-crash", noise, [{"url": "s3://rec/crash/room42.mp4"}]))
    assert wait_until(lambda: len(open_parts(s3, "rec", "crash/room42.mp4")) >= 2, 25), log_tail(srv.log)
    in_store = sum(p["Size"] for p in open_parts(s3, "rec", "crash/room42.mp4"))
    pid = api.status("rec-crash")["workerPid"]
    os.kill(pid, signal.SIGKILL)
    st = wait_until(lambda: (s := api.status("rec-crash")).get("workerPid") not in (None, pid) and s["state"] == "running" and s, 15)
    assert st, api.status("rec-crash")
    assert st["outputs"][0]["files"] == ["s3://rec/crash/room42.mp4", "s3://rec/crash/room42.1.mp4"], st["outputs"][0]
    # The next worker completed the dead one's upload from its parts: a playable object.
    head = wait_until(lambda: _head(s3, "rec", "crash/room42.mp4"), 10)
    assert head and head["ContentLength"] >= in_store, head
    recovered = [u for u in uploads_of(api, "rec-crash") if u["file"] == "s3://rec/crash/room42.mp4"]
    assert recovered and recovered[0]["state"] == "uploaded" and recovered[0].get("recovered"), uploads_of(api, "rec-crash")
    assert download_duration(s3, "rec", "crash/room42.mp4", tmp_path) >= 2.0
    assert api.delete("/v1/tasks/rec-crash").status == 200
    wait_until(lambda: api.status("rec-crash")["state"] == "stopped", 20)
    assert download_duration(s3, "rec", "crash/room42.1.mp4", tmp_path) > 0


def _head(s3, bucket, key):
    try:
        return s3.head_object(Bucket=bucket, Key=key)
    except Exception:  # noqa: BLE001 - not there yet
        return None


def test_bad_configurations_are_named(tmp_path, media, monkeypatch, clips, servers):
    # No object store on the node: refused at POST, naming the output.
    plain = start_server(servers, tmp_path, media, monkeypatch, None)
    doc = recording("no-store", clips.red, [{"url": "rec.mp4"}, {"url": "s3://rec/room.mp4"}])
    r = plain.client.post("/v1/tasks", doc)
    assert r.status == 400 and "outputs[1].url" in json.dumps(r.json), r.body
    plain.terminate(20)
    # A store that checks credentials (moto with IAM auth after the first three requests).
    store = Moto(tmp_path, auth_after=3)
    try:
        iam = boto3.client("iam", endpoint_url=store.url, region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
        iam.create_user(UserName="tessera")
        iam.put_user_policy(UserName="tessera", PolicyName="all", PolicyDocument=json.dumps(
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
        key = iam.create_access_key(UserName="tessera")["AccessKey"]
        good = store.client(key["AccessKeyId"], key["SecretAccessKey"])
        good.create_bucket(Bucket="rec")
        wrong = start_server(servers, tmp_path, media, monkeypatch, store.url, key_id=key["AccessKeyId"], secret="not-the-secret")
        small = recording("bad-key", clips.red, [{"url": "rec.mp4"}, {"url": "s3://rec/room.mp4"}])
        small["encoder"]["video"].update(width=320, height=240, bitrateKbps=600)
        # Credentials the store refuses: a 400 at the POST naming the output, with S3's reason.
        r = wrong.client.post("/v1/tasks", small)
        message = r.json["error"]["message"] if r.status == 400 else r.body
        assert r.status == 400 and r.json["error"]["path"] == "outputs[1].url" \
            and ("SignatureDoesNotMatch" in message or "InvalidAccessKeyId" in message), r.body
        assert wrong.client.get("/v1/tasks/bad-key").status == 404
        assert not (wrong.out / "rec.mp4").exists(), "a refused task wrote its other output"
        wrong.terminate(20)
        small["outputs"] = [{"url": "s3://rec/room.mp4"}]
        # The right secret: Tessera's own SigV4 signatures are accepted by the store.
        right = start_server(servers, tmp_path, media, monkeypatch, store.url, key_id=key["AccessKeyId"], secret=key["SecretAccessKey"])
        small["taskId"] = "good-key"
        right.client.create(small)
        time.sleep(3)
        assert right.client.delete("/v1/tasks/good-key").status == 200
        wait_until(lambda: right.client.status("good-key")["state"] == "stopped", 20)
        assert uploads_of(right.client, "good-key")[0]["state"] == "uploaded", uploads_of(right.client, "good-key")
        assert download_duration(good, "rec", "room.mp4", tmp_path) >= 2
    finally:
        store.stop()


def test_one_object_has_one_writer(tmp_path, media, monkeypatch, moto, clips, servers):
    """Issue 30: two tasks naming one key would overwrite each other's object: the second is a
    409 naming the field and the holder, and starts nothing."""
    srv = start_server(servers, tmp_path, media, monkeypatch, moto.url)
    api = srv.client
    api.create(recording("obj-a", clips.red, [{"url": "s3://rec/claims/one.mp4"}]))
    r = api.post("/v1/tasks", recording("obj-b", clips.blue, [{"url": "s3://rec/claims/two.mp4"},
                                                             {"url": "s3://rec/claims/one.mp4"}]))
    assert r.status == 409, r.body
    err = r.json["error"]
    assert err["code"] == "OutputInUse" and err["path"] == "outputs[1].url" and '"obj-a"' in err["message"], err
    assert api.get("/v1/tasks/obj-b").status == 404
    time.sleep(1.5)
    assert api.delete("/v1/tasks/obj-a").status == 200
    s3 = moto.client()

    def uploaded(key):
        try:
            return s3.head_object(Bucket="rec", Key=key)["ContentLength"]
        except s3.exceptions.ClientError:
            return 0

    assert wait_until(lambda: uploaded("claims/one.mp4") > 0, 20), api.status("obj-a")["outputs"]
    first = s3.get_object(Bucket="rec", Key="claims/one.mp4")["Body"].read()
    # A later task naming the key writes beside the earlier object, never over it.
    st = api.create(recording("obj-b", clips.blue, [{"url": "s3://rec/claims/one.mp4"}]))
    assert st["outputs"][0]["files"] == ["s3://rec/claims/one.1.mp4"], st["outputs"][0]
    time.sleep(1.5)
    assert api.delete("/v1/tasks/obj-b").status == 200
    assert wait_until(lambda: uploaded("claims/one.1.mp4") > 0, 20), api.status("obj-b")["outputs"]
    assert s3.get_object(Bucket="rec", Key="claims/one.mp4")["Body"].read() == first, "the earlier object was replaced"
