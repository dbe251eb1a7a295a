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
