"""Tessera's HLS origin (issue 33, item 2): `GET /v1/tasks/{taskId}/hls/{viewerKey}/{fileName}`.

One live task for the file (two looping clips side by side) on a server with an API token, with a
classic HLS output (1 s fMP4 segments, FFmpeg's files) and an LL-HLS one (parts of 0.333 s), neither
giving a viewer key: serve makes them at POST and the status names each output's playback path.
Fetched as a viewer does, without the token: the playlists, a segment, a part; a wrong key or a
file of another name is the same 404; CORS and Cache-Control as a CDN and a web player need them;
a blocking reload held until the next part is listed; the preload-hinted part held until written;
a delta update; bad directives 400; the latest thumbnail (with the token). Last, as they change
the task: a blocking reload for a part that does not come (the worker paused with SIGSTOP, as a
stalled encoder) is a 503 after three target durations; and after the task ends (DELETE) a viewer
gets the final playlist at once (`#EXT-X-ENDLIST`, however far ahead the reload asks), the
segments as a VOD, and a 404 for a part past the end."""
from __future__ import annotations

import http.client
import json
import os
import re
import signal
import time
from pathlib import Path

import pytest

from livetools import TesseraServer, log_tail, side_by_side, wait_until

pytestmark = pytest.mark.live

TASK = "origin"
TOKEN = "origin-test-token"
PART = 0.333


class Origin:
    def __init__(self, server: TesseraServer):
        self.server = server

    def request(self, method: str, path: str, headers: dict | None = None, body: bytes | None = None, timeout: float = 15):
        """(status, lower-cased headers, body, seconds it took)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=timeout)
        try:
            started = time.monotonic()
            conn.request(method, path, body=body, headers=headers or {})
            r = conn.getresponse()
            data = r.read()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, data, time.monotonic() - started
        finally:
            conn.close()

    def api(self, method: str, path: str, doc=None):
        headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
        status, _, body, _ = self.request(method, path, headers, json.dumps(doc).encode() if doc is not None else None)
        return status, json.loads(body) if body else None

    def get(self, path: str, **kw):
        return self.request("GET", path, **kw)


@pytest.fixture(scope="module")
def origin(tmp_path_factory, media, clips):
    root = tmp_path_factory.mktemp("hls-origin")
    server = TesseraServer(root / "serve", media.root, extra_args=("--api-token", TOKEN))
    server.start()
    try:
        o = Origin(server)
        doc = side_by_side(TASK, clips.red, clips.blue, [])
        doc["outputs"] = [{"url": "cl/room.m3u8", "hls": {"segmentSeconds": 1}},
                          {"url": "ll/room.m3u8", "hls": {"segmentSeconds": 1, "lowLatency": {"partSeconds": PART}},
                           "thumbnails": {"intervalSeconds": 1, "width": 160}}]
        status, body = o.api("POST", "/v1/tasks", doc)
        assert status == 201, f"POST: {status} {body}\n{log_tail(server.log)}"
        o.created = body
        yield o
    finally:
        rc = server.terminate(20)
        server.kill()
        assert rc == 0, f"`tessera serve` exited with {rc}:\n{log_tail(server.log)}"


def playback(origin: Origin, index: int) -> str:
    path = origin.created["outputs"][index].get("playbackPath")
    assert path, f"output {index} has no playbackPath: {origin.created['outputs'][index]}"
    return path


def ready_playlist(origin: Origin, path: str, segments: int, timeout: float = 20) -> str:
    last = []

    def ready():
        status, _, body, _ = origin.get(path)
        last[:] = [status, body[-400:]]
        text = body.decode(errors="replace")
        return status == 200 and text.count("#EXTINF") >= segments and text

    text = wait_until(ready, timeout, 0.2)
    assert text, f"{path}: no playlist with {segments} segments within {timeout} s: {last}\n{log_tail(origin.server.log)}"
    return text


def test_each_hls_output_gets_a_viewer_key_and_a_playback_path(origin):
    paths = [playback(origin, 0), playback(origin, 1)]
    keys = []
    for path, folder in zip(paths, ("cl", "ll")):
        m = re.fullmatch(rf"/v1/tasks/{TASK}/hls/([A-Za-z0-9_-]+)/room\.m3u8", path)
        assert m, path
        keys.append(m.group(1))
    assert len(keys[0]) >= 22 and keys[0] != keys[1], keys          # ≥ 128 random bits each
    # Kept in the accepted document, so a restart or another node serves the same URL.
    status, body = origin.api("GET", f"/v1/tasks/{TASK}/document")
    assert status == 200, body
    text = json.dumps(body)
    assert all(k in text for k in keys), f"the document does not keep the viewer keys: {text[:800]}"
    # The API itself still wants the token; the origin does not.
    assert origin.get(f"/v1/tasks/{TASK}")[0] == 401


def test_classic_playlist_and_media_through_the_origin(origin):
    path = playback(origin, 0)
    text = ready_playlist(origin, path, 2)
    status, headers, body, _ = origin.get(path, headers={"Origin": "https://shop.example"})
    assert status == 200
    assert headers["content-type"] == "application/vnd.apple.mpegurl"
    assert headers["cache-control"] == "max-age=1"
    assert headers["access-control-allow-origin"] == "*"
    assert "access-control-expose-headers" in headers
    base = path.rsplit("/", 1)[0]
    segment = next(line for line in text.splitlines() if line and not line.startswith("#"))
    status, headers, body, _ = origin.get(f"{base}/{segment}")
    assert status == 200 and len(body) > 1000, (status, len(body))
    assert headers["content-type"] in ("video/iso.segment", "video/mp2t"), headers
    assert headers["cache-control"] == "public, max-age=31536000, immutable"
    init = re.search(r'#EXT-X-MAP:URI="([^"]+)"', text)
    if init:
        status, headers, _, _ = origin.get(f"{base}/{init.group(1)}")
        assert status == 200 and headers["content-type"] == "video/mp4"
    # A classic playlist offers no blocking reload: the directives are ignored, not held.
    status, _, _, took = origin.get(path + "?_HLS_msn=99999")
    assert status == 200 and took < 1, (status, took)


def test_wrong_keys_and_other_files_are_the_same_404(origin):
    path = playback(origin, 1)
    ready_playlist(origin, path, 1)
    key = path.split("/")[5]
    bodies = set()
    for wrong in (path.replace(key, key[:-1] + ("A" if key[-1] != "A" else "B")),
                  path.replace(key, key[:-1]),
                  path.replace("/room.m3u8", "/serve.log"),
                  path.replace("/room.m3u8", "/..%2F..%2Fserve.log"),
                  path.replace("/room.m3u8", "/room_99999.0.m4s"),
                  path.replace(f"/{TASK}/", "/nosuchtask/")):
        status, headers, body, _ = origin.get(wrong)
        assert status == 404, (wrong, status)
        assert headers.get("access-control-allow-origin") == "*"
        bodies.add(body)
    assert len(bodies) == 1, bodies
    # The other output's key does not open this one's files: each key selects its own folder.
    other = playback(origin, 0).split("/")[5]
    status, _, body, _ = origin.get(path.replace(key, other))
    assert status == 200 and b"#EXT-X-PART" not in body


def test_preflight(origin):
    status, headers, _, _ = origin.request("OPTIONS", playback(origin, 1), headers={
        "Origin": "https://shop.example", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "range"})
    assert status == 204, status
    assert headers["access-control-allow-origin"] == "*"
    assert "GET" in headers["access-control-allow-methods"]
    assert headers["access-control-allow-headers"].lower() == "range"


def next_part(text: str) -> tuple[int, int, str]:
    """(msn, part index, URI) of the part the playlist's preload hint names."""
    hint = re.search(r'#EXT-X-PRELOAD-HINT:TYPE=PART,URI="([^"]+)"', text)
    assert hint, text[-500:]
    m = re.search(r"_(\d+)\.(\d+)\.m4s$", hint.group(1))
    return int(m.group(1)), int(m.group(2)), hint.group(1)


def test_blocking_reload_and_hinted_part_are_held_until_written(origin):
    path = playback(origin, 1)
    text = ready_playlist(origin, path, 1)
    assert "CAN-BLOCK-RELOAD=YES" in text
    target = int(re.search(r"#EXT-X-TARGETDURATION:(\d+)", text).group(1))
    held = []
    for _ in range(3):
        status, _, body, _ = origin.get(path)
        msn, part, uri = next_part(body.decode())
        status, headers, body, took = origin.get(f"{path}?_HLS_msn={msn}&_HLS_part={part}")
        assert status == 200, (status, body[:300])
        assert f'"{uri}"' in body.decode(), f"the reload for {msn}.{part} came back without it"
        assert took <= 3 * PART + 0.5, f"held {took:.3f} s for a part of {PART} s"
        assert headers["cache-control"] == f"max-age={6 * target}", headers
        held.append(took)
    assert sum(t >= 0.05 for t in held) >= 2, f"the reloads were not held: {held}"
    # The hinted part: asked before it exists, sent once written.
    status, _, body, _ = origin.get(path)
    msn, part, uri = next_part(body.decode())
    status, headers, data, took = origin.get(path.rsplit("/", 1)[0] + "/" + uri)
    assert status == 200 and len(data) > 100, (status, len(data))
    assert headers["content-type"] == "video/iso.segment"
    assert took <= 3 * PART + 0.5, took


def test_bad_directives_are_400_and_a_delta_update_skips(origin):
    path = playback(origin, 1)
    assert origin.get(path + "?_HLS_part=1")[0] == 400
    assert origin.get(path + "?_HLS_msn=99999")[0] == 400
    # Garbage and numbers past 64 bits: a 400 naming the parameter, and the server still answers.
    for query, name in (("_HLS_msn=1&_HLS_part=99999999999999999999999", "_HLS_part"), ("_HLS_msn=-1", "_HLS_msn"),
                        ("_HLS_msn=0x10", "_HLS_msn"), ("_HLS_msn=1&_HLS_msn=2", "_HLS_msn"), ("_HLS_skip=no", "_HLS_skip")):
        status, _, body, _ = origin.get(f"{path}?{query}")
        assert status == 400 and json.loads(body)["error"]["message"].startswith(name), (query, status, body[:200])
    assert origin.get(path)[0] == 200
    # CAN-SKIP-UNTIL is six target durations: wait until the playlist is longer than that.
    text = ready_playlist(origin, path, 9, timeout=30)
    msn, part, _ = next_part(text)
    status, _, body, _ = origin.get(f"{path}?_HLS_msn={msn}&_HLS_part={part}&_HLS_skip=YES")
    assert status == 200
    delta = body.decode()
    assert "#EXT-X-SKIP:SKIPPED-SEGMENTS=" in delta, delta[:600]
    assert delta.count("#EXTINF") < text.count("#EXTINF")


def test_latest_thumbnail(origin):
    assert origin.get(f"/v1/tasks/{TASK}/thumbnail.jpg")[0] == 401
    headers = {"Authorization": f"Bearer {TOKEN}"}
    got = wait_until(lambda: (r := origin.get(f"/v1/tasks/{TASK}/thumbnail.jpg", headers=headers))[0] == 200 and r, 10, 0.3)
    assert got, f"no thumbnail: {origin.get(f'/v1/tasks/{TASK}/thumbnail.jpg', headers=headers)[:3]}"
    _, headers, data, _ = got
    assert headers["content-type"] == "image/jpeg" and data[:2] == b"\xff\xd8"


def worker_pids(origin: Origin) -> list[int]:
    pids = [p for p in origin.server.workers() if b"worker" in Path(f"/proc/{p}/cmdline").read_bytes()]
    assert pids, f"no worker process under serve {origin.server.pid}"
    return pids


def test_a_part_that_never_comes_is_503_after_three_target_durations(origin):
    """The worker paused (a stalled encoder): the hinted part is not written, and the blocking
    reload for it is released with 503 after three target durations (1 s each here), not before."""
    path = playback(origin, 1)
    text = ready_playlist(origin, path, 1)
    target = int(re.search(r"#EXT-X-TARGETDURATION:(\d+)", text).group(1))
    pids = worker_pids(origin)
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    try:
        # Read after the pause: the playlist no longer moves, its hint names a part never written.
        _, _, body, _ = origin.get(path)
        msn, part, _ = next_part(body.decode())
        status, headers, body, took = origin.get(f"{path}?_HLS_msn={msn}&_HLS_part={part}", timeout=20)
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGCONT)
    assert status == 503, (status, body[:300])
    assert 2.5 * target <= took <= 4.5 * target, f"503 after {took:.2f} s, target duration {target} s"
    assert headers["cache-control"] == "no-store" and headers["access-control-allow-origin"] == "*"
    assert "three target durations" in json.loads(body)["error"]["message"]
    # The worker goes on: the next part comes.
    assert ready_playlist(origin, path, 1)


def test_after_the_task_ends_viewers_get_the_final_playlist_at_once(origin):
    """What a production origin does once the stream is over: the playlist with #EXT-X-ENDLIST
    (no parts, no hint) at once for any reload, however far ahead it asks (a player then stops
    polling; a 400 or a hold would only make it retry), the segments still served as a VOD while
    the task is known (DELETE stops it; its viewer key keeps working), a part past the end a 404."""
    path = playback(origin, 1)
    status, final = origin.api("DELETE", f"/v1/tasks/{TASK}")
    assert status == 200 and final["state"] == "stopped", final
    status, headers, body, took = origin.get(path)
    text = body.decode()
    assert status == 200 and "#EXT-X-ENDLIST" in text and "#EXT-X-PRELOAD-HINT" not in text, text[-400:]
    last = int(re.search(r"#EXT-X-MEDIA-SEQUENCE:(\d+)", text).group(1)) + text.count("#EXTINF") - 1
    for ahead in (1, 50):
        status, headers, body, took = origin.get(f"{path}?_HLS_msn={last + ahead}&_HLS_part=0")
        assert status == 200 and took < 1, (ahead, status, took, body[:200])
        assert "#EXT-X-ENDLIST" in body.decode()
    base = path.rsplit("/", 1)[0]
    segment = [line for line in text.splitlines() if line and not line.startswith("#")][-1]
    status, _, data, _ = origin.get(f"{base}/{segment}")
    assert status == 200 and len(data) > 1000, (segment, status, len(data))
    never = f"room_{last + 1:05d}.0.m4s"           # the part after the last: no hint names it any more
    status, _, _, took = origin.get(f"{base}/{never}")
    assert status == 404 and took < 1, (never, status, took)
