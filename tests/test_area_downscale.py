"""A picture drawn at exactly half its size (a 1280x720 camera in a 640x360 tile) is made by
Tessera's own 2x2 averaging, not swscale: it must be the very picture the `ffmpeg` command line's
area scaler makes, sample for sample, in every plane. Checked on the .y4m composite (no encoder in
between) from a lossless, BT.709-tagged source, so no colour conversion is involved either."""
import subprocess

import numpy as np

from helpers import read_y4m, split_yuv420, task


def reference(src, width: int, height: int, flags: str):
    raw = subprocess.run(["ffmpeg", "-v", "error", "-nostdin", "-i", src, "-vf",
                          f"scale={width}:{height}:flags={flags}", "-pix_fmt", "yuv420p", "-f", "rawvideo", "-"],
                         capture_output=True, check=True).stdout
    return split_yuv420(raw, width, height)


def max_difference(a, b) -> int:
    return max(int(np.max(np.abs(p.astype(np.int32) - q.astype(np.int32)))) for p, q in ((a.y, b.y), (a.u, b.u), (a.v, b.v)))


def test_half_size_tiles_are_the_area_average(ws, media):
    # Noise makes every 2x2 block different, so an off-by-one block or a rounding slip shows.
    src = media.video("testsrc2=s=1280x720:r=10:d=0.5,noise=alls=40:allf=u,format=yuv420p", codec="ffv1", ext="mkv",
                      stem="noisy720", extra=["-colorspace", "bt709", "-color_primaries", "bt709",
                                              "-color_trc", "bt709", "-color_range", "tv"])
    doc = task([{"id": "cam", "url": src}],
               [{"input": "cam", "x": 0, "y": 0, "width": 640, "height": 360, "renderMode": "stretch"}],
               width=640, height=360, fps=10, audio_encoder=False)
    ws.mix(doc)
    frames = read_y4m(ws.out / "out.y4m").frames
    area = reference(media.path(src), 640, 360, "area+accurate_rnd")
    bilinear = reference(media.path(src), 640, 360, "bilinear")
    assert len(frames) == len(area) == 5, (len(frames), len(area))
    for k, (frame, expected, blurred) in enumerate(zip(frames, area, bilinear)):
        assert max_difference(frame, expected) == 0, f"frame {k}: not the area average of its source"
        # The check can fail: swscale's bilinear picture of the same source is far from it.
        assert max_difference(frame, blurred) > 20, f"frame {k}: the bilinear picture should differ"


def test_a_three_by_three_grid_is_ffmpeg_s_scale_and_overlay_picture(ws, media):
    # Tiles of 426x240 from 1280x720 sources are not halves, so swscale's bilinear scaler draws
    # them; 1280 is not a multiple of 426, so a 2-pixel strip of background stays on the right.
    # The whole composite must be what the `ffmpeg` CLI's scale + overlay graph makes of the same
    # sources, sample for sample: a tile one pixel off, another filter or a wrong background shows.
    sources = [media.video(f"testsrc2=s=1280x720:r=10:d=0.5,hue=h={60 * k},noise=alls=40:allf=u,format=yuv420p",
                           codec="ffv1", ext="mkv", stem=f"noisy720-{k}",
                           extra=["-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
                                  "-color_range", "tv"]) for k in range(3)]
    places = [(0, 0), (426, 240), (852, 480)]
    doc = task([{"id": f"cam{k}", "url": src} for k, src in enumerate(sources)],
               [{"input": f"cam{k}", "x": x, "y": y, "width": 426, "height": 240, "renderMode": "stretch"}
                for k, (x, y) in enumerate(places)],
               width=1280, height=720, fps=10, background="#000000", audio_encoder=False)
    ws.mix(doc)
    frames = read_y4m(ws.out / "out.y4m").frames

    def graph(flags: str):
        # Black: the same samples in BT.601 (ffmpeg's colour source) and BT.709 (Tessera).
        chain = "color=c=black:s=1280x720:r=10:d=0.5,format=yuv420p[bg]"
        previous = "bg"
        for k, (x, y) in enumerate(places):
            chain += f";[{k}:v]scale=426:240:flags={flags}[s{k}];[{previous}][s{k}]overlay=x={x}:y={y}:format=yuv420[o{k}]"
            previous = f"o{k}"
        command = ["ffmpeg", "-v", "error", "-nostdin"]
        for src in sources:
            command += ["-i", media.path(src)]
        raw = subprocess.run(command + ["-filter_complex", chain, "-map", f"[{previous}]", "-pix_fmt", "yuv420p",
                                        "-f", "rawvideo", "-"], capture_output=True, check=True).stdout
        return split_yuv420(raw, 1280, 720)

    expected, bicubic = graph("bilinear"), graph("bicubic")
    assert len(frames) == len(expected) == 5, (len(frames), len(expected))
    for k, (frame, reference, other) in enumerate(zip(frames, expected, bicubic)):
        assert max_difference(frame, reference) == 0, f"frame {k}: not ffmpeg's scale + overlay picture"
        # The check can fail: the same graph with another scaler is far from it.
        assert max_difference(frame, other) > 20, f"frame {k}: the bicubic picture should differ"
    # And the strip the tiles leave is the background itself: limited-range black.
    for plane, value in ((frames[0].y[:, 1278:], 16), (frames[0].u[:, 639:], 128), (frames[0].v[:, 639:], 128)):
        assert int(plane.min()) == int(plane.max()) == value, plane
