"""Tessera's image run with `docker run --network host` as an operator would, on free loopback ports:
what the image holds; HEALTHCHECK; PID 1 and its user; the API token; a task publishing to an
nginx-rtmp on the host's loopback and recording into the /output volume, read back with ffprobe
and ffmpeg; `docker stop` ending the task properly.

The tests after `test_healthcheck_healthy_within_15_s` share one container (module scope) and run
in file order: the task started by `test_task_publishes_and_records` is the one `docker stop`
ends in the last test.
"""
from __future__ import annotations

import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
from imagetools import (TESSERA_UID, Docker, bearer, check_recording, check_stream, elapsed_ms, open_dir, uid_of,
                        wait_output_live)
from livetools import Client, RtmpServer, free_port, wait_until

SHUTDOWN_SECONDS = 5
HEALTHY_WITHIN_SECONDS = 15
TASK_ID = "image-test"


def test_every_shared_library_resolves_in_the_image(docker: Docker):
    size = int(docker.out("image", "inspect", "-f", "{{.Size}}", docker.image))
    layers = docker.out("image", "inspect", "-f", "{{len .RootFS.Layers}}", docker.image)
    history = docker.out("history", "--format", "{{.Size}}\t{{.CreatedBy}}", docker.image)
    print(f"image {docker.image}: {size / 1e6:.1f} MB ({layers} layers)")
    for line in history.splitlines():
        if not line.startswith("0B"):
            print(f"      {line[:110]}")
    r = docker.run("run", "--rm", "--network", "host", "--entrypoint", "ldd", docker.image, "/opt/tessera/tessera",
                   check=False)
    assert r.returncode == 0, f"ldd failed inside the image: {r.stdout}{r.stderr}"
    missing = [line.strip() for line in r.stdout.splitlines() if "not found" in line]
    assert not missing, f"libraries missing in the image: {missing}"
    print(f"  ldd in the image: {r.stdout.count('=>')} shared libraries, none missing")


# Run as root in the image: build tools on PATH, C / Swift headers anywhere on its file system,
# apt package lists (each printed; exit 1 if any).
CONTENTS_SCRIPT = r'''
bad=0
for c in cc c++ gcc g++ clang clang++ swift swiftc swift-frontend ld as cpp make; do
    if command -v "$c" >/dev/null 2>&1; then echo "a build tool in the image: $(command -v "$c")"; bad=1; fi
done
h="$(find / -xdev \( -name "*.h" -o -name "*.hpp" -o -name "*.swiftmodule" -o -name "*.swiftinterface" \) -print 2>/dev/null | head -n 5)"
[ -z "$h" ] || { echo "headers in the image:"; echo "$h"; bad=1; }
l="$(find /var/lib/apt/lists -mindepth 1 -maxdepth 1 ! -name lock ! -name partial -print 2>/dev/null | head -n 5)"
[ -z "$l" ] || { echo "apt package lists in the image:"; echo "$l"; bad=1; }
exit $bad
'''


def test_no_compiler_headers_or_apt_lists_in_the_image(docker: Docker):
    r = docker.run("run", "--rm", "--network", "host", "--user", "0", "--entrypoint", "sh", docker.image,
                   "-c", CONTENTS_SCRIPT, check=False)
    assert r.returncode == 0, f"the runtime image holds build tools, headers or package lists:\n{r.stdout}{r.stderr}"
    print("  no compiler, no headers, no apt package lists")


# --------------------------------------------------------------------------------------------- #
# one container, as an operator runs it
# --------------------------------------------------------------------------------------------- #
@dataclass
class Running:
    name: str
    client: Client
    token: str
    output: Path
    rtmp: RtmpServer
    healthy_after_ms: int | None
    state: str


@pytest.fixture(scope="module")
def rtmp(tmp_path_factory):
    srv = RtmpServer(tmp_path_factory.mktemp("nginx"))
    srv.start()
    print(f"  nginx-rtmp on 127.0.0.1:{srv.port} (PID {srv.proc.pid})")
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="module")
def container(docker: Docker, clip_dir: Path, rtmp: RtmpServer, tmp_path_factory):
    """`docker run -d --network host` with the API token and port in the environment, the clip
    directory as /media (read-only) and a host directory owned by uid 10001 as /output; waits up to
    15 s for HEALTHCHECK to say healthy. Removed (docker rm -f) at the end of the module."""
    output = open_dir(tmp_path_factory.mktemp("image"), "output")
    output.chmod(0o750)
    os.chown(output, TESSERA_UID, TESSERA_UID)
    port, token = free_port(), f"image-test-{uuid.uuid4().hex[:12]}"
    name = f"tessera-image-test-{os.getpid()}"
    print(f"docker run --network host ... {docker.image} --shutdown-seconds {SHUTDOWN_SECONDS} (API port {port})")
    docker.run("run", "-d", "--name", name, "--network", "host",
               "-e", f"TESSERA_PORT={port}", "-e", f"TESSERA_API_TOKEN={token}",
               "-v", f"{clip_dir}:/media:ro", "-v", f"{output}:/output",
               docker.image, "--shutdown-seconds", str(SHUTDOWN_SECONDS))
    try:
        t0 = time.monotonic()

        def settled():  # healthy, or no longer running
            state = docker.state(name)
            return state if state == "running healthy" or not state.startswith("running") else None

        state = wait_until(settled, HEALTHY_WITHIN_SECONDS, 0.25) or docker.state(name)
        healthy_after = elapsed_ms(t0) if state == "running healthy" else None
        yield Running(name, Client("127.0.0.1", port), token, output, rtmp, healthy_after, state)
    finally:
        docker.run("rm", "-f", name, check=False)


def test_healthcheck_healthy_within_15_s(docker: Docker, container: Running):
    assert container.healthy_after_ms is not None, \
        f"not healthy within {HEALTHY_WITHIN_SECONDS} s: '{container.state}'\n{docker.logs(container.name)}"
    print(f"  HEALTHCHECK: healthy after {container.healthy_after_ms} ms")


def test_pid_1_is_tessera_serve_as_uid_10001(docker: Docker, container: Running):
    """Exec-form entry point: docker stop's SIGTERM reaches tessera itself, which is not root."""
    cmdline = docker.run("exec", container.name, "cat", "/proc/1/cmdline").stdout.split("\0")
    expected = ["tessera", "serve", "--host", "0.0.0.0", "--shutdown-seconds", str(SHUTDOWN_SECONDS)]
    assert [a for a in cmdline if a] == expected, f"PID 1 in the container is {cmdline}\n{docker.logs(container.name)}"
    host_pid = int(docker.out("inspect", "-f", "{{.State.Pid}}", container.name))
    assert uid_of(host_pid) == [TESSERA_UID] * 4, f"tessera runs with uids {uid_of(host_pid)}, expected {TESSERA_UID}"
    print(f"  PID 1: {' '.join(expected)}, uid {TESSERA_UID} (host PID {host_pid})")


def test_api_needs_the_token(container: Running):
    client, token = container.client, container.token
    assert client.get("/v1/tasks").status == 401, "GET /v1/tasks without the token"
    assert client.get("/v1/tasks", headers=bearer(f"wrong-{token}")).status == 401, "GET /v1/tasks with a wrong token"
    r = client.get("/v1/tasks", headers=bearer(token))
    assert r.status == 200, f"GET /v1/tasks with the token: {r.status} {r.body[:500]!r}"
    print("  401 without the token and with a wrong one, 200 with it")


def test_task_publishes_and_records(docker: Docker, container: Running):
    """The clip twice side by side, published to the host's nginx and recorded into /output as
    .mp4 and .mkv; the stream reads back; every process in the container runs as uid 10001."""
    rtmp = container.rtmp.url(TASK_ID)
    doc = {"taskId": TASK_ID,
           "inputs": [{"id": "a", "url": "clip.mp4", "loop": True},
                      {"id": "b", "url": "clip.mp4", "loop": True, "startAtMs": 500}],
           "encoder": {"video": {"width": 640, "height": 360, "fps": 30, "bitrateKbps": 800, "gopSeconds": 1},
                       "audio": {"sampleRate": 48000, "channels": 2, "bitrateKbps": 96}},
           "layout": {"template": "pk"},
           "outputs": [{"url": rtmp}, {"url": "recording.mp4"}, {"url": "recording.mkv"}]}
    r = container.client.post("/v1/tasks", doc, headers=bearer(container.token))
    assert r.status == 201, f"POST /v1/tasks: {r.status} {r.body[:2000]!r}\n{docker.logs(container.name)}"
    wait_output_live(container.client, container.token, TASK_ID, 20)
    print(f"  task {TASK_ID} running, its RTMP output live")
    print("  " + check_stream(rtmp, 640, 360))

    pids = [int(p) for p in docker.out("top", container.name, "-eo", "pid").split()[1:]]
    assert len(pids) >= 2, f"no worker process in the container: {pids}"
    for pid in pids:
        comm = Path(f"/proc/{pid}/comm").read_text().strip()
        assert uid_of(pid)[0] == TESSERA_UID, f"process {pid} ({comm}) does not run as uid {TESSERA_UID}"
    print(f"  {len(pids)} processes in the container, all uid {TESSERA_UID}")
    time.sleep(1)


def test_docker_stop_ends_the_task_properly(docker: Docker, container: Running):
    """SIGTERM to PID 1 (Docker's SIGKILL would come only 30 s after --shutdown-seconds): exit code
    0 within --shutdown-seconds, the recordings complete, playable and owned by uid 10001."""
    t0 = time.monotonic()
    docker.run("stop", "-t", str(SHUTDOWN_SECONDS + 30), container.name, timeout=SHUTDOWN_SECONDS + 60)
    took = elapsed_ms(t0)
    exit_state = docker.out("inspect", "-f", "{{.State.ExitCode}} {{.State.OOMKilled}}", container.name)
    assert exit_state == "0 false", \
        f"after docker stop the container exited with '{exit_state}', expected 0\n{docker.logs(container.name)}"
    assert took <= SHUTDOWN_SECONDS * 1000, f"docker stop took {took} ms, more than --shutdown-seconds {SHUTDOWN_SECONDS}"
    print(f"  docker stop: exit code 0 after {took} ms (--shutdown-seconds {SHUTDOWN_SECONDS})")
    for name in ("recording.mp4", "recording.mkv"):
        print("  " + check_recording(container.output / name, 3))
