"""Fixtures for the container image tests (tests/image): Tessera's image run by a real Docker engine
as an operator would run it. `bash scripts/image.sh build` builds the images first (tessera:local,
and the compose files' nginx-rtmp and PostgreSQL images); `bash scripts/image.sh test` runs these
tests with the engine it started (scripts/test.sh runs both). pytest.ini leaves this directory out
of a plain `pytest tests/`: the image must be built before anything here runs.

- `docker`: the engine and the image under test ($TESSERA_IMAGE, default tessera:local). The
  engine is the one DOCKER_HOST names, else a dockerd scripts/image.sh (or an earlier session)
  left running on /run/tessera-docker/docker.sock, else the system's (/var/run/docker.sock), else
  one this fixture starts — `dockerd --bridge=none --iptables=false --ip6tables=false` on
  image.sh's data root, so the image it built is there — and stops by its PID at the end of the
  session. Where none can start (not root, no kernel support) every test here is skipped, with
  the reason. Containers use the host's network (`--network host`): only loopback is assumed.
- `clip_dir`: a media directory readable by the container's user (uid 10001) holding `clip.mp4`,
  6 s of 640x360 video with a 440 Hz tone, as a user puts into /media.

The figures (image size, layers, timings) are printed; image.sh runs pytest with `-rA`, which
shows them after the results.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from imagetools import IMAGE, RUN_DIR, Docker, docker_client, start_dockerd, stop_dockerd

from helpers import ffmpeg


@pytest.fixture(scope="session")
def docker():
    unavailable = os.environ.get("TESSERA_DOCKER_UNAVAILABLE")
    if unavailable:  # scripts/image.sh tried to start an engine already, and says why it could not
        pytest.skip(unavailable)
    cli = docker_client()
    if cli is None:
        pytest.skip("no docker client is installed (scripts/image.sh build installs docker.io)")
    started = None
    candidates = []
    if os.environ.get("DOCKER_HOST"):
        candidates.append(Docker(cli, os.environ["DOCKER_HOST"], IMAGE, f"DOCKER_HOST={os.environ['DOCKER_HOST']}"))
    else:
        candidates.append(Docker(cli, f"unix://{RUN_DIR}/docker.sock", IMAGE, f"the dockerd left running on {RUN_DIR}"))
        candidates.append(Docker(cli, "unix:///var/run/docker.sock", IMAGE, "the system's (/var/run/docker.sock)"))
    engine = next((d for d in candidates if d.answers()), None)
    if engine is None and os.environ.get("DOCKER_HOST"):
        pytest.fail(f"DOCKER_HOST={os.environ['DOCKER_HOST']} does not answer")
    if engine is None:
        engine, started = start_dockerd(cli)
    try:
        print(f"\nengine: {engine.description}, dockerd {engine.out('version', '-f', '{{.Server.Version}}')}")
        if not engine.has_image(engine.image):
            pytest.fail(f"no image {engine.image} in the engine ({engine.description}): "
                        f"run 'bash scripts/image.sh build' first")
        yield engine
    finally:
        if started is not None:
            stop_dockerd(started)


@pytest.fixture(scope="session")
def clip_dir(tmp_path_factory) -> Path:
    """A media directory the container's user can read, with clip.mp4 in it."""
    d = tmp_path_factory.mktemp("media")
    ffmpeg("-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30", "-f", "lavfi",
           "-i", "sine=frequency=440:sample_rate=48000", "-t", "6", "-c:v", "libx264", "-preset", "veryfast",
           "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", str(d / "clip.mp4"))
    d.chmod(0o755)
    (d / "clip.mp4").chmod(0o644)
    return d


