"""Phone-style recordings: MP4s whose frames are coded landscape with a display matrix that says how
to show them (rotation 90 / 180 / 270, a left-right mirror, a mirror with a quarter turn). Tessera
must draw them as ffmpeg's own autorotation shows them, in every render mode and region shape: each
sample of the .y4m composite is compared with ffmpeg's autorotated decode, mapped through the same
fit / crop / stretch placement.

The recordings are made by the ffmpeg CLI: `-metadata:s:v:0 rotate=N` on a stream copy writes the
display matrix in FFmpeg 5.1 (on an encode it writes nothing); 5.1 has no option for a mirror, so
those files get their `tkhd` matrix written here, as a phone's muxer would.
"""
from __future__ import annotations

import struct
import subprocess

import numpy as np
import pytest

from helpers import BLUE, CYAN, GREEN, GREY, MAGENTA, RED, YELLOW, ffprobe, hex_colour, lavfi_colour, read_y4m, task

TOL = 40          # R'G'B' levels: H.264 at CRF 4 and two scalers (ours, ffmpeg's) apart
MARGIN = 5        # output pixels kept clear of quadrant edges and picture edges
CODED = (160, 96)  # landscape, as a phone's sensor codes it; quadrant edges on 16-pixel blocks

# Coded picture: red | green over blue | yellow.
QUADRANTS = {"TL": RED, "TR": GREEN, "BL": BLUE, "BR": YELLOW}
NAMED = [RED, GREEN, BLUE, YELLOW]

# What each case shows, corner by corner, by the matrix maths alone (ffmpeg must agree).
CASES = {
    # stream copy with rotate=N: FFmpeg 5.1 stores a counter-clockwise turn by N (ffprobe: rotation=N)
    "rotate90": ({"TL": GREEN, "TR": YELLOW, "BL": RED, "BR": BLUE}, True),
    "rotate180": ({"TL": YELLOW, "TR": BLUE, "BL": GREEN, "BR": RED}, False),
    "rotate270": ({"TL": BLUE, "TR": RED, "BL": YELLOW, "BR": GREEN}, True),
    # an iPhone portrait recording: tkhd (0 1 -1 0), clockwise 90 (ffprobe: rotation=-90)
    "phone-portrait": ({"TL": BLUE, "TR": RED, "BL": YELLOW, "BR": GREEN}, True),
    "mirror": ({"TL": GREEN, "TR": RED, "BL": YELLOW, "BR": BLUE}, False),
    "transpose": ({"TL": RED, "TR": BLUE, "BL": GREEN, "BR": YELLOW}, True),
    "upright": (QUADRANTS, False),
}
ONE = 1 << 16
MATRICES = {
    "phone-portrait": [0, ONE, 0, -ONE, 0, 0, CODED[1] * ONE, 0, 1 << 30],
    "mirror": [-ONE, 0, 0, 0, ONE, 0, CODED[0] * ONE, 0, 1 << 30],
    "transpose": [0, ONE, 0, ONE, 0, 0, 0, 0, 1 << 30],
}


def quadrant_clip(media) -> str:
    w, h = CODED[0] // 2, CODED[1] // 2
    parts = [f"color=c={lavfi_colour(c)}:s={w}x{h}:r=10:d=1[{k}]" for k, c in QUADRANTS.items()]
    graph = ";".join(parts) + ";[TL][TR]hstack[top];[BL][BR]hstack[bottom];[top][bottom]vstack"
    return media.video(graph, ext="mp4", codec="h264", stem="quadrants")


def with_matrix(media, base: str, name: str, matrix: list[int]) -> str:
    """A copy of `base` whose video track header carries `matrix` (9 fixed-point values)."""
    dest = media.path(f"{name}-{base}")
    if not dest.exists():
        data = bytearray(media.path(base).read_bytes())
        at = data.index(b"tkhd")
        version = data[at + 4]
        # tkhd: version/flags, times and ids (20 bytes, 32 in version 1), 16 reserved/layer/volume bytes.
        offset = at + 4 + 4 + (32 if version == 1 else 20) + 16
        data[offset:offset + 36] = struct.pack(">9i", *matrix)
        tmp = dest.with_name(".tmp-" + dest.name)
        tmp.write_bytes(data)
        tmp.rename(dest)
    return dest.name


def recording(media, case: str) -> str:
    base = quadrant_clip(media)
    if case == "upright":
        return base
    if case.startswith("rotate"):
        return media.make(case, "mp4", ["-i", str(media.path(base)), "-map", "0", "-c", "copy",
                                        "-metadata:s:v:0", f"rotate={case[len('rotate'):]}", "-f", "mp4"])
    return with_matrix(media, base, case, MATRICES[case])


def autorotated(media, name: str, size) -> np.ndarray:
    """ffmpeg's own autorotated decode of the first frame, R'G'B' H×W×3."""
    w, h = size
    r = subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-i", str(media.path(name)),
                        "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    assert len(r.stdout) == w * h * 3, f"ffmpeg's autorotated picture is not {w}x{h} ({len(r.stdout)} bytes)"
    return np.frombuffer(r.stdout, dtype=np.uint8).reshape(h, w, 3).astype(np.float64)


# RegionPlacement, as the README documents it: even sizes, integer maths, centred.
def even_floor(v: int) -> int:
    return (v // 2) * 2


def scaled_size(source, region, mode):
    sw, sh = source
    rw, rh = max(2, even_floor(region[0])), max(2, even_floor(region[1]))
    if mode == "stretch":
        return rw, rh
    def nearest_even(n, d):
        return 2 * ((n + d) // (2 * d))
    if (mode == "crop") == (rw * sh >= rh * sw):
        h = nearest_even(sh * rw, sw)
        return rw, (max(rh, h) if mode == "crop" else max(2, min(rh, h)))
    w = nearest_even(sw * rh, sh)
    return (max(rw, w) if mode == "crop" else max(2, min(rw, w))), rh


# Regions of every shape and mode (no overlaps), on a 320x240 grey canvas.
REGIONS = [
    {"x": 0, "y": 0, "width": 96, "height": 160, "renderMode": "stretch"},
    {"x": 100, "y": 0, "width": 60, "height": 120, "renderMode": "crop"},
    {"x": 164, "y": 0, "width": 156, "height": 100, "renderMode": "fit", "backgroundColor": hex_colour(MAGENTA)},
    {"x": 164, "y": 104, "width": 156, "height": 80, "renderMode": "crop"},
    {"x": 0, "y": 164, "width": 160, "height": 76, "renderMode": "stretch"},
    {"x": 100, "y": 124, "width": 60, "height": 36, "renderMode": "fit", "backgroundColor": hex_colour(CYAN)},
    {"x": 164, "y": 188, "width": 156, "height": 52, "renderMode": "fit"},
]


@pytest.mark.parametrize("case", list(CASES))
def test_display_matrix_is_applied_like_ffmpeg_autorotation(ws, media, case):
    corners, swaps = CASES[case]
    name = recording(media, case)
    side = ffprobe(media.path(name))["streams"][0].get("side_data_list", [])
    assert (case == "upright") == (not any(s.get("side_data_type") == "Display Matrix" for s in side)), side
    shown = (CODED[1], CODED[0]) if swaps else CODED
    reference = autorotated(media, name, shown)
    w, h = shown
    # The recording really is what this case claims: ffmpeg shows these corners.
    for corner, (x, y) in {"TL": (8, 8), "TR": (w - 9, 8), "BL": (8, h - 9), "BR": (w - 9, h - 9)}.items():
        got = reference[y - 2:y + 3, x - 2:x + 3].reshape(-1, 3).mean(axis=0)
        assert np.max(np.abs(got - corners[corner])) <= TOL, f"ffmpeg shows {case} {corner} as {got}"

    doc = task([{"id": "phone", "url": name}], [dict(r, input="phone") for r in REGIONS], background=hex_colour(GREY))
    ws.mix(doc)
    frame = read_y4m(ws.out / "out.y4m").frames[5]
    rgb = frame.rgb()
    problems, checked = [], 0
    for region in REGIONS:
        rx, ry, rw, rh = region["x"], region["y"], region["width"], region["height"]
        sw, sh = scaled_size(shown, (rw, rh), region["renderMode"])
        ox, oy = rx + even_floor((rw - sw) // 2), ry + even_floor((rh - sh) // 2)
        bar = {"#FF00FF": MAGENTA, "#00FFFF": CYAN}.get(region.get("backgroundColor"), GREY)
        for py in range(ry + 2, ry + rh - 2, 3):
            for px in range(rx + 2, rx + rw - 2, 3):
                got = rgb[py - 1:py + 1, px - 1:px + 1].reshape(-1, 3).mean(axis=0)
                inside_x, inside_y = ox + MARGIN <= px < ox + sw - MARGIN, oy + MARGIN <= py < oy + sh - MARGIN
                outside = px < ox - MARGIN or px >= ox + sw + MARGIN or py < oy - MARGIN or py >= oy + sh + MARGIN
                if outside:
                    expected = bar
                elif inside_x and inside_y:
                    # The point of the shown picture this output pixel samples.
                    u, v = (px + 0.5 - ox) * w / sw, (py + 0.5 - oy) * h / sh
                    if min(abs(u - w / 2) * sw / w, abs(v - h / 2) * sh / h) < MARGIN:
                        continue  # on a quadrant edge
                    iu, iv = int(u), int(v)
                    expected = reference[max(0, iv - 1):iv + 2, max(0, iu - 1):iu + 2].reshape(-1, 3).mean(axis=0)
                    assert min(np.max(np.abs(expected - c)) for c in NAMED) <= TOL, (case, iu, iv, expected)
                else:
                    continue
                checked += 1
                if np.max(np.abs(got - np.asarray(expected, dtype=np.float64))) > TOL:
                    problems.append(f"{region['renderMode']} {rw}x{rh} at ({px},{py}): expected "
                                    f"{tuple(np.round(expected))}, got {tuple(np.round(got))}")
    assert checked > 1000
    assert not problems, f"{case}: {len(problems)} of {checked} samples differ from ffmpeg's autorotation, e.g. " \
                         + "; ".join(problems[:5])
