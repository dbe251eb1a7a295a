"""`tessera serve` probed as a hostile caller would (SPEC §5, issue 5): missing and wrong tokens on
every route, path traversal (`../`, percent-encoded, absolute, symlinks), every refused scheme,
local playlists that name other files, an HTTP redirect to a file: URL, outputs outside the
output directory, the host deny-list, and the configured limits. Each refusal must be its 4xx
naming the field, and nothing may be started, opened or written: no task, no worker process, no
output file, the redirect's target never read.
"""
from __future__ import annotations

import http.server
import json
import re
import shutil
import threading
import time
from pathlib import Path

import pytest

from livetools import TesseraServer, raw_request, wait_until
from helpers import ffprobe

pytestmark = pytest.mark.live

TOKEN = "hostile-probe-token-7f3a"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


# --------------------------------------------------------------------------------------------- #
# fixtures: a media root, an output directory and a directory outside both
# --------------------------------------------------------------------------------------------- #
class Sandbox:
    """media/ (clip.mp4, playlists, a symlink out), out/ (a symlinked dir out), outside/ (a clip
    and a secret that no request may reach)."""

    def __init__(self, root: Path, clip: Path):
        self.root = root
        self.media = root / "media"
        self.out = root / "out"
        self.outside = root / "outside"
        for d in (self.media / "sub", self.out, self.outside):
            d.mkdir(parents=True, exist_ok=True)
        shutil.copy(clip, self.media / "clip.mp4")
        shutil.copy(clip, self.outside / "outside.mp4")
        (self.outside / "secret.txt").write_text("root:x:0:0:secret\n")
        (self.media / "escape.mp4").symlink_to(self.outside / "outside.mp4")
        (self.media / "outside-dir").symlink_to(self.outside)
        (self.out / "escape").symlink_to(self.outside)
        # Playlists inside the media root that name files outside it.
        (self.media / "list.m3u8").write_text(
            f"#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n{self.outside / 'outside.mp4'}\n#EXTINF:10,\n/etc/passwd\n")
        (self.media / "disguised.mp4").write_text(f"#EXTM3U\n#EXTINF:2,\nfile://{self.outside / 'outside.mp4'}\n")
        (self.media / "list.ffconcat").write_text(f"ffconcat version 1.0\nfile {self.outside / 'outside.mp4'}\n")
        (self.media / "list.mpd").write_text('<?xml version="1.0"?>\n<MPD xmlns="urn:mpeg:dash:schema:mpd:2011">'
                                             f'<BaseURL>file://{self.outside}/</BaseURL></MPD>\n')

    def outside_snapshot(self) -> dict:
        return {p.name: p.stat().st_mtime_ns for p in self.outside.iterdir()}


@pytest.fixture
def sandbox(tmp_path, media, clips) -> Sandbox:
    return Sandbox(tmp_path / "sandbox", media.path(clips.red))


class AuthClient:
    """The live tests' client with the bearer token on every request."""

    def __init__(self, client):
        self.client = client

    def request(self, method, path, body=None, headers=None, **kw):
        return self.client.request(method, path, body, headers={**AUTH, **(headers or {})}, **kw)

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.request("POST", path, body, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)

    def task_ids(self):
        r = self.get("/v1/tasks")
        assert r.status == 200, (r.status, r.body[:300])
        return [t["taskId"] for t in r.json["tasks"]]


def start_server(root: Path, sandbox: Sandbox, *extra: str) -> TesseraServer:
    """`tessera serve` with the token, media root and output directory of the sandbox. The
    fixture's own `--output-dir` comes first on the command line; the later one wins."""
    srv = TesseraServer(root, sandbox.media, extra_args=["--api-token", TOKEN, "--output-dir", str(sandbox.out), *extra])
    srv.out = sandbox.out
    srv.start()
    return srv


@pytest.fixture
def guarded(tmp_path, sandbox, rtmp_server):
    """`tessera serve` with a token, a deny-list and small limits."""
    srv = start_server(tmp_path / "serve", sandbox,
                       "--deny-hosts", "10.0.0.0/8,169.254.0.0/16,fd00::/8,metadata.internal",
                       "--max-inputs", "3", "--max-regions", "4", "--max-outputs", "2",
                       "--max-body-bytes", "65536", "--max-tasks", "1", "--max-duration-seconds", "3")
    try:
        yield srv
    finally:
        rc = srv.terminate(20)
        srv.kill()
        assert rc == 0, f"tessera serve exited with {rc} after SIGTERM"


def task_doc(task_id: str, rtmp_url: str, **extra) -> dict:
    doc = {
        "taskId": task_id,
        "inputs": [{"id": "a", "url": "clip.mp4", "loop": True}],
        "encoder": {"video": {"width": 160, "height": 120, "fps": 15, "preset": "ultrafast"}},
        "layout": {"regions": [{"input": "a", "x": 0, "y": 0, "width": 160, "height": 120}]},
        "outputs": [{"url": rtmp_url}],
    }
    doc.update(extra)
    return doc


def assert_refused(api: AuthClient, srv: TesseraServer, sandbox: Sandbox, doc, status: int, code: str,
                   path: str | None, what: str, message: str | None = None):
    """The request is refused with `status`/`code` naming `path`, and leaves nothing behind."""
    workers_before = srv.workers()
    outside_before = sandbox.outside_snapshot()
    r = api.post("/v1/tasks", doc)
    body = r.json
    assert r.status == status, f"{what}: expected {status}, got {r.status}: {r.body[:800]!r}"
    assert isinstance(body, dict) and isinstance(body.get("error"), dict), f"{what}: not the error shape: {r.body[:300]!r}"
    err = body["error"]
    assert err.get("code") == code, f"{what}: code {err.get('code')!r}, expected {code!r}: {err}"
    if path is not None:
        assert err.get("path") == path, f"{what}: path {err.get('path')!r}, expected {path!r}: {err}"
    if message is not None:
        assert message in err.get("message", ""), f"{what}: message {err.get('message')!r} lacks {message!r}"
    assert api.task_ids() == [], f"{what}: a refused request left a task"
    assert srv.workers() == workers_before, f"{what}: a refused request started a worker"
    # `.tessera` is the server's task store (made at start-up, not by the request).
    written = [p for p in sandbox.out.glob("*.*") if p.name != ".tessera"]
    assert not written, f"{what}: a refused request wrote {written}"
    assert sandbox.outside_snapshot() == outside_before, f"{what}: a refused request touched the outside directory"
    return err


# --------------------------------------------------------------------------------------------- #
# authentication
# --------------------------------------------------------------------------------------------- #
def test_every_route_needs_the_token_and_healthz_and_readyz_are_open(guarded):
    client = guarded.client
    spec = client.get("/openapi.yaml", headers=AUTH)
    assert spec.status == 200, spec.status
    # Operations from the served OpenAPI document: "  /path:" then "    get:" etc.
    routes, current = [], None
    for line in spec.body.decode().splitlines():
        m = re.match(r"^  (/\S*):$", line)
        if m:
            current = m.group(1)
            continue
        m = re.match(r"^    (get|post|patch|delete|put):$", line)
        if m and current:
            routes.append((m.group(1).upper(), current.replace("{taskId}", "t1")))
    assert len(routes) == 17, routes
    viewer = ("GET", "/v1/tasks/t1/hls/{viewerKey}/{fileName}")
    for route in [("POST", "/v1/tasks/t1/sei"), ("POST", "/v1/validate"), ("POST", "/v1/preview"), ("GET", "/v1/nodes"),
                  ("GET", "/v1/tasks/t1/document"), ("GET", "/v1/tasks/t1/thumbnail.jpg"), viewer]:
        assert route in routes, routes
    refused = [("no header", {}), ("wrong token", {"Authorization": "Bearer wrong"}),
               ("token prefix", {"Authorization": f"Bearer {TOKEN[:-1]}"}),
               ("Basic scheme", {"Authorization": f"Basic {TOKEN}"}), ("bare token", {"Authorization": TOKEN})]
    for method, path in routes:
        for what, headers in refused:
            body = json.dumps(task_doc("t1", "rtmp://127.0.0.1/live/x")) if method in ("POST", "PATCH") else None
            r = client.request(method, path, body, headers=headers)
            if path in ("/healthz", "/readyz"):   # for orchestrators' probes
                assert r.status == 200, f"{method} {path} with {what}: {r.status}"
                continue
            if (method, path) == viewer:
                # HLS viewers hold a viewer key, never the token: no 401 here, and a key that
                # admits nothing (no such task) is the same 404 as a wrong one.
                r = client.request(method, "/v1/tasks/t1/hls/viewer-key-0123456789/room.m3u8", None, headers=headers)
                assert r.status == 404, f"{method} {path} with {what}: {r.status} {r.body[:200]!r}"
                continue
            assert r.status == 401, f"{method} {path} with {what}: {r.status} {r.body[:200]!r}"
            assert r.headers.get("www-authenticate", "").startswith("Bearer"), f"{method} {path}: {r.headers}"
            assert r.json and r.json["error"]["code"] == "Unauthorized", f"{method} {path}: {r.body[:200]!r}"
    assert AuthClient(client).task_ids() == []
    assert guarded.workers() == set()


# --------------------------------------------------------------------------------------------- #
# paths and schemes
# --------------------------------------------------------------------------------------------- #
def input_doc(url, rtmp_server, task_id="bad"):
    return task_doc(task_id, rtmp_server.url(task_id), inputs=[{"id": "a", "url": url}])


def test_input_path_traversal_is_refused(guarded, sandbox, rtmp_server):
    api = AuthClient(guarded.client)
    media, outside = sandbox.media, sandbox.outside
    cases = {
        "dot-dot": "../outside/outside.mp4",
        "dot-dot deep": "sub/../../outside/outside.mp4",
        "absolute outside": str(outside / "outside.mp4"),
        "etc passwd": "/etc/passwd",
        "symlink escape": "escape.mp4",
        "symlinked directory": "outside-dir/outside.mp4",
        "file URL outside": f"file://{outside}/outside.mp4",
        "file URL percent-encoded": f"file://{media}/%2e%2e/outside/outside.mp4",
        "file URL encoded slash": f"file://{media}/%2e%2e%2foutside%2foutside.mp4",
        "file URL etc": "file:///etc/passwd",
        # Not decoded by Tessera nor by FFmpeg's file protocol: a name inside the root that does not exist.
        "percent-encoded plain path": "%2e%2e%2foutside%2foutside.mp4",
    }
    for what, url in cases.items():
        assert_refused(api, guarded, sandbox, input_doc(url, rtmp_server), 400, "InvalidTask", "inputs[0].url", what)
    # An image path is held to the same rule.
    doc = task_doc("img", rtmp_server.url("img"))
    doc["layout"]["regions"].append({"image": "../outside/outside.png", "x": 0, "y": 0, "width": 16, "height": 16})
    assert_refused(api, guarded, sandbox, doc, 400, "InvalidTask", "layout.regions[1].image", "image outside")


@pytest.mark.parametrize("url", [
    "concat:clip.mp4|clip.mp4", "subfile,,start,0,end,100,,:clip.mp4", "data:video/mp4;base64,AAAA", "pipe:0",
    "fd:3", "gopher://127.0.0.1/x", "ftp://127.0.0.1/clip.mp4", "tcp://127.0.0.1:1234", "udp://127.0.0.1:1234",
    "unix:/tmp/sock", "crypto:clip.mp4", "hls+http://127.0.0.1/x.m3u8", "async:file:clip.mp4", "cache:clip.mp4",
    "rtp://127.0.0.1:5004", "rtsp://127.0.0.1/x", "tee:clip.mp4",
])
def test_refused_schemes(guarded, sandbox, rtmp_server, url):
    api = AuthClient(guarded.client)
    err = assert_refused(api, guarded, sandbox, input_doc(url, rtmp_server), 400, "InvalidTask", "inputs[0].url", url)
    assert "is not allowed" in err["message"], err


def test_local_playlists_are_refused_up_front(guarded, sandbox, rtmp_server):
    api = AuthClient(guarded.client)
    for name, kind in (("list.m3u8", "HLS playlist"), ("disguised.mp4", "HLS playlist"),
                       ("list.ffconcat", "ffconcat"), ("list.mpd", "DASH")):
        assert_refused(api, guarded, sandbox, input_doc(name, rtmp_server), 400, "InvalidTask", "inputs[0].url",
                       name, message=kind)


class RedirectToFile(http.server.BaseHTTPRequestHandler):
    """Answers every GET with 302 to a file: URL; counts the requests."""
    target = ""
    requests = 0

    def do_GET(self):  # noqa: N802 (http.server's naming)
        type(self).requests += 1
        self.send_response(302)
        self.send_header("Location", type(self).target)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def test_http_redirect_to_a_file_url_is_not_followed(guarded, sandbox, rtmp_server):
    """FFmpeg's http protocol follows redirects through the same protocol whitelist (http, https,
    tcp, tls), so a 302 to file:///… fails the open: the input never reads the file. The target is
    a playable clip outside the media root: had it been opened, the input would go live."""
    api = AuthClient(guarded.client)
    RedirectToFile.target = f"file://{sandbox.outside / 'outside.mp4'}"
    RedirectToFile.requests = 0
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), RedirectToFile)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}/live.flv"
        r = api.post("/v1/tasks", task_doc("redirect", rtmp_server.url("redirect"), inputs=[{"id": "a", "url": url}]))
        assert r.status == 201, (r.status, r.body[:500])
        assert wait_until(lambda: RedirectToFile.requests >= 1, 15), "the worker never asked the HTTP server"
        time.sleep(3)
        st = api.get("/v1/tasks/redirect").json
        inp = st["inputs"][0]
        assert inp["state"] != "live" and inp["frames"] == 0, f"the redirect target was read: {inp}"
        assert inp.get("lastError"), f"the failed open left no lastError: {inp}"
        assert api.delete("/v1/tasks/redirect").status == 200
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_outputs_outside_the_output_directory_are_refused(guarded, sandbox, rtmp_server):
    api = AuthClient(guarded.client)
    cases = {
        "dot-dot": "../outside/x.mp4",
        "absolute": str(sandbox.outside / "x.mp4"),
        "symlinked directory": "escape/x.mp4",
        "file URL": f"file://{sandbox.outside}/x.mp4",
        "file URL percent-encoded": f"file://{sandbox.out}/%2e%2e/outside/x.mp4",
        "refused scheme": "ftp://127.0.0.1/x.flv",
        "http output": "http://127.0.0.1/x.flv",
    }
    for what, url in cases.items():
        doc = task_doc("out", rtmp_server.url("out"), outputs=[{"url": url}])
        assert_refused(api, guarded, sandbox, doc, 400, "InvalidTask", "outputs[0].url", what)
    assert not (sandbox.outside / "x.mp4").exists()


# --------------------------------------------------------------------------------------------- #
# the deny-list
# --------------------------------------------------------------------------------------------- #
def test_denied_hosts_are_refused_and_loopback_is_allowed(guarded, sandbox, rtmp_server):
    api = AuthClient(guarded.client)
    for what, url, field in (
        ("denied CIDR input", "rtmp://10.1.2.3/live/x", "inputs[0].url"),
        ("denied address input, http", "http://169.254.169.254/latest/meta-data", "inputs[0].url"),
        ("denied name input", "rtmp://metadata.internal/live/x", "inputs[0].url"),
        ("denied subdomain input", "srt://a.metadata.internal:9000", "inputs[0].url"),
        ("denied IPv6 input", "rtmp://[fd00::1]/live/x", "inputs[0].url"),
    ):
        assert_refused(api, guarded, sandbox, input_doc(url, rtmp_server), 400, "InvalidTask", field, what,
                       message="deny-list")
    doc = task_doc("deny-out", rtmp_server.url("ok"), outputs=[{"url": rtmp_server.url("ok")},
                                                                {"url": "rtmp://10.9.9.9/live/x"}])
    assert_refused(api, guarded, sandbox, doc, 400, "InvalidTask", "outputs[1].url", "denied output")
    # Loopback and private hosts outside the list stay allowed.
    r = api.post("/v1/tasks", task_doc("allowed", rtmp_server.url("allowed")))
    assert r.status == 201, (r.status, r.body[:500])
    assert api.delete("/v1/tasks/allowed").status == 200


def test_a_name_resolving_into_a_denied_block_is_refused(tmp_path, sandbox, rtmp_server):
    srv = start_server(tmp_path / "serve-lo", sandbox, "--deny-hosts", "127.0.0.0/8")
    try:
        api = AuthClient(srv.client)
        for url in ("rtmp://localhost/live/x", "rtmp://127.1/live/x", "rtmp://2130706433/live/x"):
            assert_refused(api, srv, sandbox, task_doc("lo", url), 400, "InvalidTask", "outputs[0].url", url,
                           message="deny-list")
    finally:
        assert srv.terminate(20) == 0
        srv.kill()


# --------------------------------------------------------------------------------------------- #
# limits
# --------------------------------------------------------------------------------------------- #
def test_limits_are_4xx_and_start_nothing(guarded, sandbox, rtmp_server):
    api = AuthClient(guarded.client)
    url = rtmp_server.url("lim")
    many_inputs = task_doc("lim", url, inputs=[{"id": f"i{i}", "url": "clip.mp4"} for i in range(4)])
    many_inputs["layout"] = {"template": "grid"}
    assert_refused(api, guarded, sandbox, many_inputs, 400, "InvalidTask", "inputs", "4 inputs > 3", message="3")
    many_regions = task_doc("lim", url)
    many_regions["layout"]["regions"] = [{"input": "a", "x": 0, "y": 0, "width": 16, "height": 16}] * 5
    assert_refused(api, guarded, sandbox, many_regions, 400, "InvalidTask", "layout.regions", "5 regions > 4",
                   message="4")
    many_outputs = task_doc("lim", url, outputs=[{"url": rtmp_server.url(f"o{i}")} for i in range(3)])
    assert_refused(api, guarded, sandbox, many_outputs, 400, "InvalidTask", "outputs", "3 outputs > 2", message="2")
    too_long = task_doc("lim", url, maxDurationSeconds=10)
    assert_refused(api, guarded, sandbox, too_long, 400, "InvalidTask", "maxDurationSeconds", "10 s > 3 s")

    big = json.dumps(task_doc("big", url, padding="x" * 70_000)).encode()
    r = raw_request("127.0.0.1", guarded.port, "POST", "/v1/tasks", big)
    assert r.status == 401, "the token is checked before the body"
    r = raw_request("127.0.0.1", guarded.port, "POST", "/v1/tasks", big, headers=AUTH)
    assert r.status == 413 and r.json["error"]["code"] == "PayloadTooLarge", (r.status, r.body[:300])
    assert api.task_ids() == [] and guarded.workers() == set()

    # One task is the limit: the second is 429 with Retry-After, and the first runs on.
    api_ok = api.post("/v1/tasks", task_doc("first", rtmp_server.url("first")))
    assert api_ok.status == 201, api_ok.body[:300]
    workers = guarded.workers()
    r = api.post("/v1/tasks", task_doc("second", rtmp_server.url("second")))
    assert r.status == 429 and r.json["error"]["code"] == "TooManyTasks", (r.status, r.body[:300])
    assert r.headers.get("retry-after", "").isdigit(), r.headers
    assert api.task_ids() == ["first"] and guarded.workers() == workers
    assert api.delete("/v1/tasks/first").status == 200


def test_a_task_without_max_duration_stops_at_the_configured_maximum(guarded, sandbox, rtmp_server):
    api = AuthClient(guarded.client)
    doc = task_doc("capped", rtmp_server.url("capped"), outputs=[{"url": "capped.mp4"}])
    assert "maxDurationSeconds" not in doc
    r = api.post("/v1/tasks", doc)
    assert r.status == 201, (r.status, r.body[:500])
    started = time.monotonic()
    ok = wait_until(lambda: api.get("/v1/tasks/capped").json.get("state") in ("stopped", "failed"), 20)
    elapsed = time.monotonic() - started
    st = api.get("/v1/tasks/capped").json
    assert ok and st["state"] == "stopped", f"a looping task without maxDurationSeconds did not stop by itself: {st}"
    assert elapsed < 12, f"took {elapsed:.1f} s to stop at a 3 s limit"
    duration = float(ffprobe(sandbox.out / "capped.mp4")["format"]["duration"])
    assert 2.5 <= duration <= 3.6, f"capped.mp4 lasts {duration:.2f} s, expected about 3 s"
