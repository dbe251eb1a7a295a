"""Inputs faster than the output: the pictures between output frames are never scaled (the input
worker skips them), and that must not change which picture each output frame shows. Also the
`encoder.video.latency` modes as the encoder really ran them."""
import os
import subprocess

import pytest

from helpers import BLUE, RED, assert_rgb, read_y4m, task

TOL = 20
# Frame N of the input is red when N is even, blue when odd (limited-range Y'CbCr of #FF0000 / #0000FF).
ALTERNATING = ("color=c=black:s=64x48:r={fps}:d=1,format=yuv420p,"
               "geq=lum='if(mod(N,2),41,81)':cb='if(mod(N,2),240,90)':cr='if(mod(N,2),110,240)'")


@pytest.mark.parametrize("output_fps, expected", [
    (30, lambda k: RED),                           # instants on the even input frames only
    (60, lambda k: RED if k % 2 == 0 else BLUE),   # every input frame shown: none skipped
    (20, lambda k: RED if k % 2 == 0 else BLUE),   # instant k shows input frame 3k
])
def test_each_output_frame_shows_the_input_frame_of_its_instant(ws, media, output_fps, expected):
    src = media.video(ALTERNATING.format(fps=60), stem="alternating60")
    doc = task([{"id": "fast", "url": src}], [{"input": "fast", "x": 0, "y": 0, "width": 64, "height": 48}],
               width=64, height=48, fps=output_fps, audio_encoder=False)
    ws.mix(doc)
    frames = read_y4m(ws.out / "out.y4m").frames
    assert len(frames) == output_fps, f"1 s at {output_fps} fps: got {len(frames)} frames"
    for k, frame in enumerate(frames):
        assert_rgb(frame, 32, 24, expected(k), TOL, f"output frame {k} at {output_fps} fps")


def x264_options(path) -> str:
    text = subprocess.run(["strings", "-n", "20", str(path)], capture_output=True, text=True, check=True).stdout
    line = next((l for l in text.splitlines() if "x264 - core" in l), None)
    assert line, f"no x264 SEI in {path}"
    return line


@pytest.mark.parametrize("latency, lookahead, sliced", [(None, "rc_lookahead=10", "sliced_threads=0"),
                                                        ("normal", "rc_lookahead=10", "sliced_threads=0"),
                                                        ("low", "rc_lookahead=0", "sliced_threads=1")])
def test_latency_mode_sets_the_encoder(ws, media, latency, lookahead, sliced):
    src = media.video("testsrc2=s=320x240:r=30:d=1", stem="pattern")
    doc = task([{"id": "p", "url": src}], [{"input": "p", "x": 0, "y": 0, "width": 320, "height": 240}],
               outputs=["out.flv"], fps=30, audio_encoder=False)
    # Two threads, so that low latency's slices show (one thread has nothing to slice for).
    doc["encoder"]["video"].update(preset="veryfast", threads=2)
    if latency:
        doc["encoder"]["video"]["latency"] = latency
    ws.mix(doc)
    options = x264_options(ws.out / "out.flv")
    assert lookahead in options and sliced in options and " threads=2 " in options, options


def x264_threads(options: str) -> int:
    return int(next(tok for tok in options.split() if tok.startswith("threads=")).split("=")[1])


@pytest.mark.parametrize("threads", [None, 2])
def test_offline_encoder_threads_are_x264s_own_choice_unless_set(ws, media, tmp_path, threads):
    """Offline a task should finish as soon as the machine allows: without `threads`, x264 picks
    (as the ffmpeg command line lets it); with `threads`, the task's number. (Live tasks size their
    threads from the work: tests/live/test_encoder_threads_live.py.)"""
    src = media.video("testsrc2=s=64x48:r=10:d=0.3", stem="tiny")
    doc = task([{"id": "p", "url": src}], [{"input": "p", "x": 0, "y": 0, "width": 1280, "height": 720}],
               outputs=["out.flv"], width=1280, height=720, fps=30, audio_encoder=False)
    doc["encoder"]["video"]["preset"] = "veryfast"
    if threads:
        doc["encoder"]["video"]["threads"] = threads
    ws.mix(doc)
    reference = tmp_path / "x264-own-choice.flv"
    subprocess.run(["ffmpeg", "-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc2=s=1280x720:r=30", "-frames:v", "2",
                    "-c:v", "libx264", "-preset", "veryfast", "-f", "flv", str(reference)], check=True)
    expected = threads or x264_threads(x264_options(reference))
    assert x264_threads(x264_options(ws.out / "out.flv")) == expected


def test_encoder_threads_out_of_range_are_refused_by_name(ws, media):
    src = media.video("testsrc2=s=64x48:r=10:d=1", stem="small")
    doc = task([{"id": "p", "url": src}], [{"input": "p", "x": 0, "y": 0, "width": 64, "height": 48}], width=64, height=48)
    doc["encoder"]["video"]["threads"] = 0
    r = ws.mix(doc, check=False)
    assert r.returncode != 0 and "encoder.video.threads" in r.stderr, r.stderr
    assert ws.output_files() == []


def test_unknown_latency_is_refused_by_name(ws, media):
    src = media.video("testsrc2=s=64x48:r=10:d=1", stem="small")
    doc = task([{"id": "p", "url": src}], [{"input": "p", "x": 0, "y": 0, "width": 64, "height": 48}], width=64, height=48)
    doc["encoder"]["video"]["latency"] = "ultra"
    r = ws.mix(doc, check=False)
    assert r.returncode != 0
    assert "encoder.video.latency" in r.stderr and "normal" in r.stderr and "low" in r.stderr, r.stderr
    assert ws.output_files() == []
