"""Fixtures for Tessera's end-to-end tests.

- `media`: a MediaFactory over one directory for the whole session (media is made once per recipe);
  task documents name files in it by file name and `Workspace.mix` passes it as --media-root.
- `ws`: a Workspace in the test's own tmp directory (task files, and `out/` as --output-dir).

The binary under test is $TESSERA_BIN, default <repo>/.build/release/tessera.

CI (scripts/test.sh) runs the suite in two passes: every test not marked `serial` several at a time
(pytest-xdist, whole files to one worker, each worker with its own ports: ports.py), then the
`serial` ones one at a time on an otherwise quiet machine. Most end-to-end tests spend their time
waiting on real time and pass with one core taken by something else, which is what a parallel
neighbour amounts to on two cores; a test is `serial` when it loads the machine itself (a CPU hog,
a 720p encoder, a browser) so that a neighbour would push it past what it is written for.
"""
from __future__ import annotations

import shutil

import pytest

from helpers import TESSERA_BIN, MediaFactory, Workspace


def pytest_configure(config):
    config.addinivalue_line("markers", "serial: run in scripts/test.sh's serial pass, alone on the machine "
                                       "(the test loads the CPU itself); say why beside the mark")


def pytest_report_header(config):
    return f"tessera binary: {TESSERA_BIN} ({'present' if TESSERA_BIN.exists() else 'MISSING'})"


@pytest.fixture(scope="session", autouse=True)
def _tools():
    for tool in ("ffmpeg", "ffprobe"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is not on PATH: run scripts/install.sh")


@pytest.fixture(scope="session")
def media(tmp_path_factory) -> MediaFactory:
    return MediaFactory(tmp_path_factory.mktemp("media"))


@pytest.fixture
def ws(tmp_path, media) -> Workspace:
    if not TESSERA_BIN.exists():
        pytest.fail(f"tessera binary not found at {TESSERA_BIN}: build it (scripts/install.sh) or set TESSERA_BIN")
    return Workspace(tmp_path, media)
