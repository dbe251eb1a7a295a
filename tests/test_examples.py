"""The example tasks in Layouts/examples run as a new user runs them: demo media from
scripts/demo.sh, then `tessera mix <example> --media-root demo/media --output-dir demo/out`."""
import json
import os
import subprocess

import pytest

from helpers import REPO, TESSERA_BIN, ffprobe, run_tessera

EXAMPLES = sorted((REPO / "Layouts" / "examples").glob("*.json"))

# Expected output duration per example, from the demo media (anchor 10 s, guest 8 s, cohost 8 s,
# caller 10.05 s) and each task's startAtMs / loop / maxDurationSeconds.
DURATIONS = {
    "two-person-call": 10.0,        # anchor 10 s; guest 2 + 8 s
    "pk-side-by-side": 10.0,        # anchor 10 s; guest 8 s
    "host-cohost-pip": 10.0,        # host 10 s; cohost 1 + 8 s
    "voice-room-audio-only": 10.05,  # caller 10.05 s
    "grid-template": 10.0,          # maxDurationSeconds 10
    "speaker-room": 10.0,           # anchor 10 s; guest 2 + 8 s; cohost 8 s
}


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """Runs scripts/demo.sh as the README does (media + the PK example) into a temporary DEMO_DIR."""
    demo_dir = tmp_path_factory.mktemp("demo")
    env = dict(os.environ, DEMO_DIR=str(demo_dir), TESSERA_BIN=str(TESSERA_BIN))
    r = subprocess.run(["bash", str(REPO / "scripts" / "demo.sh")], cwd=REPO, env=env, capture_output=True,
                       text=True, timeout=600)
    return demo_dir, r


def test_examples_exist():
    names = {p.stem for p in EXAMPLES}
    assert set(DURATIONS) <= names, f"missing examples: {set(DURATIONS) - names}"


def test_demo_script(demo):
    demo_dir, r = demo
    assert r.returncode == 0, f"scripts/demo.sh failed ({r.returncode}):\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
    for name in ("anchor.mp4", "guest.mp4", "cohost.webm", "caller.mkv", "logo.png", "bg.png", "placeholder.png"):
        assert (demo_dir / "media" / name).exists(), f"demo media {name} missing"
    assert (demo_dir / "out" / "pk.mp4").exists(), "the demo's example mix did not produce pk.mp4"
    assert str(demo_dir / "out") in r.stdout, "the demo does not print where the result is"
    logo = ffprobe(demo_dir / "media" / "logo.png")["streams"][0]
    assert logo["pix_fmt"] in ("rgba", "ya8", "rgba64be"), f"logo.png has no alpha channel: {logo['pix_fmt']}"


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_validates_and_mixes(demo, example, tmp_path):
    demo_dir, r = demo
    assert r.returncode == 0, "scripts/demo.sh failed; see test_demo_script"
    media = demo_dir / "media"
    doc = json.loads(example.read_text())

    v = run_tessera(["validate", example], cwd=media)
    assert v.returncode == 0, f"{example.name} does not validate:\n{v.stdout}{v.stderr}"

    m = run_tessera(["mix", example, "--media-root", media, "--output-dir", tmp_path], cwd=REPO, timeout=600)
    assert m.returncode == 0, f"{example.name}: mix failed ({m.returncode}):\n{m.stderr[-3000:]}"
    expected = DURATIONS.get(example.stem)
    for output in doc["outputs"]:
        out = tmp_path / output["url"]
        assert out.exists(), f"{example.name}: {output['url']} not written"
        info = ffprobe(out)
        kinds = sorted(s["codec_type"] for s in info["streams"])
        video = doc.get("encoder", {}).get("video")
        if video:
            assert kinds == ["audio", "video"], f"{out.name}: streams {kinds}"
            v = next(s for s in info["streams"] if s["codec_type"] == "video")
            assert (int(v["width"]), int(v["height"])) == (video["width"], video["height"])
            assert v["codec_name"] == "h264"
        else:
            assert kinds == ["audio"], f"{out.name}: an audio-only task has streams {kinds}"
        if expected:
            duration = float(info["format"]["duration"])
            assert abs(duration - expected) <= 0.3, f"{out.name}: duration {duration:.2f} s, expected {expected}"


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_preview(demo, example, tmp_path):
    doc = json.loads(example.read_text())
    if "video" not in doc.get("encoder", {}):
        pytest.skip("audio-only task: nothing to draw")
    out = tmp_path / "preview.png"
    r = run_tessera(["preview", example, "--output", out], cwd=demo[0] / "media")
    assert r.returncode == 0, r.stderr
    s = ffprobe(out)["streams"][0]
    assert (int(s["width"]), int(s["height"])) == (doc["encoder"]["video"]["width"], doc["encoder"]["video"]["height"])


SERVE_EXAMPLES = sorted((REPO / "Layouts" / "serve").glob("*.json"))


@pytest.mark.parametrize("example", SERVE_EXAMPLES, ids=[p.stem for p in SERVE_EXAMPLES])
def test_serve_example_validates(example, tmp_path):
    """`serve`-only examples (allocated RTP ports) cannot be mixed offline, but they validate."""
    v = run_tessera(["validate", example], cwd=tmp_path)
    assert v.returncode == 0, f"{example.name} does not validate:\n{v.stdout}{v.stderr}"
