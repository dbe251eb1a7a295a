"""Fixtures for the live-service tests (`tessera serve` against a real RTMP server).

- `rtmp_server`: Debian's nginx + libnginx-mod-rtmp on a free loopback port, config and logs in the
  test's tmp dir; `.url(stream)`, `.stop()` (SIGKILL by PID), `.start()` (same port again).
- `tessera_server`: `$TESSERA_BIN serve` on another free port with `--media-root` = the session's
  media directory and `--output-dir` = <tmp>/out (more arguments with
  `@pytest.mark.serve_args("--api-token", "t")`); yields a `TesseraServer` (`.client` with
  get/post/patch/delete returning Response objects that unpack as (status, json)). Teardown sends
  SIGTERM and requires exit code 0 within 20 s.
- `api`: the client of `tessera_server`.
- `senders`: a list to put started `RtpSender`s in; each is killed at teardown.
- `clips`: looping test inputs: red + 440 Hz and blue + 1000 Hz (320x240, 30 fps, 2 s, H.264 + AAC).

Run only these: `pytest tests/live` or `pytest -m live`; skip them: `pytest -m "not live"`.
"""
from __future__ import annotations

import shutil
from dataclasses import dataclass

import pytest

from helpers import BLUE, GREEN, RED, YELLOW, MediaFactory
from livetools import RtmpServer, TesseraServer, log_tail
from rtptools import RtpSender


def pytest_configure(config):
    config.addinivalue_line("markers", "live: end-to-end tests of `tessera serve` against a real RTMP server")
    config.addinivalue_line("markers", "serve_args(*args): extra `tessera serve` arguments for the tessera_server fixture")


@pytest.fixture(scope="session", autouse=True)
def _live_tools():
    if shutil.which("nginx") is None:
        pytest.fail("nginx is not on PATH: run scripts/install.sh (nginx, libnginx-mod-rtmp)")


@pytest.fixture
def rtmp_server(tmp_path):
    srv = RtmpServer(tmp_path / "nginx")
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
def tessera_server(tmp_path, media: MediaFactory, request, rtmp_server):
    # Depends on rtmp_server so that, at teardown, tessera stops before its RTMP server does.
    marker = request.node.get_closest_marker("serve_args")
    srv = TesseraServer(tmp_path / "serve", media.root, extra_args=marker.args if marker else ())
    srv.start()
    try:
        yield srv
    finally:
        try:
            if srv.proc.poll() is None:
                rc = srv.terminate(20)
            else:
                rc = srv.proc.returncode if srv.returncode is None else srv.returncode
            failed = getattr(request.node, "rep_call", None) is not None and request.node.rep_call.failed
            if failed:
                print(f"--- tessera serve log (tail) ---\n{log_tail(srv.log)}")
            assert rc == 0, f"`tessera serve` exited with {rc} after SIGTERM (expected 0):\n{log_tail(srv.log)}"
        finally:
            srv.kill()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)


@pytest.fixture
def api(tessera_server):
    return tessera_server.client


@dataclass
class Clips:
    red: str     # red picture, 440 Hz tone
    blue: str    # blue picture, 1000 Hz tone
    green: str   # green picture, silent (no audio stream)
    yellow: str  # yellow picture, 1000 Hz


@pytest.fixture(scope="session")
def clips(media: MediaFactory) -> Clips:
    return Clips(
        red=media.solid(RED, size=(320, 240), fps=30, duration=2.0, tone=440),
        blue=media.solid(BLUE, size=(320, 240), fps=30, duration=2.0, tone=1000),
        green=media.solid(GREEN, size=(320, 240), fps=30, duration=2.0),
        yellow=media.solid(YELLOW, size=(320, 240), fps=30, duration=2.0, tone=1000),
    )


@pytest.fixture
def senders():
    started: list[RtpSender] = []
    yield started
    for s in started:
        s.kill()
