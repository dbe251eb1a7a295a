"""The HTTP API's answers: 409 for duplicate task ids (a repeated identical POST is the same task) and stale sequences, 400 with the field path
for bad documents and updates, 404, 413, and that no rejected request leaves anything behind;
/healthz, /metrics, /openapi.yaml."""
from __future__ import annotations

import copy
import json
import re
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from helpers import BLUE, RED
from livetools import LEFT_PT, RIGHT_PT, decode_png_rgb, halves, raw_request, side_by_side

pytestmark = pytest.mark.live


def assert_error(r, status: int, code: str, path: str | None = None, what: str = ""):
    body = r.json
    assert r.status == status, f"{what}: expected {status} {code}, got {r.status}: {r.body[:1000]!r}"
    assert isinstance(body, dict) and isinstance(body.get("error"), dict), f"{what}: error body {r.body[:500]!r}"
    err = body["error"]
    assert err.get("code") == code, f"{what}: error code {err.get('code')!r}, expected {code!r}: {err}"
    assert isinstance(err.get("message"), str) and err["message"], f"{what}: no message: {err}"
    if path is not None:
        assert err.get("path") == path, f"{what}: error path {err.get('path')!r}, expected {path!r}: {err}"
    return err


def snapshot_colour(api, task_id, tmp_path, pt):
    r = api.get(f"/v1/tasks/{task_id}/snapshot.png")
    assert r.status == 200, r.status
    rgb = decode_png_rgb(r.body, tmp_path / "s.png").astype(np.float64)
    x, y = pt
    return rgb[y - 2:y + 2, x - 2:x + 2].reshape(-1, 3).mean(axis=0)


def close(a, b, tol=12):
    return float(np.max(np.abs(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)))) <= tol


def test_duplicate_task_id_is_409_but_a_repeated_post_is_the_same_task(api, rtmp_server, clips):
    doc = side_by_side("dup", clips.red, clips.blue, [rtmp_server.url("dup")])
    first = api.create(doc)
    again = api.post("/v1/tasks", doc)
    assert again.status == 201 and again.json["taskId"] == "dup" and again.json["startedAt"] == first["startedAt"], again.body
    other = side_by_side("dup", clips.blue, clips.red, [rtmp_server.url("dup2"), rtmp_server.url("dup3")])
    assert_error(api.post("/v1/tasks", other), 409, "TaskExists", what="different body, same taskId")
    assert api.task_ids() == ["dup"], api.task_ids()
    st = api.wait_state("dup", "running", 10)
    assert len(st["outputs"]) == 1, f"the rejected POST changed the task's outputs: {st['outputs']}"
    assert [i["id"] for i in st["inputs"]] == ["red", "blue"], st["inputs"]


def test_stale_sequence_is_409_and_changes_nothing(api, rtmp_server, clips, tmp_path):
    api.create(side_by_side("seq", clips.red, clips.blue, [rtmp_server.url("seq")]))
    api.wait_state("seq", "running", 10)
    r = api.patch("/v1/tasks/seq", {"layout": halves("blue", "red"), "sequence": 5})
    assert r.status == 200, f"PATCH sequence 5: {r.status} {r.body[:500]!r}"
    for seq in (5, 4, -1):
        assert_error(api.patch("/v1/tasks/seq", {"layout": halves("red", "blue"), "sequence": seq}),
                     409, "StaleSequence", what=f"sequence {seq} after 5")
    time.sleep(0.5)
    left = snapshot_colour(api, "seq", tmp_path, LEFT_PT)
    assert close(left, BLUE), f"a refused update rolled the layout back: left half is {left}"
    st = api.status("seq")
    if "sequence" in st:
        assert st["sequence"] == 5, st["sequence"]
    r = api.patch("/v1/tasks/seq", {"layout": halves("red", "blue"), "sequence": 6})
    assert r.status == 200, f"PATCH sequence 6: {r.status} {r.body[:500]!r}"
    ok = False
    for _ in range(20):
        time.sleep(0.1)
        if close(snapshot_colour(api, "seq", tmp_path, LEFT_PT), RED):
            ok = True
            break
    assert ok, "sequence 6 was not applied"
    assert api.task_ids() == ["seq"]


def _bad_documents(clips, url, outside: str):
    base = side_by_side("bad", clips.red, clips.blue, [url])
    cases = []

    def case(name, path, mutate):
        d = copy.deepcopy(base)
        d["taskId"] = f"bad-{name}"
        mutate(d)
        cases.append((name, path, d))

    case("negative-width", "layout.regions[0].width", lambda d: d["layout"]["regions"][0].update(width=-5))
    case("unknown-input", "layout.regions[1].input", lambda d: d["layout"]["regions"][1].update(input="nobody"))
    case("missing-file", "inputs[0].url", lambda d: d["inputs"][0].update(url="no-such-file.mp4"))
    case("outside-media-root", "inputs[1].url", lambda d: d["inputs"][1].update(url=outside))
    case("dot-dot", "inputs[1].url", lambda d: d["inputs"][1].update(url="../" + Path(outside).parent.name + "/"
                                                                      + Path(outside).name))
    case("concat", "inputs[0].url", lambda d: d["inputs"][0].update(url="concat:a.mp4|b.mp4"))
    case("huge-canvas", "encoder.video.width", lambda d: d["encoder"]["video"].update(width=8000))
    case("bad-fps", "encoder.video.fps", lambda d: d["encoder"]["video"].update(fps=0))
    case("bad-output-scheme", "outputs[0].url", lambda d: d["outputs"][0].update(url="ftp://127.0.0.1/x.flv"))
    case("no-outputs", "outputs", lambda d: d.update(outputs=[]))
    case("duplicate-input-id", "inputs[1].id", lambda d: d["inputs"][1].update(id="red"))
    case("bad-colour", "layout.backgroundColor", lambda d: d["layout"].update(backgroundColor="#12"))
    case("unknown-main", "layout.main", lambda d: d.update(layout={"template": "float", "main": "nobody"}))
    case("bad-fill", "layout.fill", lambda d: d.update(layout={"template": "grid", "fill": "some"}))
    case("fill-without-template", "layout.fill", lambda d: d["layout"].update(fill="present"))
    case("bad-on-video-loss", "layout.regions[0].onVideoLoss",
         lambda d: d["layout"]["regions"][0].update(onVideoLoss="freeze"))
    return cases


def test_bad_documents_are_400_with_the_field_path_and_leave_nothing(api, rtmp_server, clips, media, tessera_server):
    # A real clip outside the media root (beside it, so "../<dir>/<file>" reaches it too).
    outside_dir = media.root.parent / "not-media"
    outside_dir.mkdir(exist_ok=True)
    outside = outside_dir / "outside.mp4"
    if not outside.exists():
        shutil.copy(media.path(clips.red), outside)
    workers_before = tessera_server.workers()
    for name, path, doc in _bad_documents(clips, rtmp_server.url("bad"), str(outside)):
        assert_error(api.post("/v1/tasks", doc), 400, "InvalidTask", path, what=name)
        ids = api.task_ids()
        assert ids == [], f"{name}: a rejected POST left tasks behind: {ids}"
    for name, body in (("not JSON", b"{\"taskId\": "), ("an array", b"[]"), ("empty", b""),
                       ("inputs not a list", json.dumps({"taskId": "x", "inputs": 3}).encode())):
        assert_error(api.post("/v1/tasks", body), 400, "InvalidTask", what=name)
        assert api.task_ids() == [], f"{name}: a rejected POST left a task"
    time.sleep(0.5)
    assert tessera_server.workers() == workers_before, (
        f"rejected tasks left worker processes: {sorted(tessera_server.workers() - workers_before)}")
    # `.tessera` is the server's task store, made at start-up.
    left = [p for p in tessera_server.out.iterdir() if p.name != ".tessera"]
    assert not left, f"rejected tasks left files in the output dir: {left}"


def test_bad_updates_are_400_and_change_nothing(api, rtmp_server, clips, tmp_path):
    api.create(side_by_side("upd", clips.red, clips.blue, [rtmp_server.url("upd")]))
    api.wait_outputs("upd", "live", 15)
    cases = [
        ("encoder", {"encoder": {"video": {"width": 640, "height": 480, "fps": 30}}}, "encoder"),
        ("mode", {"mode": "relay"}, "mode"),
        ("unknown region input", {"layout": halves("blue", "nobody")}, "layout.regions[1].input"),
        ("negative width", {"layout": {"regions": [{"input": "red", "x": 0, "y": 0, "width": -5, "height": 10}]}},
         "layout.regions[0].width"),
        ("missing file", {"inputs": [{"id": "red", "url": "nope.mp4"}, {"id": "blue", "url": clips.blue}]},
         "inputs[0].url"),
        ("no outputs", {"outputs": []}, "outputs"),
        ("unknown main", {"layout": {"template": "speaker", "main": "nobody"}}, "layout.main"),
        ("audioOnlySlots not a bool", {"layout": {"template": "grid", "audioOnlySlots": "yes"}}, "layout.audioOnlySlots"),
    ]
    for name, body, path in cases:
        assert_error(api.patch("/v1/tasks/upd", body), 400, "InvalidUpdate", path, what=name)
    time.sleep(0.3)
    st = api.status("upd")
    assert st["state"] == "running", st
    assert [i["id"] for i in st["inputs"]] == ["red", "blue"], st["inputs"]
    assert len(st["outputs"]) == 1 and st["outputs"][0]["reconnects"] == 0, st["outputs"]
    assert close(snapshot_colour(api, "upd", tmp_path, LEFT_PT), RED)
    assert close(snapshot_colour(api, "upd", tmp_path, RIGHT_PT), BLUE)


def test_unknown_task_is_404(api):
    for method, path, body in (("GET", "/v1/tasks/ghost", None), ("PATCH", "/v1/tasks/ghost", {"layout": halves("a", "b")}),
                               ("DELETE", "/v1/tasks/ghost", None), ("GET", "/v1/tasks/ghost/snapshot.png", None)):
        assert_error(api.request(method, path, body), 404, "TaskNotFound", what=f"{method} {path}")
    assert api.task_ids() == []


def test_oversized_body_is_413(api, clips, rtmp_server):
    doc = side_by_side("big", clips.red, clips.blue, [rtmp_server.url("big")])
    doc["layout"]["regions"] += [{"input": "red", "x": 0, "y": 0, "width": 2, "height": 2, "zOrder": -1}] * 40000
    body = json.dumps(doc).encode()
    assert len(body) >= 2 * 1024 * 1024, len(body)
    assert_error(raw_request(api.host, api.port, "POST", "/v1/tasks", body), 413, "PayloadTooLarge",
                 what="2 MiB POST")
    assert api.task_ids() == [], "the oversized POST left a task"
    r = raw_request(api.host, api.port, "POST", "/v1/tasks", body, wait_early=0)   # body sent at once
    assert_error(r, 413, "PayloadTooLarge", what="2 MiB POST, body sent without waiting")
    assert api.task_ids() == [], "the oversized POST left a task"
    assert api.get("/healthz").status == 200


def test_health_metrics_openapi(api, rtmp_server, clips):
    r = api.get("/healthz")
    assert r.status == 200, r.status
    api.create(side_by_side("metrics", clips.red, clips.blue, [rtmp_server.url("metrics")]))
    api.wait_outputs("metrics", "live", 15)
    time.sleep(1.0)
    r = api.get("/metrics")
    assert r.status == 200, r.status
    assert r.headers.get("content-type", "").startswith("text/plain"), r.headers.get("content-type")
    text = r.body.decode()
    label = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*"'
    sample = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:' + label + r'(?:,' + label + r')*,?)?\})?'
                        r'\s+([-+]?[0-9.eE+-]+|NaN|[+-]Inf)(\s+-?\d+)?$')
    names = set()
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        m = sample.match(line.strip())
        assert m, f"not a Prometheus sample line: {line!r}"
        names.add(m.group(1))
    ours = {n for n in names if n.startswith("tessera_")}
    assert len(ours) >= 3, f"metric names with tessera_: {sorted(ours)} (all: {sorted(names)[:30]})"
    frames = [float(line.split()[-1]) for line in text.splitlines()
              if line.startswith("tessera_") and "frame" in line.split("{")[0].split()[0]]
    assert any(v > 0 for v in frames), f"no tessera_*frame* metric counts the running task's frames:\n{text[:3000]}"

    r = api.get("/openapi.yaml")
    assert r.status == 200, r.status
    doc = r.body.decode()
    assert re.search(r"^openapi:\s*['\"]?3\.", doc, re.M), doc[:300]
    for path in ("/v1/tasks", "/v1/tasks/{taskId}", "/v1/tasks/{taskId}/snapshot.png", "/healthz", "/metrics"):
        assert path in doc, f"/openapi.yaml does not mention {path}"
