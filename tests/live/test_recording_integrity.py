"""Recordings are never corrupted (issue 30), as a player reads them:

- an HLS playlist that two runs of a task share (the same task POSTed again after the first run
  ended, at another size) names each run's own init segment after the discontinuity between them,
  none before the first segment, and plays both runs at their own sizes without a decoding error:
  read by ffmpeg (`-v error`) and by GStreamer's HLS demuxers (fMP4 and MPEG-TS segments, and a
  renditions ladder);
- a recording paused and resumed goes on with no hole in its video or audio timestamps;
- a live task's first output frame, and a snapshot taken right after its POST, show its inputs'
  pictures, not the background.
"""
from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from helpers import BLUE, RED, decode_video, ffprobe
from livetools import FPS, H, TOL, W, decode_png_rgb, read_packets, side_by_side, wait_until

pytestmark = pytest.mark.live


# --------------------------------------------------------------------------------------------- #
# HLS: two runs over one playlist
# --------------------------------------------------------------------------------------------- #

def media_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def segment_names(text: str) -> list[str]:
    return [line for line in media_lines(text) if not line.startswith("#")]


def sized_task(task_id: str, clips, url: str, width: int, height: int, hls: dict | None = None,
               renditions: list | None = None) -> dict:
    doc = side_by_side(task_id, clips.red, clips.blue, [])
    doc["encoder"]["video"].update(width=width, height=height, gopSeconds=1)
    if renditions:
        doc["encoder"]["video"]["renditions"] = renditions
    doc["layout"] = {"backgroundColor": "#000000", "regions": [
        {"input": "red", "x": 0, "y": 0, "width": width // 2, "height": height},
        {"input": "blue", "x": width // 2, "y": 0, "width": width // 2, "height": height}]}
    doc["outputs"] = [{"url": url, **({"hls": hls} if hls else {})}]
    return doc


def run_until_segments(api, doc: dict, playlist: Path, at_least: int, timeout: float = 30) -> None:
    """POSTs `doc` (again, if its task ran before and ended), waits until `playlist` lists
    `at_least` segments, then stops the task and waits for the final playlist."""
    task_id = doc["taskId"]
    r = api.post("/v1/tasks", doc)
    assert r.status == 201, f"POST {task_id}: {r.status} {r.body[:1000]!r}"
    assert wait_until(lambda: playlist.exists() and len(segment_names(playlist.read_text())) >= at_least, timeout), \
        playlist.read_text() if playlist.exists() else f"no {playlist}"
    r = api.delete(f"/v1/tasks/{task_id}")
    assert r.status == 200, r.body
    assert wait_until(lambda: playlist.read_text().rstrip().endswith("#EXT-X-ENDLIST"), 15), playlist.read_text()


def decoding_errors(url: str) -> list[str]:
    """What `ffmpeg -v error` says while decoding every stream of `url` (nothing, for a clean one)."""
    r = subprocess.run(["ffmpeg", "-nostdin", "-hide_banner", "-v", "error", "-i", url, "-f", "null", "-"],
                       capture_output=True, text=True, timeout=180)
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    if r.returncode != 0:
        lines.append(f"ffmpeg exited with {r.returncode}")
    return lines


def frame_sizes(playlist: Path) -> list[tuple[int, int]]:
    """Each decoded frame's size, in order, as FFmpeg's HLS demuxer plays the playlist."""
    r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=width,height",
                        "-of", "csv=p=0", str(playlist)], capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr
    return [tuple(int(v) for v in line.split(",")[:2]) for line in r.stdout.split() if line]


def runs(sizes: list[tuple[int, int]]) -> list[tuple[tuple[int, int], int]]:
    """Consecutive runs of equal sizes: [(size, frames), …]."""
    out: list[tuple[tuple[int, int], int]] = []
    for size in sizes:
        if out and out[-1][0] == size:
            out[-1] = (size, out[-1][1] + 1)
        else:
            out.append((size, 1))
    return out


class FolderServer:
    """The playlist's folder over HTTP (Python's own server, in this process), as an origin or a
    CDN serves it: GStreamer's hlsdemux2 fetches over HTTP only."""

    def __init__(self, folder: Path):
        class Quiet(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                                     functools.partial(Quiet, directory=str(folder)))
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/{name}"

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def gstreamer_caps(url: str, demuxer: str) -> list[tuple[int, int]]:
    """The video sizes GStreamer negotiates, in order, playing the playlist at `url` (http)
    through `demuxer` to a fake sink: hlsdemux (plugins-bad) after souphttpsrc in a plain decodebin
    pipeline, hlsdemux2 (plugins-good, which needs a streams-aware parent) in playbin3. Any error
    fails the test."""
    if shutil.which("gst-launch-1.0") is None:
        pytest.fail("gst-launch-1.0 is not installed (scripts/install.sh)")
    if subprocess.run(["gst-inspect-1.0", demuxer], capture_output=True).returncode != 0:
        pytest.fail(f"GStreamer has no {demuxer} (scripts/install.sh: gstreamer1.0-plugins-bad / -good)")
    sink = "videoconvert ! video/x-raw,format=I420 ! fakesink name=vsink sync=false"
    if demuxer == "hlsdemux":
        args = ["souphttpsrc", f"location={url}", "!", "hlsdemux", "!", "decodebin", "!", *sink.split()]
    else:
        args = ["playbin3", f"uri={url}", f"video-sink={sink}", "audio-sink=fakesink sync=false"]
    r = subprocess.run(["gst-launch-1.0", "-v", *args], capture_output=True, text=True, timeout=120)
    text = r.stdout + r.stderr
    assert r.returncode == 0 and "ERROR" not in text, f"gst-launch {demuxer}: rc {r.returncode}\n{text[-3000:]}"
    sizes = []
    for caps in re.findall(r"GstFakeSink:vsink\.GstPad:sink: caps = (.*)", text):
        m = re.search(r"width=\(int\)(\d+), height=\(int\)(\d+)", caps)
        if m and (not sizes or sizes[-1] != (int(m[1]), int(m[2]))):
            sizes.append((int(m[1]), int(m[2])))
    return sizes


def gstreamer_plays(folder: Path, name: str, sizes: list[tuple[int, int]], demuxers=("hlsdemux", "hlsdemux2")):
    server = FolderServer(folder)
    try:
        for demuxer in demuxers:
            seen = gstreamer_caps(server.url(name), demuxer)
            if seen != sizes:
                # GStreamer 1.22's hlsdemux2 once ended this TS playlist at its discontinuity,
                # without an error, in a loaded CI run (ffmpeg and hlsdemux had just played both
                # runs; 10 plays of the same files under two CPU hogs played both). A second play
                # that also stops there fails the test.
                print(f"  {demuxer} saw {seen} on its first play, not {sizes}; playing again")
                seen = gstreamer_caps(server.url(name), demuxer)
            assert seen == sizes, demuxer
    finally:
        server.stop()


def check_two_runs(folder: Path, playlist: Path, stem: str, fmp4: bool, sizes: list[tuple[int, int]], tmp: Path):
    text = playlist.read_text()
    lines = media_lines(text)
    first_segment = next(i for i, line in enumerate(lines) if not line.startswith("#"))
    assert "#EXT-X-DISCONTINUITY" not in lines[:first_segment], f"a discontinuity before the first segment:\n{text}"
    assert lines.count("#EXT-X-DISCONTINUITY") == 1, text
    boundary = lines.index("#EXT-X-DISCONTINUITY")
    names = segment_names(text)
    assert len(set(names)) == len(names), f"a segment listed twice:\n{text}"
    maps = [line for line in lines if line.startswith("#EXT-X-MAP")]
    if fmp4:
        inits = [re.search(r'URI="([^"]+)"', line)[1] for line in maps]
        assert inits == [f"{stem}_init.mp4", f"{stem}_init_1.mp4"], text
        assert lines.index(maps[0]) < first_segment and lines[boundary + 1] == maps[1], text
        for name, (w, h) in zip(inits, sizes):
            v = [s for s in ffprobe(folder / name)["streams"] if s["codec_type"] == "video"][0]
            assert (v["width"], v["height"]) == (w, h), f"{name} is {v['width']}x{v['height']}, not {w}x{h}"
    else:
        assert not maps, text
    errors = decoding_errors(str(playlist))
    assert not errors, "ffmpeg -v error:\n" + "\n".join(errors[:20])
    played = runs(frame_sizes(playlist))
    assert [size for size, _ in played] == sizes and all(n >= 2 * FPS for _, n in played), played
    return played


@pytest.mark.parametrize("fmt", ["fmp4", "ts"])
def test_a_playlist_two_runs_share_plays_both_at_their_own_sizes(api, tessera_server, clips, tmp_path, fmt):
    url = f"hls-{fmt}/live1.m3u8"
    folder = tessera_server.out / f"hls-{fmt}"
    playlist = folder / "live1.m3u8"
    hls = {"segmentFormat": fmt}
    run_until_segments(api, sized_task("rerun", clips, url, 640, 360, hls), playlist, 3)
    first = playlist.read_text()
    first_init = (folder / "live1_init.mp4").read_bytes() if fmt == "fmp4" else None
    # The same task again, after it ended, at another size.
    run_until_segments(api, sized_task("rerun", clips, url, 320, 180, hls), playlist, len(segment_names(first)) + 3)
    if first_init is not None:
        assert (folder / "live1_init.mp4").read_bytes() == first_init, "the first run's init segment was rewritten"
    played = check_two_runs(folder, playlist, "live1", fmt == "fmp4", [(640, 360), (320, 180)], tmp_path)
    gstreamer_plays(folder, "live1.m3u8", [(640, 360), (320, 180)])
    print(f"{fmt}: frames per run {played}")


def test_a_renditions_ladder_run_twice_plays_each_variant_at_its_sizes(api, tessera_server, clips, tmp_path):
    url = "ladder/show.m3u8"
    folder = tessera_server.out / "ladder"
    variant = folder / "show_r1.m3u8"
    first = sized_task("ladder", clips, url, 640, 360, renditions=[{"width": 320, "height": 180, "bitrateKbps": 300}])
    run_until_segments(api, first, variant, 3)
    count = len(segment_names(variant.read_text()))
    second = sized_task("ladder", clips, url, 480, 270, renditions=[{"width": 240, "height": 136, "bitrateKbps": 200}])
    run_until_segments(api, second, variant, count + 3)
    check_two_runs(folder, folder / "show_r0.m3u8", "show_r0", True, [(640, 360), (480, 270)], tmp_path)
    check_two_runs(folder, variant, "show_r1", True, [(320, 180), (240, 136)], tmp_path)
    gstreamer_plays(folder, "show_r1.m3u8", [(320, 180), (240, 136)])


# --------------------------------------------------------------------------------------------- #
# Pause / resume: no hole
# --------------------------------------------------------------------------------------------- #

def holes(packets, kind: str) -> list[float]:
    """The hole before each packet of `kind` (s): its timestamp minus the previous packet's
    timestamp and nominal duration (one frame; 1024 samples at 48 kHz)."""
    step = 1 / FPS if kind == "video" else 1024 / 48000
    ts = sorted(p.pts for p in packets if p.kind == kind and p.pts is not None)
    return [b - a - step for a, b in zip(ts, ts[1:])]


def test_a_paused_recording_resumes_without_a_hole(api, tessera_server, clips):
    doc = side_by_side("hole", clips.red, clips.blue, ["rec/hole.mp4"])
    # The default preset: x264 holds pictures back (lookahead), so audio reaches the output ahead
    # of the video, as in production.
    del doc["encoder"]["video"]["preset"]
    api.create(doc)
    state = lambda: api.status("hole")["outputs"][0]["state"]  # noqa: E731
    assert wait_until(lambda: state() == "live", 10)
    time.sleep(3.0)
    r = api.patch("/v1/tasks/hole", {"outputs": [{"url": "rec/hole.mp4", "paused": True}], "sequence": 1})
    assert r.status == 200, r.body
    assert wait_until(lambda: state() == "paused", 3)
    time.sleep(3.0)
    r = api.patch("/v1/tasks/hole", {"outputs": [{"url": "rec/hole.mp4", "paused": False}], "sequence": 2})
    assert r.status == 200, r.body
    assert wait_until(lambda: state() == "live", 3)
    time.sleep(3.0)
    assert api.delete("/v1/tasks/hole").status == 200
    path = tessera_server.out / "rec" / "hole.mp4"
    packets = read_packets(path)
    video, audio = holes(packets, "video"), holes(packets, "audio")
    print(f"largest hole: video {max(video) * 1000:.1f} ms, audio {max(audio) * 1000:.1f} ms; "
          f"overlap: video {min(video) * 1000:.1f} ms, audio {min(audio) * 1000:.1f} ms")
    assert max(video) <= 1 / FPS + 0.002, f"video hole {max(video) * 1000:.0f} ms at the resume"
    assert max(audio) <= 1024 / 48000 + 0.002, f"audio hole {max(audio) * 1000:.0f} ms at the resume"
    assert min(video) > -0.002 and min(audio) > -0.002, "packets overlap"
    duration = float(ffprobe(path)["format"]["duration"])
    assert 4.5 < duration < 8.0, duration


# --------------------------------------------------------------------------------------------- #
# No blank first picture
# --------------------------------------------------------------------------------------------- #

def shows_inputs(rgb_at) -> str | None:
    """None when the left region's centre is red and the right one's blue."""
    for (x, y), expected in (((W // 4, H // 2), RED), ((3 * W // 4, H // 2), BLUE)):
        got = np.asarray(rgb_at(x, y), dtype=np.float64)
        if float(np.max(np.abs(got - np.asarray(expected, dtype=np.float64)))) > TOL:
            return f"({x},{y}) {np.round(got)} instead of {expected}"
    return None


def test_the_first_frame_and_an_early_snapshot_show_the_inputs(api, tessera_server, clips, tmp_path):
    doc = side_by_side("first", clips.red, clips.blue, ["rec/first.mp4"])
    posted = time.monotonic()
    api.create(doc)
    # A snapshot right after the POST: the next frame to leave, which is the first.
    r = api.get("/v1/tasks/first/snapshot.png")
    waited = time.monotonic() - posted
    assert r.status == 200, r.status
    rgb = decode_png_rgb(r.body, tmp_path / "early.png")
    wrong = shows_inputs(lambda x, y: rgb[y - 2:y + 2, x - 2:x + 2].reshape(-1, 3).mean(axis=0))
    assert wrong is None, f"snapshot {waited:.2f} s after POST: {wrong}"
    time.sleep(2.0)
    assert api.delete("/v1/tasks/first").status == 200
    path = tessera_server.out / "rec" / "first.mp4"
    frames = decode_video(path, W, H)
    for index in range(3):
        wrong = shows_inputs(frames[index].rgb_at)
        assert wrong is None, f"frame {index}: {wrong}"
    log = (tessera_server.root / "serve.log").read_text(errors="replace")
    m = re.search(r"tessera worker first: output frame 0 at CLOCK_MONOTONIC [0-9.]+ s, (\d+) ms after", log)
    assert m, "no first-frame line in the log"
    print(f"snapshot answered {waited * 1000:.0f} ms after POST; first frame {m[1]} ms after the task clock's zero")
    assert int(m[1]) <= 1200


def test_an_s3_playlist_two_runs_share_goes_up_with_both_init_segments(tmp_path, media, monkeypatch, clips):
    """The `s3://` mirror of an HLS output sends each run's own init segment: the store's copy,
    downloaded as a CDN would serve it, plays both runs at their own sizes."""
    from test_s3_output import Moto, start_server  # moto's S3 server, as the object-storage tests run it

    (tmp_path / "moto").mkdir()
    store = Moto(tmp_path / "moto")
    servers = []
    try:
        store.client().create_bucket(Bucket="rec")
        srv = start_server(servers, tmp_path, media, monkeypatch, store.url)
        api, s3 = srv.client, store.client()
        url = "s3://rec/again/show.m3u8"

        def playlist() -> str:
            try:
                return s3.get_object(Bucket="rec", Key="again/show.m3u8")["Body"].read().decode()
            except s3.exceptions.NoSuchKey:
                return ""

        for size in ((320, 240), (256, 144)):
            at_least = len(segment_names(playlist())) + 3
            doc = sized_task("s3-again", clips, url, *size, {"segmentSeconds": 1})
            r = api.post("/v1/tasks", doc)
            assert r.status == 201, r.body
            assert wait_until(lambda: len(segment_names(playlist())) >= at_least, 30), playlist()
            assert api.delete("/v1/tasks/s3-again").status == 200
            assert wait_until(lambda: playlist().rstrip().endswith("#EXT-X-ENDLIST")
                              and api.status("s3-again")["outputs"][0]["uploads"][-1]["state"] == "uploaded", 30), \
                (playlist(), api.status("s3-again")["outputs"][0])
        local = tmp_path / "from-store"
        local.mkdir()
        for key in {o["Key"] for o in s3.list_objects_v2(Bucket="rec", Prefix="again/")["Contents"]}:
            s3.download_file("rec", key, str(local / key.split("/")[-1]))
        check_two_runs(local, local / "show.m3u8", "show", True, [(320, 240), (256, 144)], tmp_path)
        gstreamer_plays(local, "show.m3u8", [(320, 240), (256, 144)], demuxers=("hlsdemux2",))
    finally:
        for srv in servers:
            if srv.proc.poll() is None:
                srv.terminate(30)
            srv.kill()
        store.stop()


def test_a_restarted_worker_starts_on_its_inputs_pictures(api, tessera_server, clips, tmp_path):
    """A worker killed (-9) and restarted continues its HLS playlist: the new run's first segment,
    under its own init segment, starts on the inputs' pictures, and the whole playlist decodes."""
    doc = sized_task("restart", clips, "kill/room.m3u8", W, H)
    api.create(doc)
    folder = tessera_server.out / "kill"
    playlist = folder / "room.m3u8"
    assert wait_until(lambda: playlist.exists() and len(segment_names(playlist.read_text())) >= 2, 20)
    before = len(segment_names(playlist.read_text()))
    pid = api.status("restart")["workerPid"]
    os.kill(pid, signal.SIGKILL)
    assert wait_until(lambda: (st := api.status("restart")).get("workerPid") not in (None, pid)
                      and st["state"] == "running", 20), api.status("restart")
    assert wait_until(lambda: len(segment_names(playlist.read_text())) >= before + 2, 20), playlist.read_text()
    assert api.delete("/v1/tasks/restart").status == 200
    lines = media_lines(playlist.read_text())
    boundary = lines.index("#EXT-X-DISCONTINUITY")
    assert lines[boundary + 1] == '#EXT-X-MAP:URI="room_init_1.mp4"', lines
    first = next(line for line in lines[boundary:] if not line.startswith("#"))
    joined = tmp_path / "restarted.mp4"
    joined.write_bytes((folder / "room_init_1.mp4").read_bytes() + (folder / first).read_bytes())
    frame = decode_video(joined, W, H)[0]
    wrong = shows_inputs(frame.rgb_at)
    assert wrong is None, f"the restarted worker's first frame: {wrong}"
    errors = decoding_errors(str(playlist))
    assert not errors, "ffmpeg -v error:\n" + "\n".join(errors[:20])


def test_an_origin_playlist_two_runs_share_plays_both_at_their_own_sizes(api, clips, tmp_path):
    """Over HTTP (segments and playlists `PUT` to an origin, Debian's nginx): the second run reads
    the playlist back from the origin and continues it under its own init segment."""
    from test_hls_output import WebDAVOrigin  # nginx accepting PUT / DELETE, as the HLS tests run it

    if shutil.which("nginx") is None:
        pytest.fail("nginx is not installed (scripts/install.sh)")
    origin = WebDAVOrigin(tmp_path / "origin")
    try:
        url = f"http://127.0.0.1:{origin.port}/live/show.m3u8"
        playlist = origin.docs / "live" / "show.m3u8"
        run_until_segments(api, sized_task("origin", clips, url, 320, 240), playlist, 3)
        count = len(segment_names(playlist.read_text()))
        run_until_segments(api, sized_task("origin", clips, url, 256, 144), playlist, count + 3)
        check_two_runs(playlist.parent, playlist, "show", True, [(320, 240), (256, 144)], tmp_path)
    finally:
        origin.stop()


def test_a_live_window_moves_past_an_earlier_run(api, tessera_server, clips, tmp_path):
    """A `live` window: once the earlier run's segments have left it, its init segment goes too,
    the playlist counts the discontinuity it dropped, and what is listed decodes cleanly."""
    url = "window2/live1.m3u8"
    folder = tessera_server.out / "window2"
    playlist = folder / "live1.m3u8"
    hls = {"playlist": "live", "windowSegments": 3, "segmentSeconds": 1}
    run_until_segments(api, sized_task("slide", clips, url, 320, 240, hls), playlist, 3)
    assert (folder / "live1_init.mp4").exists()
    r = api.post("/v1/tasks", sized_task("slide", clips, url, 256, 144, hls))
    assert r.status == 201, r.body

    def moved_on() -> bool:
        lines = media_lines(playlist.read_text())
        return "#EXT-X-DISCONTINUITY-SEQUENCE:1" in lines and '#EXT-X-MAP:URI="live1_init.mp4"' not in lines

    assert wait_until(moved_on, 20), playlist.read_text()
    assert wait_until(lambda: not (folder / "live1_init.mp4").exists(), 5), sorted(p.name for p in folder.iterdir())
    lines = media_lines(playlist.read_text())
    assert "#EXT-X-DISCONTINUITY" not in lines and lines.count('#EXT-X-MAP:URI="live1_init_1.mp4"') == 1, lines
    assert api.delete("/v1/tasks/slide").status == 200
    errors = decoding_errors(str(playlist))
    assert not errors, "ffmpeg -v error:\n" + "\n".join(errors[:20])
    assert {size for size, _ in runs(frame_sizes(playlist))} == {(256, 144)}
