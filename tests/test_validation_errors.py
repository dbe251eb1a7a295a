"""Invalid task documents and inputs: exit 1, one `path: message` line per problem, nothing written.
Each case is run through `tessera validate` and `tessera mix`."""
import copy
import json
import os
import re

import pytest

from helpers import BLUE, RED, YELLOW, run_tessera


def base(media) -> dict:
    a = media.solid(RED, duration=1.0, tone=440)
    b = media.solid(BLUE, duration=1.0)
    png = media.still_png(YELLOW)
    return {
        "inputs": [{"id": "a", "url": a}, {"id": "b", "url": b}],
        "encoder": {"video": {"width": 320, "height": 240, "fps": 10, "bitrateKbps": 800, "gopSeconds": 1,
                              "codec": "h264", "preset": "ultrafast"},
                    "audio": {"sampleRate": 48000, "channels": 2, "bitrateKbps": 128, "codec": "aac"}},
        "layout": {"backgroundColor": "#000000", "regions": [
            {"input": "a", "x": 0, "y": 0, "width": 160, "height": 240},
            {"input": "b", "x": 160, "y": 0, "width": 160, "height": 240, "renderMode": "fit",
             "backgroundColor": "#101010"},
            {"image": png, "x": 10, "y": 10, "width": 40, "height": 40, "alpha": 0.5, "zOrder": 3},
        ]},
        "audio": {"inputs": ["a", "b"], "volumes": {"a": 100}},
        "outputs": [{"url": "v.mp4"}, {"url": "v.y4m"}],
    }


_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _walk(doc, path):
    keys = [int(i) if i else k for k, i in _TOKEN.findall(path)]
    parent = doc
    for k in keys[:-1]:
        parent = parent[k]
    return parent, keys[-1]


def setp(path, value):
    def mutate(doc):
        parent, key = _walk(doc, path)
        parent[key] = value
    return mutate


def delp(path):
    def mutate(doc):
        parent, key = _walk(doc, path)
        del parent[key]
    return mutate


def both(*mutations):
    def mutate(doc):
        for m in mutations:
            m(doc)
    return mutate


CASES = [
    # (id, mutation, the field path that must be named)
    ("odd-width", setp("encoder.video.width", 321), "encoder.video.width"),
    ("odd-height", setp("encoder.video.height", 239), "encoder.video.height"),
    ("width-too-small", setp("encoder.video.width", 8), "encoder.video.width"),
    ("width-too-large", setp("encoder.video.width", 4000), "encoder.video.width"),
    ("height-too-large", setp("encoder.video.height", 2200), "encoder.video.height"),
    ("width-missing", delp("encoder.video.width"), "encoder.video.width"),
    ("width-not-a-number", setp("encoder.video.width", "wide"), "encoder.video.width"),
    ("fps-zero", setp("encoder.video.fps", 0), "encoder.video.fps"),
    ("fps-too-high", setp("encoder.video.fps", 61), "encoder.video.fps"),
    ("bitrate-negative", setp("encoder.video.bitrateKbps", -5), "encoder.video.bitrateKbps"),
    ("gop-zero", setp("encoder.video.gopSeconds", 0), "encoder.video.gopSeconds"),
    ("video-codec", setp("encoder.video.codec", "vp9"), "encoder.video.codec"),
    ("preset", setp("encoder.video.preset", "warpspeed"), "encoder.video.preset"),
    ("sample-rate-low", setp("encoder.audio.sampleRate", 7000), "encoder.audio.sampleRate"),
    ("sample-rate-high", setp("encoder.audio.sampleRate", 96000), "encoder.audio.sampleRate"),
    ("channels", setp("encoder.audio.channels", 3), "encoder.audio.channels"),
    ("audio-codec", setp("encoder.audio.codec", "opus"), "encoder.audio.codec"),
    ("duplicate-id", setp("inputs[1].id", "a"), "inputs[1].id"),
    ("url-and-rtp", setp("inputs[0].rtp", {"sdp": "v=0\r\n"}), "inputs[0]"),
    ("no-url-no-rtp", delp("inputs[1].url"), "inputs[1]"),
    ("start-negative", setp("inputs[0].startAtMs", -100), "inputs[0].startAtMs"),
    ("input-file-missing", setp("inputs[1].url", "no-such-file.mp4"), "inputs[1].url"),
    ("input-scheme", setp("inputs[0].url", "gopher://example.com/a.mp4"), "inputs[0].url"),
    ("region-unknown-input", setp("layout.regions[0].input", "ghost"), "layout.regions[0].input"),
    ("region-input-and-image", setp("layout.regions[0].image", "x.png"), "layout.regions[0]"),
    ("region-neither", delp("layout.regions[1].input"), "layout.regions[1]"),
    ("alpha-above-1", setp("layout.regions[2].alpha", 1.5), "layout.regions[2].alpha"),
    ("alpha-negative", setp("layout.regions[2].alpha", -0.1), "layout.regions[2].alpha"),
    ("render-mode", setp("layout.regions[1].renderMode", "zoom"), "layout.regions[1].renderMode"),
    ("units", setp("layout.regions[0].units", "percent"), "layout.regions[0].units"),
    ("region-width-zero", setp("layout.regions[0].width", 0), "layout.regions[0].width"),
    ("region-height-negative", setp("layout.regions[0].height", -10), "layout.regions[0].height"),
    ("zorder-fraction", setp("layout.regions[0].zOrder", 1.5), "layout.regions[0].zOrder"),
    ("background-colour-name", setp("layout.backgroundColor", "red"), "layout.backgroundColor"),
    ("region-colour-short", setp("layout.regions[1].backgroundColor", "#12345"), "layout.regions[1].backgroundColor"),
    ("region-colour-hex", setp("layout.regions[1].backgroundColor", "#GG0000"), "layout.regions[1].backgroundColor"),
    ("image-missing", setp("layout.regions[2].image", "no-such-logo.png"), "layout.regions[2].image"),
    ("background-image-missing", setp("layout.backgroundImage", "no-such-bg.png"), "layout.backgroundImage"),
    ("placeholder-missing", setp("layout.regions[1].placeholderImage", "no-such-ph.png"),
     "layout.regions[1].placeholderImage"),
    ("template", both(delp("layout.regions"), setp("layout.template", "mosaic")), "layout.template"),
    ("outputs-empty", setp("outputs", []), "outputs"),
    ("outputs-missing", delp("outputs"), "outputs"),
    ("outputs-too-many", setp("outputs", [{"url": f"o{i}.mp4"} for i in range(11)]), "outputs"),
    ("output-extension", setp("outputs[0].url", "v.avi"), "outputs[0].url"),
    ("output-no-extension", setp("outputs[1].url", "recording"), "outputs[1].url"),
    ("volume-unknown-input", setp("audio.volumes", {"ghost": 50}), "audio.volumes.ghost"),
    ("volume-too-high", setp("audio.volumes", {"a": 250}), "audio.volumes.a"),
    ("volume-negative", setp("audio.volumes", {"b": -1}), "audio.volumes.b"),
    ("audio-inputs-unknown", setp("audio.inputs", ["a", "ghost"]), "audio.inputs[1]"),
    ("mode", setp("mode", "party"), "mode"),
    ("pace", setp("pace", "slow"), "pace"),
    ("max-duration-negative", setp("maxDurationSeconds", -1), "maxDurationSeconds"),
    # rtp.allocate as an SFU negotiated it, and rtp.source (issue 20).
    ("allocate-payload-type", both(delp("inputs[1].url"), setp("inputs[1].rtp", {"allocate": {
        "video": {"codec": "H264", "payloadType": 34}}})), "inputs[1].rtp.allocate.video.payloadType"),
    ("allocate-rtx-same-type", both(delp("inputs[1].url"), setp("inputs[1].rtp", {"allocate": {
        "video": {"codec": "VP8", "payloadType": 100, "rtxPayloadType": 100}}})),
     "inputs[1].rtp.allocate.video.rtxPayloadType"),
    ("allocate-opus-clock", both(delp("inputs[1].url"), setp("inputs[1].rtp", {"allocate": {
        "audio": {"codec": "opus", "clockRate": 16000}}})), "inputs[1].rtp.allocate.audio.clockRate"),
    ("allocate-fmtp-line-break", both(delp("inputs[1].url"), setp("inputs[1].rtp", {"allocate": {
        "video": {"codec": "H264", "fmtp": "packetization-mode=1\r\na=rtcp-mux"}}})), "inputs[1].rtp.allocate.video.fmtp"),
    ("allocate-extension-id", both(delp("inputs[1].url"), setp("inputs[1].rtp", {"allocate": {
        "video": "H264", "extensions": {"urn:3gpp:video-orientation": 15}}})),
     "inputs[1].rtp.allocate.extensions.urn:3gpp:video-orientation"),
    ("allocate-srtp-suite", both(delp("inputs[1].url"), setp("inputs[1].rtp", {"allocate": {
        "video": "H264", "srtp": {"suite": "NULL_CIPHER", "key": "AAAA"}}})), "inputs[1].rtp.allocate.srtp.suite"),
    ("allocate-srtp-key-length", both(delp("inputs[1].url"), setp("inputs[1].rtp", {"allocate": {
        "video": "H264", "srtp": {"suite": "AES_CM_128_HMAC_SHA1_80", "key": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}}})),
     "inputs[1].rtp.allocate.srtp.key"),
    ("rtp-source", both(delp("inputs[1].url"), setp("inputs[1].rtp", {"allocate": {"video": "H264"},
                                                                         "source": "10.0.0.0/40"})),
     "inputs[1].rtp.source"),
]


def names_path(text: str, path: str) -> bool:
    """A line naming `path` as a field path: `path:` or a sub-path `path.x` / `path[0]`."""
    return re.search(r"(^|[\s'\"`])" + re.escape(path) + r"([:.\[]|$)", text, re.MULTILINE) is not None


@pytest.mark.parametrize("case_id,mutation,path", CASES, ids=[c[0] for c in CASES])
def test_invalid_field_is_named_and_nothing_is_written(ws, media, case_id, mutation, path):
    doc = copy.deepcopy(base(media))
    mutation(doc)
    task_file = ws.write_task(doc)

    v = run_tessera(["validate", task_file], cwd=media.root)
    assert v.returncode == 1, f"validate: expected exit 1, got {v.returncode}\n{v.stdout}{v.stderr}"
    assert names_path(v.stdout + v.stderr, path), f"validate does not name {path!r}:\n{v.stdout}{v.stderr}"

    m = ws.run("mix", task_file)
    assert m.returncode == 1, f"mix: expected exit 1, got {m.returncode}\n{m.stderr}"
    assert names_path(m.stderr, path), f"mix does not name {path!r} on stderr:\n{m.stderr}"
    assert ws.output_files() == [], f"an invalid task wrote {ws.output_files()}"


def test_the_valid_base_task_passes(ws, media):
    """The baseline every case above mutates is itself valid (so each failure is the mutation's)."""
    doc = base(media)
    task_file = ws.write_task(doc)
    v = run_tessera(["validate", task_file], cwd=media.root)
    assert v.returncode == 0, f"validate rejected the valid task:\n{v.stdout}{v.stderr}"
    assert (v.stdout + v.stderr).strip(), "validate prints a short summary for a valid task"
    ws.mix(task_file)
    assert sorted(ws.output_files()) == ["v.mp4", "v.y4m"]


def test_every_problem_is_reported_at_once(ws, media):
    doc = base(media)
    doc["encoder"]["video"]["width"] = 321
    doc["layout"]["regions"][2]["alpha"] = 2
    doc["layout"]["regions"][0]["input"] = "ghost"
    doc["outputs"][0]["url"] = "v.avi"
    doc["audio"]["volumes"] = {"a": 300}
    paths = ["encoder.video.width", "layout.regions[2].alpha", "layout.regions[0].input", "outputs[0].url",
             "audio.volumes.a"]
    for cmd in ("validate", "mix"):
        r = run_tessera([cmd, ws.write_task(doc)], cwd=media.root) if cmd == "validate" else ws.run("mix", doc)
        assert r.returncode == 1
        text = r.stdout + r.stderr
        missing = [p for p in paths if not names_path(text, p)]
        assert not missing, f"{cmd} did not report {missing}:\n{text}"
        lines = [ln for ln in text.splitlines() if any(names_path(ln, p) for p in paths)]
        assert len(lines) >= len(paths), f"{cmd}: expected one line per problem:\n{text}"
    assert ws.output_files() == []


@pytest.mark.parametrize("text", ['{"inputs": [', "not json at all", "[]", '{"inputs": "a"}'])
def test_malformed_document(ws, text):
    for cmd in ("validate", "mix"):
        r = ws.run(cmd, ws.write_task(text))
        assert r.returncode == 1, f"{cmd} on {text!r}: exit {r.returncode}\n{r.stderr}"
        assert r.stderr.strip() or r.stdout.strip(), "no message"
        assert "Fatal error" not in r.stderr and "Stack dump" not in r.stderr, r.stderr
    assert ws.output_files() == []


def test_missing_task_file(ws):
    r = run_tessera(["mix", ws.root / "nope.json"], cwd=ws.root)
    assert r.returncode != 0 and "nope.json" in r.stderr


def corrupt_inputs(media):
    root = media.root
    junk = root / "junk.mp4"
    if not junk.exists():
        junk.write_bytes(os.urandom(64 * 1024))
    text = root / "text.mkv"
    if not text.exists():
        text.write_text("this is not a matroska file\n" * 100)
    good = media.path(media.solid(RED, duration=2.0, tone=440, ext="mp4"))
    truncated = root / "truncated.mp4"
    if not truncated.exists():
        data = good.read_bytes()
        # the MP4 muxer writes moov at the end: the first 2 kB hold no usable index
        truncated.write_bytes(data[:2048])
    return {"random-bytes": "junk.mp4", "text-file": "text.mkv", "truncated": "truncated.mp4"}


@pytest.mark.parametrize("kind", ["random-bytes", "text-file", "truncated"])
def test_corrupt_input_fails_naming_it_and_leaves_no_output(ws, media, kind):
    name = corrupt_inputs(media)[kind]
    doc = base(media)
    doc["inputs"][1]["url"] = name
    doc["outputs"] = [{"url": "c.mp4"}, {"url": "c.flv"}, {"url": "c.mkv"}, {"url": "c.ts"}, {"url": "c.y4m"}]
    r = ws.run("mix", doc)
    assert r.returncode == 1, f"expected exit 1 for a {kind} input, got {r.returncode}\n{r.stderr}"
    assert name in r.stderr, f"stderr does not name the file {name}:\n{r.stderr}"
    assert re.search(r"\bb\b", r.stderr), f"stderr does not name the input id 'b':\n{r.stderr}"
    assert ws.output_files() == [], f"a failed run left {ws.output_files()}"


def test_missing_input_fails_naming_it(ws, media):
    doc = base(media)
    doc["inputs"][1]["url"] = "gone.mp4"
    r = ws.run("mix", doc)
    assert r.returncode == 1
    assert "gone.mp4" in r.stderr and ("inputs[1]" in r.stderr or re.search(r"\bb\b", r.stderr)), r.stderr
    assert ws.output_files() == []


def test_late_corrupt_input_removes_started_outputs(ws, media):
    """An input that only fails to open when its turn comes (startAtMs) must still leave nothing."""
    corrupt_inputs(media)
    doc = base(media)
    doc["inputs"][0]["url"] = media.solid(RED, duration=3.0, tone=440)
    doc["inputs"][1].update({"url": "junk.mp4", "startAtMs": 2000})
    doc["outputs"] = [{"url": "late.mp4"}, {"url": "late.ts"}]
    r = ws.run("mix", doc)
    assert r.returncode == 1, f"expected exit 1, got {r.returncode}\n{r.stderr}"
    assert "junk.mp4" in r.stderr
    assert ws.output_files() == [], f"a failed run left {ws.output_files()}"


def test_validate_output_is_machine_friendly(ws, media):
    doc = base(media)
    doc["encoder"]["video"]["fps"] = 0
    r = run_tessera(["validate", ws.write_task(doc)], cwd=media.root)
    assert r.returncode == 1
    line = next(ln for ln in (r.stdout + r.stderr).splitlines() if "encoder.video.fps" in ln)
    assert re.search(r"encoder\.video\.fps: \S", line), f"expected 'encoder.video.fps: <message>', got {line!r}"
    assert json.dumps(doc)  # the document itself is fine JSON
