"""`tessera preview`: the layout drawn as boxes on a PNG at canvas size, without any media."""
import subprocess

import numpy as np

from helpers import ffprobe, run_tessera


def read_png_rgb(path):
    info = ffprobe(path)["streams"][0]
    w, h = int(info["width"]), int(info["height"])
    r = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                       capture_output=True, timeout=60)
    assert r.returncode == 0
    return info, np.frombuffer(r.stdout, dtype=np.uint8).reshape(h, w, 3)


def preview_task(regions, width=640, height=360, **layout):
    return {
        # The media does not exist: a preview needs none.
        "inputs": [{"id": "host", "url": "missing/host.mp4"}, {"id": "guest", "url": "missing/guest.mp4"},
                   {"id": "third", "url": "missing/third.mp4"}],
        "encoder": {"video": {"width": width, "height": height, "fps": 30}},
        "layout": {"backgroundColor": "#202020", **layout, **({"regions": regions} if regions is not None else {})},
        "outputs": [{"url": "never-written.mp4"}],
    }


def differs_from_background(img, rect, bg):
    x0, y0, x1, y1 = rect
    part = img[y0:y1, x0:x1].astype(int)
    return float(np.mean(np.any(np.abs(part - bg) > 24, axis=-1)))


def modal_colour(img):
    flat = img.reshape(-1, 3)
    values, counts = np.unique(flat, axis=0, return_counts=True)
    return values[np.argmax(counts)].astype(int)


def test_preview_draws_each_region(ws):
    regions = [
        {"input": "host", "x": 0, "y": 0, "width": 320, "height": 360},
        {"input": "guest", "units": "relative", "x": 0.5, "y": 0, "width": 0.5, "height": 0.5},
        {"input": "third", "x": 400, "y": 220, "width": 200, "height": 120, "zOrder": 2},
        {"image": "missing/logo.png", "x": 560, "y": 10, "width": 64, "height": 32, "alpha": 0.8},
    ]
    doc = preview_task(regions)
    out = ws.root / "preview.png"
    r = run_tessera(["preview", ws.write_task(doc), "--output", out], cwd=ws.root)
    assert r.returncode == 0, f"preview failed (exit {r.returncode}):\n{r.stderr}"
    info, img = read_png_rgb(out)
    assert info["codec_name"] == "png"
    assert (int(info["width"]), int(info["height"])) == (640, 360), "the preview is at canvas size"
    # Outside every region: the canvas, in one colour for most of it.
    outside = img[250:350, 330:390]
    bg = modal_colour(outside)
    assert np.mean(np.all(outside == bg, axis=-1)) > 0.9, "the area outside all regions should be plain canvas"
    for i, (x0, y0, x1, y1) in enumerate([(0, 0, 320, 360), (320, 0, 640, 180), (400, 220, 600, 340),
                                          (560, 10, 624, 42)]):
        frac = differs_from_background(img, (x0, y0, x1, y1), bg)
        assert frac > 0.05, f"region {i} ({x0},{y0})-({x1},{y1}) is not drawn (only {frac:.1%} differs from canvas)"
    assert not (ws.out / "never-written.mp4").exists() and not (ws.root / "never-written.mp4").exists()


def test_preview_boxes_are_distinguishable(ws):
    # Two regions side by side must not come out as one undivided area: each box has an outline
    # or its own fill, so the pixels along the shared edge differ from the boxes' interiors.
    regions = [{"input": "host", "x": 0, "y": 0, "width": 160, "height": 120},
               {"input": "guest", "x": 160, "y": 0, "width": 160, "height": 120}]
    out = ws.root / "p.png"
    r = run_tessera(["preview", ws.write_task(preview_task(regions, 320, 240)), "--output", out], cwd=ws.root)
    assert r.returncode == 0, r.stderr
    _, img = read_png_rgb(out)
    left, right = img[20:100, 20:140].reshape(-1, 3), img[20:100, 180:300].reshape(-1, 3)
    edge_band = img[5:115, 156:164].astype(int)
    inner = np.median(np.concatenate([left, right]), axis=0)
    assert np.mean(np.any(np.abs(edge_band - inner) > 24, axis=-1)) > 0.2 or \
        np.abs(np.median(left, axis=0) - np.median(right, axis=0)).max() > 24, \
        "the two boxes cannot be told apart"


def test_preview_of_a_template(ws):
    doc = preview_task(None, 640, 360, template="grid")
    doc["inputs"].append({"id": "fourth", "url": "missing/fourth.mp4"})
    out = ws.root / "grid.png"
    r = run_tessera(["preview", ws.write_task(doc), "--output", out], cwd=ws.root)
    assert r.returncode == 0, r.stderr
    info, img = read_png_rgb(out)
    assert (int(info["width"]), int(info["height"])) == (640, 360)
    # 4 inputs in the grid template: a 2x2 grid. Each quadrant holds a drawn box.
    quads = [(0, 0, 320, 180), (320, 0, 640, 180), (0, 180, 320, 360), (320, 180, 640, 360)]
    sigs = []
    for q in quads:
        x0, y0, x1, y1 = q
        part = img[y0:y1, x0:x1].astype(int)
        sigs.append(part.std())
        assert part.std() > 3, f"quadrant {q} of the grid preview is blank"


def test_preview_rejects_an_invalid_layout(ws):
    regions = [{"input": "ghost", "x": 0, "y": 0, "width": 100, "height": 100}]
    out = ws.root / "bad.png"
    r = run_tessera(["preview", ws.write_task(preview_task(regions)), "--output", out], cwd=ws.root)
    assert r.returncode == 1
    assert "layout.regions[0].input" in r.stderr + r.stdout
    assert not out.exists()


def test_preview_of_the_speaker_template(ws):
    # Three inputs, `main` the third: its box fills the top three quarters, the others sit in the
    # bottom strip (two 128x90 tiles centred: 192–320 and 320–448), the strip's sides stay background.
    doc = preview_task(None, 640, 360, template="speaker", main="third")
    out = ws.root / "speaker.png"
    r = run_tessera(["preview", ws.write_task(doc), "--output", out], cwd=ws.root)
    assert r.returncode == 0, r.stderr
    _, img = read_png_rgb(out)
    bg = np.array([0x20, 0x20, 0x20])
    assert differs_from_background(img, (0, 0, 640, 270), bg) > 0.3, "the big picture is not drawn"
    for tile in ((192, 270, 320, 360), (320, 270, 448, 360)):
        assert differs_from_background(img, tile, bg) > 0.3, f"strip tile {tile} is not drawn"
    for side in ((0, 272, 190, 360), (450, 272, 640, 360)):
        assert differs_from_background(img, side, bg) < 0.02, f"{side} beside the strip should be background"
