"""LL-HLS files as the worker writes them (issue 33, item 1), without the origin: `tessera mix`
writes an HLS output with `lowLatency`, and what it leaves on disk is read as the specification
and players do. Paced in real time, the live playlist is read while it grows (parsed by PyPI's
`m3u8`): every part within PART-TARGET, parts adding up to their segment's EXTINF, INDEPENDENT
exactly on parts that start with a keyframe (ffprobe on init + part), each segment file its parts'
bytes in order, SERVER-CONTROL and the preload hint as RFC 8216bis asks; the end leaves a VOD
(EXT-X-ENDLIST, no parts) that the ffmpeg CLI plays whole. A ladder (a 15 fps rendition beside the
30 fps main) cuts its parts on the same frames in every variant."""
from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import m3u8
import pytest

from helpers import TESSERA_BIN, ffprobe, run_tessera
from livetools import log_tail, wait_until
from test_s3_output import download_prefix, keys_under, moto, object_text, servers, small_hls, start_server  # noqa: F401 (fixtures)

pytestmark = pytest.mark.live

W, H, FPS = 320, 180, 30
PART = 0.333
SECONDS = 5


def make_clip(path: Path) -> None:
    r = subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y",
                        "-f", "lavfi", "-i", f"testsrc2=s={W}x{H}:r={FPS}:d={SECONDS}",
                        "-f", "lavfi", "-i", f"sine=f=440:d={SECONDS}:sample_rate=48000",
                        "-c:v", "libx264", "-preset", "ultrafast", "-g", str(FPS), "-c:a", "aac", "-shortest", str(path)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def task(pace: str, renditions: list | None = None) -> dict:
    video = {"width": W, "height": H, "fps": FPS, "gopSeconds": 1, "preset": "ultrafast"}
    if renditions:
        video["renditions"] = renditions
    extra = {"maxDurationSeconds": SECONDS} if pace == "realtime" else {}
    return {"taskId": "llfiles", "pace": pace, **extra,
            "inputs": [{"id": "clip", "url": "clip.mp4", "loop": pace == "realtime"}],
            "encoder": {"video": video, "audio": {"sampleRate": 48000, "channels": 2, "bitrateKbps": 96}},
            "layout": {"regions": [{"input": "clip", "x": 0, "y": 0, "width": W, "height": H}]},
            "outputs": [{"url": "ll/room.m3u8", "hls": {"segmentSeconds": 1, "lowLatency": {"partSeconds": PART}}}]}


def starts_with_keyframe(init: Path, part: Path, tmp: Path) -> bool:
    probe = tmp / ("probe-" + part.name + ".mp4")
    probe.write_bytes(init.read_bytes() + part.read_bytes())
    r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=flags",
                        "-read_intervals", "%+#1", "-of", "csv=p=0", str(probe)], capture_output=True, text=True)
    return r.stdout.strip().startswith("K")


def played_seconds(playlist: Path) -> float:
    """What the ffmpeg CLI decodes from the playlist, as a classic HLS player would play it."""
    r = subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-i", str(playlist),
                        "-map", "0:v:0", "-f", "null", "-", "-progress", "pipe:1"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr[-2000:]
    frames = [int(line.split("=")[1]) for line in r.stdout.splitlines() if line.startswith("frame=")]
    return frames[-1] / FPS


def test_live_playlist_parts_follow_the_specification(tmp_path):
    make_clip(tmp_path / "clip.mp4")
    out = tmp_path / "out"
    (tmp_path / "task.json").write_text(json.dumps(task("realtime")))
    playlist = out / "ll" / "room.m3u8"
    process = subprocess.Popen([str(TESSERA_BIN), "mix", str(tmp_path / "task.json"), "--media-root", str(tmp_path),
                                "--output-dir", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL)
    snapshots: list[str] = []
    try:
        started = time.monotonic()
        while process.poll() is None and time.monotonic() - started < 40:
            if playlist.exists():
                text = playlist.read_text()
                if "#EXT-X-ENDLIST" not in text and (not snapshots or snapshots[-1] != text):
                    snapshots.append(text)
            time.sleep(0.05)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, stderr.decode(errors="replace")[-3000:]
    assert len(snapshots) >= 5, f"only {len(snapshots)} live playlists seen"
    folder = playlist.parent
    init = folder / "room_init.mp4"
    assert init.exists()

    live = snapshots[-1]
    pl = m3u8.loads(live)
    target = pl.part_inf.part_target
    # Whole frames within partSeconds: 9 frames of 30 fps for 0.333.
    assert target == pytest.approx(9 / FPS, abs=1e-5)
    assert pl.server_control.can_block_reload == "YES", live
    assert pl.server_control.part_hold_back >= 3 * target - 1e-6, live
    assert pl.server_control.can_skip_until >= 6 * pl.target_duration, live
    assert pl.version == 9 and pl.playlist_type == "event"
    assert pl.preload_hint and pl.preload_hint.hint_type == "PART", live
    last = [p.uri for s in pl.segments for p in s.parts][-1]
    sequence, index = last[len("room_"):-len(".m4s")].split(".")
    assert pl.preload_hint.uri in (f"room_{sequence}.{int(index) + 1}.m4s", f"room_{int(sequence) + 1:05d}.0.m4s"), live
    checked_parts = 0
    for text in snapshots:
        for seg in m3u8.loads(text).segments:
            for part in seg.parts:
                assert part.duration <= target + 1e-6, f"{part.uri} lasts {part.duration} > PART-TARGET {target}"
    complete = [s for s in pl.segments if s.uri and s.parts]
    assert complete, live
    for seg in complete:
        assert seg.program_date_time is not None, f"{seg.uri} has no EXT-X-PROGRAM-DATE-TIME"
        assert sum(p.duration for p in seg.parts) == pytest.approx(seg.duration, abs=0.002), f"{seg.uri}: parts != EXTINF"
        joined = b"".join((folder / p.uri).read_bytes() for p in seg.parts)
        assert (folder / seg.uri).read_bytes() == joined, f"{seg.uri} is not its parts' bytes in order"
        for part in seg.parts:
            key = starts_with_keyframe(init, folder / part.uri, tmp_path)
            assert bool(part.independent) == key, f"{part.uri}: INDEPENDENT={part.independent}, keyframe={key}"
            checked_parts += 1
    assert checked_parts >= 4

    vod = playlist.read_text()
    assert vod.rstrip().endswith("#EXT-X-ENDLIST") and "#EXT-X-PART:" not in vod and "PRELOAD-HINT" not in vod, vod
    total = sum(s.duration for s in m3u8.loads(vod).segments)
    assert total == pytest.approx(SECONDS, abs=0.5), vod
    assert played_seconds(playlist) == pytest.approx(total, abs=0.2)
    streams = {s["codec_type"] for s in ffprobe(playlist)["streams"]}
    assert streams == {"video", "audio"}, streams
    print(f"\n{len(snapshots)} live playlists, {checked_parts} parts checked, VOD {total:.3f} s")


def test_ladder_cuts_parts_on_the_same_frames(tmp_path):
    make_clip(tmp_path / "clip.mp4")
    out = tmp_path / "out"
    (tmp_path / "task.json").write_text(json.dumps(task("asap", [{"width": 160, "height": 90, "bitrateKbps": 200, "fps": 15}])))
    r = run_tessera(["mix", tmp_path / "task.json", "--media-root", tmp_path, "--output-dir", out], timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    folder = out / "ll"
    master = m3u8.loads((folder / "room.m3u8").read_text())
    assert master.is_variant and sorted(p.uri for p in master.playlists) == ["room_r0.m3u8", "room_r1.m3u8"]
    parts = {}
    for variant in ("room_r0", "room_r1"):
        names = sorted(p.name[len(variant) + 1:] for p in folder.glob(f"{variant}_*.*.m4s"))
        parts[variant] = names
        vod = m3u8.loads((folder / f"{variant}.m3u8").read_text())
        assert vod.is_endlist and sum(s.duration for s in vod.segments) == pytest.approx(SECONDS, abs=0.2)
        for seg in vod.segments:
            sequence = seg.uri[len(variant) + 1:-len(".m4s")]
            pieces = sorted(folder.glob(f"{variant}_{sequence}.*.m4s"), key=lambda p: int(p.name.split(".")[-2]))
            assert pieces and (folder / seg.uri).read_bytes() == b"".join(p.read_bytes() for p in pieces), seg.uri
    assert parts["room_r0"] == parts["room_r1"] and len(parts["room_r0"]) >= 10, parts
    assert played_seconds(folder / "room_r0.m3u8") == pytest.approx(SECONDS, abs=0.3)


def test_s3_takes_segments_and_a_playlist_without_parts(tmp_path, media, monkeypatch, moto, clips, servers):
    """s3:// LL-HLS: the store gets the init, the whole segments and a classic playlist naming them
    (parts stay in the spool: a bucket cannot answer blocking reloads), ENDLIST at the end."""
    srv = start_server(servers, tmp_path, media, monkeypatch, moto.url)
    api, s3 = srv.client, moto.client()
    api.create(small_hls("llhls-s3", clips.red, "s3://rec/ll/show.m3u8",
                         {"segmentSeconds": 1, "lowLatency": {"partSeconds": 0.5}}))

    def playlist():
        return object_text(s3, "rec", "ll/show.m3u8")

    assert wait_until(lambda: playlist().count("#EXTINF") >= 3, 20), f"{playlist()!r}\n{log_tail(srv.log)}"
    live = playlist()
    assert "#EXT-X-PART" not in live and "PRELOAD-HINT" not in live and "#EXT-X-ENDLIST" not in live, live
    keys = keys_under(s3, "rec", "ll/")
    listed = [line for line in live.splitlines() if line and not line.startswith("#")]
    assert listed and all(f"ll/{name}" in keys for name in listed) and "ll/show_init.mp4" in keys, (listed, keys)
    assert api.delete("/v1/tasks/llhls-s3").status == 200
    assert wait_until(lambda: "#EXT-X-ENDLIST" in playlist(), 15), playlist()
    local = download_prefix(s3, "rec", "ll/", tmp_path / "ll")
    vod = m3u8.loads((local / "show.m3u8").read_text())
    total = sum(s.duration for s in vod.segments)
    assert total >= 3 and played_seconds(local / "show.m3u8") == pytest.approx(total, abs=0.3)
