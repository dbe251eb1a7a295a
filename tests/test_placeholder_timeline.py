"""The output timeline: frame N at N/fps shows, per region, the input frame with the latest
timestamp not after that time; placeholders before `startAtMs` and after a non-looping input ends
(no frozen last frame); `loop` and `maxDurationSeconds`; when the task ends."""
import pytest

from helpers import (CYAN, GREEN, GREY, RED, YELLOW, assert_rgb, count_video_frames, ffprobe, hex_colour,
                     read_y4m, sine, task)

TOL = 15


def ramp(media, fps: int, duration: float, step: int) -> str:
    """Grey frames whose luma is 16 + step·N for frame N (lossless), so a frame tells its index."""
    return media.video(f"color=c=black:s=64x64:r={fps}:d={duration},format=yuv420p,"
                       f"geq=lum=16+{step}*N:cb=128:cr=128", ext="mkv", codec="ffv1", stem="ramp")


def frame_index(frame, x, y, step) -> int:
    return round((float(frame.y[y - 2:y + 2, x - 2:x + 2].mean()) - 16) / step)


def test_placeholder_before_start_and_after_end(ws, media):
    a = media.solid(RED, duration=2.0)
    b = media.solid(GREEN, duration=1.0)
    yellow = media.still_png(YELLOW)
    doc = task([{"id": "a", "url": a}, {"id": "b", "url": b, "startAtMs": 500}], [
        {"input": "a", "x": 0, "y": 0, "width": 100, "height": 240},
        {"input": "b", "x": 110, "y": 0, "width": 100, "height": 100, "placeholderImage": yellow},
        {"input": "b", "x": 110, "y": 120, "width": 100, "height": 100, "backgroundColor": hex_colour(CYAN)},
        {"input": "b", "x": 220, "y": 0, "width": 100, "height": 100},
    ], background=hex_colour(GREY))
    ws.mix(doc)
    frames = read_y4m(ws.out / "out.y4m").frames
    assert len(frames) == 20, f"2 s at 10 fps (the last non-looping input ends at 2.0 s): got {len(frames)} frames"
    # b is on the timeline from 0.5 s to 1.5 s (frames 5..14).
    for n, f in enumerate(frames):
        has_video = 5 <= n <= 14
        when = "while b plays" if has_video else ("before b's startAtMs" if n < 5 else "after b ended")
        assert_rgb(f, 50, 120, RED, TOL, f"frame {n}: a")
        assert_rgb(f, 160, 50, GREEN if has_video else YELLOW, TOL, f"frame {n} {when}: region with placeholderImage")
        assert_rgb(f, 160, 170, GREEN if has_video else CYAN, TOL, f"frame {n} {when}: region with backgroundColor")
        assert_rgb(f, 270, 50, GREEN if has_video else GREY, TOL, f"frame {n} {when}: region with neither")


def test_audio_only_input_shows_placeholder(ws, media):
    voice = media.audio(sine(440, 1.5), stem="voice")
    video = media.solid(RED, duration=1.0)
    yellow = media.still_png(YELLOW)
    doc = task([{"id": "v", "url": video}, {"id": "voice", "url": voice}], [
        {"input": "v", "x": 0, "y": 0, "width": 160, "height": 240},
        {"input": "voice", "x": 160, "y": 0, "width": 160, "height": 120, "placeholderImage": yellow},
        {"input": "voice", "x": 160, "y": 120, "width": 160, "height": 120, "backgroundColor": hex_colour(CYAN)},
    ], outputs=["out.y4m", "out.mp4"])
    ws.mix(doc)
    frames = read_y4m(ws.out / "out.y4m").frames
    assert len(frames) == 15, f"the audio-only input (1.5 s) also counts for the end: got {len(frames)} frames"
    for n in (0, 7, 14):
        assert_rgb(frames[n], 240, 60, YELLOW, TOL, f"frame {n}: audio-only participant's placeholder")
        assert_rgb(frames[n], 240, 180, CYAN, TOL, f"frame {n}: audio-only participant's backgroundColor")
    for n in (0, 9):
        assert_rgb(frames[n], 80, 120, RED, TOL, f"frame {n}: video input")
    assert_rgb(frames[12], 80, 120, (0, 0, 0), TOL, "frame 12: video input ended at 1.0 s, no frozen frame")


@pytest.mark.parametrize("src_fps,step", [(5, 8), (25, 4), (10, 8)])
def test_frame_selection_latest_not_after(ws, media, src_fps, step):
    # Output at 10 fps; output frame n (t = n/10) shows input frame floor(t · src_fps).
    src = ramp(media, src_fps, 2.0, step)
    doc = task([{"id": "r", "url": src}], [
        {"input": "r", "x": 0, "y": 0, "width": 160, "height": 120, "renderMode": "stretch"},
    ], fps=10)
    ws.mix(doc)
    frames = read_y4m(ws.out / "out.y4m").frames
    assert len(frames) == 20
    got = [frame_index(f, 80, 60, step) for f in frames]
    expected = [(n * src_fps) // 10 for n in range(20)]
    assert got == expected, f"input frame shown per output frame: expected {expected}, got {got}"


@pytest.mark.parametrize("ext,codec", [("mkv", "ffv1"), ("mp4", "h264"), ("flv", "h264")])
def test_same_rate_input_shows_every_frame(ws, media, ext, codec):
    # 30 fps in, 30 fps out: output frame n is input frame n, whatever the container's time base
    # (Matroska and FLV round to the millisecond, MP4 uses 1/15360) — no repeated or dropped frame.
    src = media.video("color=c=black:s=64x64:r=30:d=1,format=yuv420p,geq=lum=16+7*N:cb=128:cr=128",
                      ext=ext, codec=codec, stem="ramp30")
    doc = task([{"id": "r", "url": src}], [
        {"input": "r", "x": 0, "y": 0, "width": 160, "height": 120, "renderMode": "stretch"},
    ], fps=30)
    ws.mix(doc)
    frames = read_y4m(ws.out / "out.y4m").frames
    assert len(frames) == 30
    got = [frame_index(f, 80, 60, 7) for f in frames]
    assert got == list(range(30)), f"input frame shown per output frame: {got}"


def test_start_at_shifts_frames(ws, media):
    src = ramp(media, 10, 1.0, 16)
    doc = task([{"id": "r", "url": src, "startAtMs": 300}], [
        {"input": "r", "x": 0, "y": 0, "width": 160, "height": 120, "renderMode": "stretch"},
    ], fps=10, background="#000000")
    ws.mix(doc)
    frames = read_y4m(ws.out / "out.y4m").frames
    assert len(frames) == 13, f"the input ends at 0.3 + 1.0 s: expected 13 frames, got {len(frames)}"
    for n in range(3):
        assert float(frames[n].y[60, 80]) <= 20, f"frame {n}: before startAtMs the region is empty (black)"
    got = [frame_index(f, 80, 60, 16) for f in frames[3:]]
    assert got == list(range(10)), f"frames 3..12 show input frames 0..9, got {got}"


def test_loop_and_max_duration(ws, media):
    src = ramp(media, 10, 1.0, 16)
    doc = task([{"id": "r", "url": src, "loop": True}], [
        {"input": "r", "x": 0, "y": 0, "width": 160, "height": 120, "renderMode": "stretch"},
    ], fps=10, outputs=["out.y4m", "out.mp4"], maxDurationSeconds=2.5)
    ws.mix(doc)
    frames = read_y4m(ws.out / "out.y4m").frames
    assert len(frames) == 25, f"maxDurationSeconds 2.5 at 10 fps: expected 25 frames, got {len(frames)}"
    got = [frame_index(f, 80, 60, 16) for f in frames]
    assert got == [n % 10 for n in range(25)], f"a 1 s looping input repeats: got {got}"
    duration = float(ffprobe(ws.out / "out.mp4")["format"]["duration"])
    assert abs(duration - 2.5) <= 0.1, f"mp4 duration: expected 2.5 s, got {duration}"
    assert count_video_frames(ws.out / "out.mp4") == 25


def test_task_ends_with_last_non_looping_input(ws, media):
    short = media.solid(RED, duration=1.0)
    looping = media.solid(GREEN, duration=0.7)
    later = media.solid(CYAN, duration=1.0)
    doc = task([{"id": "s", "url": short}, {"id": "l", "url": looping, "loop": True},
                {"id": "late", "url": later, "startAtMs": 800}], [
        {"input": "s", "x": 0, "y": 0, "width": 100, "height": 100},
        {"input": "l", "x": 110, "y": 0, "width": 100, "height": 100},
        {"input": "late", "x": 220, "y": 0, "width": 100, "height": 100},
    ], fps=10)
    ws.mix(doc)
    frames = read_y4m(ws.out / "out.y4m").frames
    assert len(frames) == 18, f"ends when 'late' ends at 0.8 + 1.0 s: expected 18 frames, got {len(frames)}"
    assert_rgb(frames[15], 160, 50, GREEN, TOL, "the looping input keeps playing at 1.5 s")
    assert_rgb(frames[15], 50, 50, (0, 0, 0), TOL, "the short input ended at 1.0 s: empty region")


@pytest.mark.parametrize("container", ["mp4", "mkv"])
def test_input_with_audio_ends_with_its_container_duration(ws, media, container):
    """A 1 s input with video and AAC / FLAC audio of the same length: 10 frames at 10 fps, the last
    one still showing the input. (AAC codes 1024-sample frames, so the decoder's last frame reaches a
    few ms past 1.0 s; the container's packet durations and edit list say where the input ends.)"""
    codec_ext = {"mp4": dict(ext="mp4", codec="h264"), "mkv": dict(ext="mkv", codec="ffv1")}[container]
    src = media.video("color=c=0xFF0000:s=64x64:r=10:d=1", audio=sine(440, 1.0), stem="red-av", **codec_ext)
    doc = task([{"id": "r", "url": src}], [{"input": "r", "x": 0, "y": 0, "width": 320, "height": 240}],
               outputs=["out.y4m", "out.mp4"])
    ws.mix(doc)
    frames = read_y4m(ws.out / "out.y4m").frames
    assert len(frames) == 10, f"a 1.0 s input at 10 fps: expected 10 frames, got {len(frames)}"
    assert_rgb(frames[-1], 160, 120, RED, TOL, f"last frame ({len(frames) - 1}) shows the input")
    assert count_video_frames(ws.out / "out.mp4") == 10
    duration = float(ffprobe(ws.out / "out.mp4")["format"]["duration"])
    assert abs(duration - 1.0) <= 0.05, f"mp4 duration {duration:.3f} s, expected 1.0 (+ at most one AAC frame)"
