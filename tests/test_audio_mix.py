"""The audio mix, checked by FFT on the decoded output: tones present, per-input volume,
the `audio.inputs` selection, overload limited (never beyond full scale, never clipped into noise),
audio-only tasks, resampling, and audio/video sync."""
import numpy as np
import pytest

from helpers import (RED, band_energy_fraction, decode_audio, decode_video, ffprobe, rms, sine, streams,
                     task, tone_amplitude, video_frame_info)

RATE = 48000
A = 0.125  # ffmpeg's `sine` source amplitude (1/8 of full scale)


def analysed(path, skip=0.15):
    """Mono mix of the output's audio with the edges cut off (encoder start-up and tail)."""
    x = decode_audio(path, RATE).mean(axis=1)
    n = int(skip * RATE)
    assert len(x) > 2 * n + RATE // 4, f"only {len(x) / RATE:.2f} s of audio in {path}"
    return x[n:-n]


def tone_input(media, freq, duration=2.0, video=True, amplitude=None, stereo=True):
    """A tone at `amplitude` (default A) in every channel. Stereo by default, with both channels
    copied at full level, so no mono → stereo upmix convention (−3 dB or not) enters the levels."""
    graph = sine(freq, duration, amplitude=amplitude)
    if stereo:
        graph += ",pan=stereo|c0=c0|c1=c0"
    if video:
        return media.video(f"color=c=0x202020:s=64x48:r=10:d={duration}", audio=graph, stem=f"tone{freq}")
    return media.audio(graph, stem=f"tone{freq}")


def av_task(inputs, **kw):
    regions = [{"input": i["id"], "x": 0, "y": 0, "width": 64, "height": 48} for i in inputs]
    return task(inputs, regions, outputs=["out.mp4"], width=64, height=48, **kw)


def test_two_inputs_both_tones_present_at_unity_gain(ws, media):
    doc = av_task([{"id": "a", "url": tone_input(media, 440)}, {"id": "b", "url": tone_input(media, 1000)}])
    ws.mix(doc)
    x = analysed(ws.out / "out.mp4")
    a440, a1000 = tone_amplitude(x, RATE, 440), tone_amplitude(x, RATE, 1000)
    assert 0.7 * A <= a440 <= 1.3 * A, f"440 Hz at volume 100: expected amplitude ≈ {A}, got {a440:.4f}"
    assert 0.7 * A <= a1000 <= 1.3 * A, f"1000 Hz at volume 100: expected amplitude ≈ {A}, got {a1000:.4f}"
    other = band_energy_fraction(x, RATE, [440, 1000])
    assert other < 0.01, f"{other:.2%} of the energy is away from 440 / 1000 Hz"


def test_volume_zero_silences_its_input(ws, media):
    doc = av_task([{"id": "a", "url": tone_input(media, 440)}, {"id": "b", "url": tone_input(media, 1000)}],
                  audio={"volumes": {"b": 0}})
    ws.mix(doc)
    x = analysed(ws.out / "out.mp4")
    a440, a1000 = tone_amplitude(x, RATE, 440), tone_amplitude(x, RATE, 1000)
    assert a440 >= 0.7 * A, f"440 Hz (volume 100) missing: amplitude {a440:.4f}"
    assert a1000 <= 0.002, f"1000 Hz at volume 0 should be silent: amplitude {a1000:.4f}"


def test_volume_percent_scales_linearly(ws, media):
    doc = av_task([{"id": "a", "url": tone_input(media, 440)}, {"id": "b", "url": tone_input(media, 1000)}],
                  audio={"volumes": {"a": 50, "b": 200}})
    ws.mix(doc)
    x = analysed(ws.out / "out.mp4")
    a440, a1000 = tone_amplitude(x, RATE, 440), tone_amplitude(x, RATE, 1000)
    assert abs(a440 - 0.5 * A) <= 0.15 * 0.5 * A, f"volume 50: expected {0.5 * A:.4f}, got {a440:.4f}"
    assert abs(a1000 - 2 * A) <= 0.15 * 2 * A, f"volume 200: expected {2 * A:.4f}, got {a1000:.4f}"


def test_audio_inputs_selection(ws, media):
    doc = av_task([{"id": "a", "url": tone_input(media, 440)}, {"id": "b", "url": tone_input(media, 1000)},
                   {"id": "c", "url": tone_input(media, 2500, video=False)}],
                  audio={"inputs": ["a", "c"]})
    ws.mix(doc)
    x = analysed(ws.out / "out.mp4")
    assert tone_amplitude(x, RATE, 440) >= 0.7 * A, "a (selected) missing"
    assert tone_amplitude(x, RATE, 2500) >= 0.7 * A, "c (selected, audio-only input) missing"
    assert tone_amplitude(x, RATE, 1000) <= 0.002, "b is not in audio.inputs but is heard"


def test_overload_is_limited_not_clipped(ws, media):
    freqs = [300, 500, 700, 1100]
    inputs = [{"id": f"in{f}", "url": tone_input(media, f, video=False, amplitude=0.9)} for f in freqs]
    doc = {"inputs": inputs, "encoder": {"audio": {"sampleRate": RATE, "channels": 2, "bitrateKbps": 192}},
           "outputs": [{"url": "loud.mp4"}]}
    ws.mix(doc)
    full = decode_audio(ws.out / "loud.mp4", RATE)
    peak = float(np.max(np.abs(full)))
    assert peak <= 1.0, f"a sample beyond full scale: max |x| = {peak:.4f}"
    x = full.mean(axis=1)[int(0.15 * RATE):-int(0.15 * RATE)]
    assert rms(x) >= 0.2, f"the loud mix came out too quiet (RMS {rms(x):.3f}): limited, not muted"
    for f in freqs:
        assert tone_amplitude(x, RATE, f) >= 0.1, f"{f} Hz missing from the limited mix"
    distortion = band_energy_fraction(x, RATE, freqs)
    # Hard clipping of this mix puts ~14 % of the energy elsewhere; a limiter well under 2 %.
    assert distortion < 0.02, f"{distortion:.2%} of the energy is distortion (away from the input tones)"


@pytest.mark.parametrize("ext", ["mp4", "mkv", "ts", "flv"])
def test_audio_only_task(ws, media, ext):
    voice = tone_input(media, 440, duration=2.0, video=False)
    doc = {"inputs": [{"id": "v", "url": voice}],
           "encoder": {"audio": {"sampleRate": RATE, "channels": 2, "bitrateKbps": 128, "codec": "aac"}},
           "outputs": [{"url": f"room.{ext}"}]}
    ws.mix(doc)
    out = ws.out / f"room.{ext}"
    info = ffprobe(out)
    kinds = [s["codec_type"] for s in info["streams"]]
    assert kinds == ["audio"], f"an audio-only task has one audio stream and no video: got {kinds}"
    a = info["streams"][0]
    assert a["codec_name"] == "aac" and int(a["sample_rate"]) == RATE and int(a["channels"]) == 2
    duration = float(info["format"]["duration"])
    assert abs(duration - 2.0) <= 0.15, f"duration: expected 2.0 s, got {duration}"
    assert tone_amplitude(analysed(out), RATE, 440) >= 0.7 * A


def test_inputs_resampled_to_output_rate_and_layout(ws, media):
    # 44.1 kHz mono WAV, 22.05 kHz stereo MP3, 48 kHz Opus: all must come out at their true pitch.
    a = media.audio(sine(440, 2.0, rate=44100), ext="wav", stem="a44")
    b = media.audio(f"{sine(1000, 2.0, rate=22050)},pan=stereo|c0=c0|c1=c0", ext="mp3", stem="b22")
    c = media.audio(sine(2000, 2.0, rate=48000), ext="ogg", stem="c48")
    doc = {"inputs": [{"id": "a", "url": a}, {"id": "b", "url": b}, {"id": "c", "url": c}],
           "encoder": {"audio": {"sampleRate": 44100, "channels": 1}},
           "outputs": [{"url": "mono.mp4"}]}
    ws.mix(doc)
    s = streams(ws.out / "mono.mp4", "audio")[0]
    assert int(s["sample_rate"]) == 44100 and int(s["channels"]) == 1, s
    x = decode_audio(ws.out / "mono.mp4", RATE)[int(0.15 * RATE):-int(0.15 * RATE), 0]
    for f in (440, 1000, 2000):
        amp = tone_amplitude(x, RATE, f)
        assert amp >= 0.7 * A, f"{f} Hz: expected amplitude ≈ {A}, got {amp:.4f} (wrong resampling?)"
    for wrong in (440 * 48000 / 44100, 1000 * 48000 / 22050):
        assert tone_amplitude(x, RATE, wrong, bandwidth=4) < 0.01, f"energy at {wrong:.0f} Hz: a rate mix-up"


def flash_and_beep(media, container: str) -> str:
    """2 s at 25 fps: black, one white frame at 1.00 s; silence with a 1 kHz beep from 1.00 to 1.10 s."""
    graph = "color=c=black:s=64x48:r=25:d=2,drawbox=c=white:t=fill:enable='between(n\\,25\\,25)'"
    audio = "aevalsrc='0.5*sin(2*PI*1000*t)*between(t\\,1\\,1.1)':s=48000:d=2"
    if container == "mkv":
        return media.video(graph, audio=audio, ext="mkv", codec="ffv1", stem="flash")
    return media.video(graph, audio=audio, ext="mp4", codec="h264", stem="flash")


@pytest.mark.parametrize("container,start_ms", [("mkv", 0), ("mp4", 0), ("mp4", 700)])
def test_av_sync(ws, media, container, start_ms):
    fps = 30
    src = flash_and_beep(media, container)
    doc = task([{"id": "f", "url": src, "startAtMs": start_ms}],
               [{"input": "f", "x": 0, "y": 0, "width": 64, "height": 48}],
               outputs=["sync.mp4"], width=64, height=48, fps=fps)
    ws.mix(doc)
    out = ws.out / "sync.mp4"
    infos = video_frame_info(out)
    frames = decode_video(out)
    assert len(frames) == len(infos)
    bright = [i for i, f in enumerate(frames) if float(f.y.mean()) > 128]
    assert bright, "the white flash frame is missing from the output"
    t_video = infos[bright[0]]["time"]

    a_info = ffprobe(out, "-select_streams", "a:0", "-show_frames", "-read_intervals", "%+#1")
    t_audio0 = float(a_info["frames"][0].get("best_effort_timestamp_time") or a_info["frames"][0]["pts_time"])
    x = decode_audio(out, RATE).mean(axis=1)
    loud = np.nonzero(np.abs(x) > 0.25)[0]
    assert len(loud), "the beep is missing from the output"
    t_audio = t_audio0 + loud[0] / RATE

    expected = 1.0 + start_ms / 1000
    assert abs(t_video - expected) <= 1 / fps + 0.001, f"flash at {t_video:.3f} s, expected {expected:.3f} s"
    assert abs(t_audio - expected) <= 0.03, f"beep at {t_audio:.3f} s, expected {expected:.3f} s"
    assert abs(t_video - t_audio) <= 0.020 + 1 / fps, (
        f"A/V sync: flash at {t_video:.3f} s, beep at {t_audio:.3f} s (Δ {1000 * (t_video - t_audio):.1f} ms)")


def test_sync_holds_to_the_end(ws, media):
    # A 4 s input whose beeps and flashes coincide every second: the offset must not drift.
    graph = ("color=c=black:s=64x48:r=25:d=4,"
             "drawbox=c=white:t=fill:enable='eq(mod(n\\,25)\\,12)'")
    audio = "aevalsrc='0.5*sin(2*PI*1000*t)*lt(mod(t-0.48\\,1)\\,0.06)':s=44100:d=4"
    src = media.video(graph, audio=audio, ext="mp4", codec="h264", stem="ticks")
    doc = task([{"id": "f", "url": src}], [{"input": "f", "x": 0, "y": 0, "width": 64, "height": 48}],
               outputs=["ticks.mp4"], width=64, height=48, fps=25)
    ws.mix(doc)
    out = ws.out / "ticks.mp4"
    infos = video_frame_info(out)
    frames = decode_video(out)
    flashes = [infos[i]["time"] for i, f in enumerate(frames) if float(f.y.mean()) > 128]
    a_info = ffprobe(out, "-select_streams", "a:0", "-show_frames", "-read_intervals", "%+#1")
    t_audio0 = float(a_info["frames"][0].get("best_effort_timestamp_time") or a_info["frames"][0]["pts_time"])
    x = np.abs(decode_audio(out, RATE).mean(axis=1)) > 0.25
    onsets = []
    for i in np.nonzero(x)[0]:
        t = t_audio0 + i / RATE
        if not onsets or t - onsets[-1] > 0.5:
            onsets.append(t)
    assert len(flashes) == 4 and len(onsets) == 4, f"flashes {flashes}, beeps {onsets}"
    for tv, ta in zip(flashes, onsets):
        assert abs(tv - ta) <= 0.020 + 1 / 25, f"flash {tv:.3f} s vs beep {ta:.3f} s"
    assert abs(flashes[-1] - 3.48) <= 0.041 and abs(onsets[-1] - 3.48) <= 0.03, (flashes, onsets)


def test_video_task_with_sound_from_an_audio_only_input(ws, media):
    # A video task whose only sound comes from an audio-only input: video and audio both present.
    v = media.solid(RED, duration=1.5)
    a = tone_input(media, 440, duration=1.5, video=False, stereo=False)  # a mono participant
    doc = task([{"id": "v", "url": v}, {"id": "a", "url": a}],
               [{"input": "v", "x": 0, "y": 0, "width": 64, "height": 48}],
               outputs=["out.mp4"], width=64, height=48, background="#000000")
    ws.mix(doc)
    kinds = sorted(s["codec_type"] for s in ffprobe(ws.out / "out.mp4")["streams"])
    assert kinds == ["audio", "video"]
    # mono → stereo: copied at full level, or at −3 dB per channel (FFmpeg's convention); both fine
    assert tone_amplitude(analysed(ws.out / "out.mp4"), RATE, 440) >= 0.6 * A
