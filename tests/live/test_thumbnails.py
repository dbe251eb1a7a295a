"""Thumbnails for scrub bars (issue 33, item 4): `outputs[].thumbnails` writes a JPEG of the
composite every interval, tiles them into sprite sheets and writes a WebVTT track pointing into
them. Checked as a player would read them: the JPEGs and sheets decoded by the ffmpeg CLI (JFIF's
own colours, BT.601 full range), the track parsed as text, each colour compared with the
composite (the HLS output itself, decoded) at the thumbnail's time. One run paced in real time
checks that the latest thumbnail is replaced while the task runs."""
from __future__ import annotations

import json
import math
import re
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

from helpers import BLUE, CYAN, GREEN, MAGENTA, RED, TESSERA_BIN, YELLOW, decode_video, ffprobe, run_tessera

pytestmark = pytest.mark.live

W, H, FPS = 640, 360, 30
# The input's colours: the first for 1 s, then 2 s each, so every thumbnail (0, 2, 4, ... s)
# falls in the middle of one colour, a second from either change.
SPANS = [(RED, 1), (GREEN, 2), (BLUE, 2), (YELLOW, 2), (MAGENTA, 2), (CYAN, 1)]
NAMED = {"red": RED, "green": GREEN, "blue": BLUE, "yellow": YELLOW, "magenta": MAGENTA, "cyan": CYAN,
         "black": (0, 0, 0)}
TW, TH = 160, 90


def colour_at(seconds: float):
    start = 0.0
    for rgb, length in SPANS:
        if seconds < start + length:
            return rgb
        start += length
    return SPANS[-1][0]


def name(rgb) -> str:
    return min(NAMED, key=lambda n: float(np.max(np.abs(np.asarray(NAMED[n], dtype=float) - rgb))))


def make_clip(path: Path) -> None:
    inputs, labels = [], []
    for i, (rgb, seconds) in enumerate(SPANS):
        inputs += ["-f", "lavfi", "-i", f"color=c=0x{rgb[0]:02x}{rgb[1]:02x}{rgb[2]:02x}:s={W}x{H}:r={FPS}:d={seconds}"]
        labels.append(f"[{i}:v]")
    graph = "".join(labels) + f"concat=n={len(SPANS)}:v=1:a=0,format=yuv420p[v]"
    r = subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", *inputs, "-filter_complex", graph,
                        "-map", "[v]", "-c:v", "libx264", "-preset", "ultrafast", "-g", str(FPS), str(path)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def jpeg_rgb(path: Path) -> np.ndarray:
    """The picture as R'G'B', decoded by ffmpeg as any JPEG reader would (rows x columns x 3)."""
    info = ffprobe(path)["streams"][0]
    w, h = int(info["width"]), int(info["height"])
    r = subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-i", str(path), "-f", "rawvideo",
                        "-pix_fmt", "rgb24", "-"], capture_output=True, timeout=30)
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    return np.frombuffer(r.stdout, dtype=np.uint8).reshape(h, w, 3).astype(np.float64)


def centre(rgb: np.ndarray, x: int = 0, y: int = 0, w: int | None = None, h: int | None = None) -> np.ndarray:
    w = w or rgb.shape[1]
    h = h or rgb.shape[0]
    cx, cy = x + w // 2, y + h // 2
    return rgb[cy - 4:cy + 4, cx - 4:cx + 4].reshape(-1, 3).mean(axis=0)


def parse_vtt(text: str) -> list[tuple[float, float, str, tuple[int, int, int, int]]]:
    assert text.startswith("WEBVTT"), text[:40]
    def seconds(stamp: str) -> float:
        h, m, s = stamp.split(":")
        return int(h) * 3600 + int(m) * 60 + float(s)
    cues = []
    for m in re.finditer(r"(\d\d:\d\d:\d\d\.\d\d\d) --> (\d\d:\d\d:\d\d\.\d\d\d)\n([^#\n]+)#xywh=(\d+),(\d+),(\d+),(\d+)", text):
        cues.append((seconds(m[1]), seconds(m[2]), m[3], tuple(int(m[i]) for i in range(4, 8))))
    return cues


def task(outputs: list[dict], pace: str = "asap") -> dict:
    return {"taskId": "thumbs", "pace": pace,
            "inputs": [{"id": "clip", "url": "colours.mp4"}],
            "encoder": {"video": {"width": W, "height": H, "fps": FPS, "gopSeconds": 1, "preset": "ultrafast"}},
            "layout": {"regions": [{"input": "clip", "x": 0, "y": 0, "width": W, "height": H}]},
            "outputs": outputs}


def test_thumbnails_sprites_and_track_match_the_composite(tmp_path):
    make_clip(tmp_path / "colours.mp4")
    out = tmp_path / "out"
    doc = task([{"url": "hls/room.m3u8", "thumbnails": {"intervalSeconds": 2, "width": TW}}])
    (tmp_path / "task.json").write_text(json.dumps(doc))
    r = run_tessera(["mix", tmp_path / "task.json", "--media-root", tmp_path, "--output-dir", out], timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    folder = out / "hls"
    problems: list[str] = []
    duration = float(ffprobe(folder / "room.m3u8")["format"]["duration"])
    composite = decode_video(folder / "room.m3u8", W, H)
    thumbs = sorted(folder.glob("room_thumb_[0-9]*.jpg"))
    expected = math.ceil(len(composite) / (2 * FPS))
    if [p.name for p in thumbs] != [f"room_thumb_{k + 1:05d}.jpg" for k in range(expected)]:
        problems.append(f"{len(composite)} frames: expected {expected} thumbnails, got {[p.name for p in thumbs]}")
    seen = []
    for k, path in enumerate(thumbs):
        rgb = jpeg_rgb(path)
        if rgb.shape != (TH, TW, 3):
            problems.append(f"{path.name} is {rgb.shape[1]}x{rgb.shape[0]}, not {TW}x{TH}")
        got = centre(rgb)
        frame = k * 2 * FPS
        shown = composite[frame].rgb_at(W // 2, H // 2, 4) if frame < len(composite) else None
        seen.append(name(got))
        if name(got) != name(colour_at(2 * k)) or (shown is not None and name(shown) != name(got)):
            problems.append(f"{path.name}: centre {got.round()} ({name(got)}); the composite at {2 * k} s shows "
                            f"{None if shown is None else name(shown)}, the input {name(colour_at(2 * k))}")
        if float(np.max(np.abs(got - np.asarray(colour_at(2 * k), dtype=float)))) > 16:
            problems.append(f"{path.name}: centre {got.round()} is not {colour_at(2 * k)} within 16")
    latest = folder / "room_thumb_latest.jpg"
    if not latest.exists() or (thumbs and latest.read_bytes() != thumbs[-1].read_bytes()):
        problems.append("room_thumb_latest.jpg is not the last thumbnail")
    cues = parse_vtt((folder / "room_thumbnails.vtt").read_text())
    if len(cues) != len(thumbs):
        problems.append(f"{len(cues)} cues for {len(thumbs)} thumbnails")
    for k, (start, end, sheet, (x, y, w, h)) in enumerate(cues):
        if abs(start - 2 * k) > 0.001 or (k + 1 < len(cues) and abs(end - 2 * (k + 1)) > 0.001):
            problems.append(f"cue {k}: {start}-{end} s, not from {2 * k} s")
        if sheet != "room_sprite_00001.jpg" or (w, h) != (TW, TH) or (x, y) != (k % 5 * TW, k // 5 * TH):
            problems.append(f"cue {k}: {sheet}#xywh={x},{y},{w},{h}")
            continue
        tile = centre(jpeg_rgb(folder / sheet), x, y, w, h)
        if k < len(seen) and name(tile) != seen[k]:
            problems.append(f"cue {k}: the sprite's tile shows {name(tile)} {tile.round()}, the thumbnail {seen[k]}")
    if cues and (cues[0][0] != 0 or abs(cues[-1][1] - duration) > 0.1):
        problems.append(f"the track covers {cues[0][0]}-{cues[-1][1]} s, the playlist lasts {duration:.3f} s")
    leftovers = [p.name for p in folder.iterdir() if p.name.endswith(".part")]
    if leftovers:
        problems.append(f"files left aside: {leftovers}")
    print(f"\n{len(thumbs)} thumbnails {seen}, {len(cues)} cues over {duration:.3f} s")
    assert not problems, "\n".join(problems)


def test_latest_thumbnail_is_replaced_while_live(tmp_path):
    make_clip(tmp_path / "colours.mp4")
    out = tmp_path / "out"
    doc = task([{"url": "rec.mp4", "thumbnails": {"intervalSeconds": 1, "width": TW}}], pace="realtime")
    # Live, a task outlives its inputs (their regions go black): end it with the clip.
    doc["maxDurationSeconds"] = 10
    (tmp_path / "task.json").write_text(json.dumps(doc))
    latest = out / "rec_thumb_latest.jpg"
    process = subprocess.Popen([str(TESSERA_BIN), "mix", str(tmp_path / "task.json"), "--media-root", str(tmp_path),
                                "--output-dir", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL)
    seen: list[tuple[float, str]] = []
    started = time.monotonic()
    try:
        last = None
        while process.poll() is None and time.monotonic() - started < 30:
            if latest.exists():
                data = latest.read_bytes()
                if data != last:
                    last = data
                    part = tmp_path / "latest.jpg"
                    part.write_bytes(data)
                    seen.append((round(time.monotonic() - started, 2), name(centre(jpeg_rgb(part)))))
            time.sleep(0.2)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, stderr.decode(errors="replace")[-3000:]
    colours = [c for _, c in seen if c != "black"]
    distinct = list(dict.fromkeys(colours))
    # Every read while running was a whole JPEG (replaced by rename), and it followed the input.
    assert len(distinct) >= 4 and distinct == [n for n in ("red", "green", "blue", "yellow", "magenta", "cyan") if n in distinct], seen
    print(f"\nlatest while running: {seen}")


def test_s3_hls_output_uploads_its_thumbnails(tmp_path, media, monkeypatch, clips):
    """An s3:// HLS output's thumbnails, sheets and track go up with its segments, the track after
    the sheets it names."""
    pytest.importorskip("boto3")
    from test_s3_output import Moto, recording, start_server
    store = Moto(tmp_path)
    servers: list = []
    try:
        s3 = store.client()
        s3.create_bucket(Bucket="thumbs")
        srv = start_server(servers, tmp_path, media, monkeypatch, store.url)
        doc = recording("thumbs-s3", clips.red, [{"url": "s3://thumbs/live/show.m3u8", "hls": {"segmentSeconds": 1},
                                                  "thumbnails": {"intervalSeconds": 1, "width": TW}}])
        doc["encoder"]["video"].update(width=320, height=240, bitrateKbps=600)
        doc["layout"]["regions"][0].update(width=320, height=240)
        srv.client.create(doc)

        def keys() -> set[str]:
            return {o["Key"] for o in s3.list_objects_v2(Bucket="thumbs", Prefix="live/").get("Contents", [])}

        assert wait_for(lambda: "live/show_thumb_00003.jpg" in keys(), 20), sorted(keys())
        assert srv.client.delete("/v1/tasks/thumbs-s3").status == 200
        status = {}
        def uploaded() -> bool:
            nonlocal status
            status = srv.client.status("thumbs-s3")["outputs"][0]
            return status.get("uploads", [{}])[0].get("state") == "uploaded"
        assert wait_for(uploaded, 20), status
        stored = keys()
        track = s3.get_object(Bucket="thumbs", Key="live/show_thumbnails.vtt")["Body"].read().decode()
        cues = parse_vtt(track)
        numbered = sorted(k for k in stored if re.fullmatch(r"live/show_thumb_\d{5}\.jpg", k))
        assert len(cues) == len(numbered) >= 3, (len(cues), numbered)
        assert all(f"live/{sheet}" in stored for _, _, sheet, _ in cues) and "live/show_thumb_latest.jpg" in stored
        body = s3.get_object(Bucket="thumbs", Key=numbered[-1])["Body"].read()
        (tmp_path / "last.jpg").write_bytes(body)
        assert name(centre(jpeg_rgb(tmp_path / "last.jpg"))) == "red"
    finally:
        for srv in servers:
            srv.kill()
        store.stop()


def wait_for(check, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.25)
    return False
