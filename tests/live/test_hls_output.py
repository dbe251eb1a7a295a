"""HLS outputs (issue 23, item 1): a live task writes `.m3u8` playlists and segments as files or
with HTTP PUT to an origin (Debian's nginx with its WebDAV module); segments are cut on the task's
keyframes, a `live` playlist slides and deletes, an `event` one keeps everything and ends as a
VOD, and a restarted worker continues the same playlist after a discontinuity without
overwriting a segment. Checked with ffprobe / ffmpeg as a player would read them."""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

from helpers import BLUE, RED, decode_video, ffprobe
from livetools import LEFT_PT, RIGHT_PT, W, H, free_port, log_tail, port_accepts, side_by_side, wait_until

pytestmark = pytest.mark.live


def playlist_entries(text: str) -> list[tuple[float, str]]:
    """(duration, URI) of each segment of a media playlist."""
    out, duration = [], None
    for line in text.splitlines():
        if line.startswith("#EXTINF:"):
            duration = float(line[len("#EXTINF:"):].split(",")[0])
        elif line and not line.startswith("#") and duration is not None:
            out.append((duration, line))
            duration = None
    return out


def first_video_packet_is_key(init: Path | None, segment: Path, tmp: Path) -> bool:
    probe_file = segment
    if init is not None:
        probe_file = tmp / ("probe-" + segment.name + ".mp4")
        probe_file.write_bytes(init.read_bytes() + segment.read_bytes())
    r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=flags",
                        "-read_intervals", "%+#1", "-of", "csv=p=0", str(probe_file)], capture_output=True, text=True)
    return r.stdout.strip().startswith("K")


def hls_task(task_id: str, clips, url: str, hls: dict | None = None) -> dict:
    doc = side_by_side(task_id, clips.red, clips.blue, [])
    doc["encoder"]["video"]["gopSeconds"] = 1
    doc["outputs"] = [{"url": url, **({"hls": hls} if hls else {})}]
    return doc


def test_event_playlist_grows_while_live_and_ends_as_a_vod(api, tessera_server, clips, tmp_path):
    api.create(hls_task("hls-event", clips, "hls/room.m3u8"))
    folder = tessera_server.out / "hls"
    playlist = folder / "room.m3u8"
    assert wait_until(lambda: playlist.exists() and len(playlist_entries(playlist.read_text())) >= 3, 15), \
        f"no playlist with 3 segments: {sorted(p.name for p in folder.glob('*')) if folder.exists() else 'no folder'}"
    live = playlist.read_text()
    assert "#EXT-X-ENDLIST" not in live and "#EXT-X-PLAYLIST-TYPE:EVENT" in live, live
    assert "#EXT-X-DISCONTINUITY" not in live, "a first run starts no discontinuity"
    init = folder / "room_init.mp4"
    assert init.exists()
    for duration, name in playlist_entries(live):
        assert duration == pytest.approx(2.0, abs=0.05), live
        assert first_video_packet_is_key(init, folder / name, tmp_path), f"{name} does not start on a keyframe"
    r = api.delete("/v1/tasks/hls-event")
    assert r.status == 200, r.body
    vod = playlist.read_text()
    assert vod.rstrip().endswith("#EXT-X-ENDLIST"), vod
    entries = playlist_entries(vod)
    assert len(entries) >= 3 and all((folder / name).exists() for _, name in entries)
    info = ffprobe(playlist)
    assert float(info["format"]["duration"]) == pytest.approx(sum(d for d, _ in entries), abs=0.2)
    frames = decode_video(playlist, W, H)
    for (x, y), rgb in ((LEFT_PT, RED), (RIGHT_PT, BLUE)):
        got = frames[-1].rgb_at(x, y, 3)
        assert float(np.max(np.abs(got - np.asarray(rgb, dtype=np.float64)))) <= 24, f"({x},{y}) {got} != {rgb}"


def test_live_window_slides_and_deletes(api, tessera_server, clips):
    api.create(hls_task("hls-live", clips, "window/room.m3u8",
                        {"playlist": "live", "windowSegments": 3, "segmentSeconds": 1, "segmentFormat": "ts"}))
    folder = tessera_server.out / "window"
    playlist = folder / "room.m3u8"
    assert wait_until(lambda: playlist.exists() and "#EXT-X-MEDIA-SEQUENCE:4" in playlist.read_text(), 15), \
        playlist.read_text() if playlist.exists() else "no playlist"
    text = playlist.read_text()
    entries = playlist_entries(text)
    assert len(entries) == 3 and all(name.endswith(".ts") for _, name in entries), text
    assert "#EXT-X-PLAYLIST-TYPE" not in text
    segments = sorted(p.name for p in folder.glob("*.ts"))
    assert "room_00000.ts" not in segments and len(segments) <= 5, segments
    for _, name in entries:
        assert first_video_packet_is_key(None, folder / name, folder), name


def test_restarted_worker_continues_the_playlist(api, tessera_server, clips):
    api.create(hls_task("hls-restart", clips, "again/room.m3u8"))
    folder = tessera_server.out / "again"
    playlist = folder / "room.m3u8"
    assert wait_until(lambda: playlist.exists() and len(playlist_entries(playlist.read_text())) >= 2, 15)
    before = {name: (folder / name).stat().st_ino for _, name in playlist_entries(playlist.read_text())}
    pid = api.status("hls-restart")["workerPid"]
    os.kill(pid, signal.SIGKILL)
    assert wait_until(lambda: (st := api.status("hls-restart")).get("workerPid") not in (None, pid)
                      and st["state"] == "running", 20), api.status("hls-restart")
    assert wait_until(lambda: len(playlist_entries(playlist.read_text())) >= len(before) + 2, 15), playlist.read_text()
    text = playlist.read_text()
    names = [name for _, name in playlist_entries(text)]
    assert names[:len(before)] == list(before), "the earlier segments are still listed first, in order"
    assert len(set(names)) == len(names), f"a segment listed twice: {names}"
    numbers = [int(re.search(r"_(\d+)\.", n).group(1)) for n in names]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers), numbers
    assert "#EXT-X-DISCONTINUITY" in text.split(names[len(before) - 1])[1], text
    for name, inode in before.items():
        assert (folder / name).stat().st_ino == inode, f"{name} was rewritten by the new worker"
    r = api.delete("/v1/tasks/hls-restart")
    assert r.status == 200 and playlist.read_text().rstrip().endswith("#EXT-X-ENDLIST")


class WebDAVOrigin:
    """Debian's nginx serving and accepting PUT / DELETE under `root` (an HLS origin)."""

    def __init__(self, root: Path):
        self.root = root
        self.docs = root / "docs"
        self.docs.mkdir(parents=True)
        self.port = free_port()
        conf = root / "nginx.conf"
        conf.write_text(f"""daemon off;
master_process off;
worker_processes 1;
pid {root}/nginx.pid;
error_log {root}/error.log info;
events {{ worker_connections 256; }}
http {{
    access_log {root}/access.log;
    client_body_temp_path {root}/body;
    proxy_temp_path {root}/proxy;
    fastcgi_temp_path {root}/fastcgi;
    uwsgi_temp_path {root}/uwsgi;
    scgi_temp_path {root}/scgi;
    server {{
        listen 127.0.0.1:{self.port};
        root {self.docs};
        location / {{
            dav_methods PUT DELETE;
            create_full_put_path on;
            dav_access user:rw group:r all:r;
            client_max_body_size 0;
        }}
    }}
}}
""")
        self.proc = subprocess.Popen(["nginx", "-p", str(root), "-c", str(conf), "-e", str(root / "error.log")],
                                     stdout=subprocess.DEVNULL, stderr=open(root / "stderr.log", "ab"))
        assert wait_until(lambda: port_accepts(self.port), 10), log_tail(root / "error.log")

    def stop(self):
        self.proc.kill()
        self.proc.wait(10)

    def puts(self) -> list[str]:
        return [line.split('"')[1] for line in (self.root / "access.log").read_text().splitlines() if '"PUT ' in line]


def test_segments_and_playlists_put_to_an_origin(api, clips, tmp_path):
    if shutil.which("nginx") is None:
        pytest.fail("nginx is not installed (scripts/install.sh)")
    origin = WebDAVOrigin(tmp_path / "origin")
    try:
        url = f"http://127.0.0.1:{origin.port}/live/room.m3u8"
        api.create(hls_task("hls-put", clips, url, {"playlist": "live", "windowSegments": 3, "segmentSeconds": 1}))
        playlist = origin.docs / "live" / "room.m3u8"
        assert wait_until(lambda: playlist.exists() and "#EXT-X-MEDIA-SEQUENCE:3" in playlist.read_text(), 15), \
            (playlist.read_text() if playlist.exists() else "no playlist", log_tail(origin.root / "error.log"))
        served = ffprobe(url)
        assert {s["codec_type"] for s in served["streams"]} == {"video", "audio"}, served
        assert any(p.endswith(".m4s HTTP/1.1") for p in origin.puts()), origin.puts()[:5]
        # The window slides at the origin too (FFmpeg's DELETE of the segments that fell out
        # carries a chunked body, which nginx refuses with 415: they stay, unlisted).
        listed = [name for _, name in playlist_entries(playlist.read_text())]
        assert len(listed) == 3 and "room_00000.m4s" not in listed, listed
        assert api.status("hls-put")["outputs"][0]["state"] == "live"
    finally:
        api.delete("/v1/tasks/hls-put")
        origin.stop()


def test_bad_hls_fields_are_named(api, clips):
    doc = side_by_side("bad-hls", clips.red, clips.blue, [])
    doc["encoder"]["video"]["gopSeconds"] = 2
    doc["outputs"] = [{"url": "a.m3u8", "hls": {"segmentSeconds": 3, "windowSegments": 4, "segmentFormat": "mp4"}},
                      {"url": "ftp://127.0.0.1/b.m3u8"}, {"url": "c.mp4", "hls": {}}]
    r = api.post("/v1/tasks", doc)
    assert r.status == 400, r.body
    paths = {issue["path"] for issue in r.json["error"]["issues"]}
    assert paths == {"outputs[0].hls.segmentSeconds", "outputs[0].hls.windowSegments", "outputs[0].hls.segmentFormat",
                     "outputs[1].url", "outputs[2].hls"}, r.json["error"]["issues"]
