"""Renditions from one composite (issue 23, item 2): the composite is drawn once, scaled to each
rendition and encoded once per rendition. An HLS output publishes every rendition under one
master playlist; an RTMP / SRT / file output takes `"rendition": N`. Checked as a viewer's player
reads them: the master's variants with their RESOLUTION / BANDWIDTH / CODECS / FRAME-RATE, each
variant's segments decoded at its size with a keyframe first and its picture where the layout
puts it, segment boundaries the same in every variant, bitrates near those asked."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from helpers import RED, decode_video, ffprobe, sine
from livetools import colour_mismatch, stream_of, wait_stream, wait_until
from test_hls_output import first_video_packet_is_key, playlist_entries

pytestmark = pytest.mark.live

MAIN = (640, 360, 1000)
LADDER = [{"width": 480, "height": 270, "bitrateKbps": 600},
          {"width": 320, "height": 180, "bitrateKbps": 300, "fps": 15}]
SIZES = [MAIN[:2]] + [(r["width"], r["height"]) for r in LADDER]
VIDEO_KBPS = [MAIN[2]] + [r["bitrateKbps"] for r in LADDER]
AUDIO_KBPS = 64


@pytest.fixture(scope="module")
def noise(media) -> str:
    """Noise that changes every frame: every encoder spends the bitrate it is given."""
    return media.video("testsrc2=s=320x240:r=30:d=2,noise=alls=80:allf=t+u", audio=sine(1000, 2), stem="noise")


def ladder_task(task_id: str, clips, noise: str, outputs: list[dict]) -> dict:
    """Red on the left half, noise on the right, at 640x360 with two renditions below it."""
    width, height, kbps = MAIN
    return {
        "taskId": task_id,
        "inputs": [{"id": "red", "url": clips.red, "loop": True}, {"id": "noise", "url": noise, "loop": True}],
        "encoder": {"video": {"width": width, "height": height, "fps": 30, "bitrateKbps": kbps, "gopSeconds": 1,
                              "preset": "ultrafast", "renditions": LADDER},
                    "audio": {"bitrateKbps": AUDIO_KBPS}},
        "layout": {"backgroundColor": "#000000", "regions": [
            {"input": "red", "x": 0, "y": 0, "width": width // 2, "height": height, "renderMode": "stretch"},
            {"input": "noise", "x": width // 2, "y": 0, "width": width // 2, "height": height, "renderMode": "stretch"}]},
        "outputs": outputs,
    }


def stream_infs(master: str) -> list[tuple[dict, str]]:
    """(attributes, URI) of each #EXT-X-STREAM-INF of a master playlist."""
    lines, out = master.splitlines(), []
    for index, line in enumerate(lines):
        if line.startswith("#EXT-X-STREAM-INF:"):
            attributes = dict(re.findall(r'([A-Z-]+)=("[^"]*"|[^,]*)', line.split(":", 1)[1]))
            out.append(({k: v.strip('"') for k, v in attributes.items()}, lines[index + 1]))
    return out


def avc1(stream: dict) -> str:
    """RFC 6381's avc1.PPCCLL of an ffprobe'd H.264 stream, with the constraint flags x264 writes
    (set0 + set1 for baseline, set1 for main, none for high). x264 writes the lowest profile its
    tools need: `ultrafast` uses neither CABAC nor 8x8 transforms, so its "high" is baseline."""
    profile, constraints = {"High": (0x64, 0), "Main": (0x4D, 0x40), "Constrained Baseline": (0x42, 0xC0)}[stream["profile"]]
    return f"avc1.{profile:02x}{constraints:02x}{int(stream['level']):02x}"


def test_hls_ladder_and_a_file_of_one_rendition(api, tessera_server, clips, noise, tmp_path):
    api.create(ladder_task("ladder", clips, noise, [{"url": "abr/show.m3u8", "hls": {"segmentSeconds": 1}},
                                                    {"url": "small.mp4", "rendition": 2}]))
    folder = tessera_server.out / "abr"
    variants = [folder / f"show_r{i}.m3u8" for i in range(3)]
    assert wait_until(lambda: all(v.exists() and len(playlist_entries(v.read_text())) >= 3 for v in variants), 20), \
        sorted(p.name for p in folder.glob("*")) if folder.exists() else "no folder"
    status = api.status("ladder")
    assert status["encodes"] == ["h264-high", "h264-high-r1-480x270", "h264-high-r2-320x180", "aac"], status["encodes"]
    r = api.delete("/v1/tasks/ladder")
    assert r.status == 200, r.body

    master = (folder / "show.m3u8").read_text()
    infs = stream_infs(master)
    assert [uri for _, uri in infs] == [v.name for v in variants], master
    segment_lists = []
    for index, ((attributes, uri), (width, height), kbps) in enumerate(zip(infs, SIZES, VIDEO_KBPS)):
        playlist = folder / uri
        assert attributes["RESOLUTION"] == f"{width}x{height}", master
        assert int(attributes["BANDWIDTH"]) == round((kbps + AUDIO_KBPS) * 1100), master
        assert float(attributes["FRAME-RATE"]) == (15 if index == 2 else 30), master
        video = stream_of(ffprobe(playlist), "video")
        assert (video["width"], video["height"]) == (width, height), f"{uri}: {video['width']}x{video['height']}"
        assert attributes["CODECS"] == f"{avc1(video)},mp4a.40.2", (attributes["CODECS"], video["profile"], video["level"])
        entries = playlist_entries(playlist.read_text())
        segment_lists.append(entries)
        init = folder / f"show_r{index}_init.mp4"
        for _, name in entries:
            assert first_video_packet_is_key(init, folder / name, tmp_path), f"{name} does not start on a keyframe"
        # Bitrate over the whole variant, audio included, as the master's AVERAGE-BANDWIDTH says.
        seconds = sum(d for d, _ in entries)
        kbits = sum((folder / name).stat().st_size for _, name in entries) * 8 / 1000
        assert 0.6 * (kbps + AUDIO_KBPS) <= kbits / seconds <= 1.3 * (kbps + AUDIO_KBPS), \
            f"{uri}: {kbits / seconds:.0f} kb/s for {kbps} + {AUDIO_KBPS} asked"
        # What a viewer sees: red where the layout puts it, scaled with the canvas.
        last = decode_video(playlist, width, height)[-1]
        assert colour_mismatch(last, [((width // 4, height // 2), RED)]) is None, uri
    # Every variant switches at the same instants: the same segment durations (but the last, which
    # ends with each rendition's own last frame).
    durations = [[round(d, 2) for d, _ in entries] for entries in segment_lists]
    common = min(len(d) for d in durations) - 1
    assert common >= 2 and all(d[:common] == durations[0][:common] for d in durations), durations

    small = tessera_server.out / "small.mp4"
    video = stream_of(ffprobe(small), "video")
    num, den = (int(x) for x in video["avg_frame_rate"].split("/"))
    assert (video["width"], video["height"]) == (320, 180) and abs(num / den - 15) < 0.5, video
    assert colour_mismatch(decode_video(small, 320, 180)[-1], [((80, 90), RED)]) is None


def test_an_update_switches_an_rtmp_output_to_another_rendition(api, rtmp_server, clips, noise):
    url = rtmp_server.url("abr")
    api.create(ladder_task("switch", clips, noise, [{"url": url, "rendition": 1}]))
    try:
        first = stream_of(wait_stream(url), "video")
        assert (first["width"], first["height"]) == (480, 270), first
        r = api.patch("/v1/tasks/switch", {"outputs": [{"url": url, "rendition": 2}]})
        assert r.status == 200, r.body
        assert wait_until(lambda: "h264-high-r1-480x270" not in api.status("switch")["encodes"], 10), api.status("switch")
        assert api.status("switch")["encodes"] == ["h264-high-r2-320x180", "aac"]
        second = stream_of(wait_stream(url), "video")
        assert (second["width"], second["height"]) == (320, 180), second
        refused = api.patch("/v1/tasks/switch", {"encoder": {"video": {"width": 640, "height": 360, "renditions": []}}})
        assert refused.status == 400 and refused.json["error"]["path"] == "encoder", refused.body
    finally:
        api.delete("/v1/tasks/switch")


def test_bad_renditions_are_named_and_nothing_starts(api, tessera_server, clips, noise):
    doc = ladder_task("bad-ladder", clips, noise, [{"url": "bad/show.m3u8", "rendition": 1}, {"url": "a.mp4", "rendition": 3},
                                                   {"url": "rtp://127.0.0.1:5004", "rendition": 1}])
    doc["encoder"]["video"]["renditions"] = [{"width": 481, "height": 270, "bitrateKbps": 600},
                                             {"width": 320, "height": 720, "bitrateKbps": 300, "fps": 7}]
    r = api.post("/v1/tasks", doc)
    assert r.status == 400, r.body
    issues = {issue["path"]: issue["message"] for issue in r.json["error"]["issues"]}
    assert set(issues) >= {"encoder.video.renditions[0].width", "encoder.video.renditions[1].height",
                           "encoder.video.renditions[1].fps", "outputs[0].rendition", "outputs[2].rendition"}, issues
    assert "rtp output" in issues["outputs[2].rendition"]
    assert api.task_ids() == [] and not (tessera_server.out / "bad").exists()
    # With the ladder right, only the output asking for a rendition the task lacks is named.
    doc["encoder"]["video"]["renditions"] = LADDER
    doc["outputs"] = [{"url": "a.mp4", "rendition": 3}]
    r = api.post("/v1/tasks", doc)
    assert r.status == 400 and r.json["error"]["path"] == "outputs[0].rendition", r.body
    assert "0 (the main size) or 1–2" in r.json["error"]["message"]
    assert api.task_ids() == []
