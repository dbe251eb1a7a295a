"""The compose files run as an operator would, on the host's network: docker/compose.yaml (Tessera
beside nginx-rtmp) and docker/compose.cluster.yaml (three nodes on one PostgreSQL store beside
nginx-rtmp, at the file's own ports). Their images are built by `scripts/image.sh build`."""
from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest
from imagetools import (NGINX_RTMP_IMAGE, POSTGRES_IMAGE, Compose, Docker, bearer, check_stream, compose_command,
                        compose_file, open_dir, wait_output_live)
from livetools import Client, free_port, port_accepts

from helpers import REPO, ffprobe

DOCKER_DIR = REPO / "docker"
CLUSTER_FILE = DOCKER_DIR / "compose.cluster.yaml"
CLUSTER_PORTS = (8081, 8082, 8083, 1935, 15432)


def require_images(docker: Docker, *tags: str) -> None:
    missing = [t for t in tags if not docker.has_image(t)]
    assert not missing, f"no image {missing} in the engine: run 'bash scripts/image.sh build' first"


def test_compose_yaml_publishes_and_records(docker: Docker, clip_dir: Path, tmp_path: Path):
    """Both services healthy; a task started through Tessera's API is published by the compose
    nginx-rtmp and read back; DELETE stops it; its recording in the tessera-output volume plays."""
    require_images(docker, docker.image, NGINX_RTMP_IMAGE)
    work = open_dir(tmp_path, "compose")
    port, rport, token = free_port(), free_port(), f"compose-test-{uuid.uuid4().hex[:12]}"
    # docker/nginx-rtmp.conf on a free port instead of 1935.
    conf = (DOCKER_DIR / "nginx-rtmp.conf").read_text()
    assert "listen 1935;" in conf, "docker/nginx-rtmp.conf has no 'listen 1935;' line"
    (work / "nginx-rtmp.conf").write_text(conf.replace("listen 1935;", f"listen 127.0.0.1:{rport};"))
    (work / "nginx-rtmp.conf").chmod(0o644)
    command = compose_command(docker)
    path = DOCKER_DIR / "compose.yaml"
    compose = Compose(docker, command, compose_file(command, path, path.read_text(), work), "tessera-image-test",
                      DOCKER_DIR, {"TESSERA_IMAGE": docker.image, "TESSERA_PORT": str(port),
                                   "TESSERA_RTMP_PORT": str(rport), "TESSERA_API_TOKEN": token,
                                   "TESSERA_MEDIA_DIR": str(clip_dir),
                                   "TESSERA_NGINX_CONF": str(work / "nginx-rtmp.conf")})
    print(f"{' '.join(command)} -f docker/compose.yaml up -d --no-build (API port {port}, RTMP port {rport})")
    with compose:
        print(f"  all 2 services healthy after {compose.wait_healthy(2, 60)} ms")
        client = Client("127.0.0.1", port)
        rtmp = f"rtmp://127.0.0.1:{rport}/live/compose-test"
        doc = {"taskId": "compose-test",
               "inputs": [{"id": "a", "url": "clip.mp4", "loop": True}, {"id": "b", "url": "clip.mp4", "loop": True}],
               "encoder": {"video": {"width": 640, "height": 180, "fps": 30, "bitrateKbps": 600}},
               "layout": {"template": "pk"},
               "outputs": [{"url": rtmp}, {"url": "compose.mp4"}]}
        r = client.post("/v1/tasks", doc, headers=bearer(token))
        assert r.status == 201, f"compose: POST /v1/tasks: {r.status} {r.body[:2000]!r}\n{compose.logs()}"
        wait_output_live(client, token, "compose-test", 20)
        print("  task compose-test running, its RTMP output live")
        print("  " + check_stream(rtmp, 640, 180))
        r = client.delete("/v1/tasks/compose-test", headers=bearer(token))
        assert r.status == 200, f"compose: DELETE /v1/tasks/compose-test: {r.status} {r.body[:2000]!r}"
        docker.run("cp", f"{compose.container_id('tessera')}:/output/compose.mp4", str(work / "compose.mp4"))
        duration = ffprobe(work / "compose.mp4").get("format", {}).get("duration", "")
        assert re.fullmatch(r"[0-9.]+", duration or ""), \
            f"compose: the recording in the tessera-output volume is not playable (duration {duration!r})"
        print(f"  compose.mp4 in the tessera-output volume plays ({float(duration):.2f} s)")


def test_compose_cluster_any_node_answers(docker: Docker, clip_dir: Path, tmp_path: Path):
    """Five services healthy; a task POSTed to node 1 is reported live by node 2, published and
    read back, and stopped through node 3."""
    if not CLUSTER_FILE.is_file():
        pytest.skip(f"no {CLUSTER_FILE.relative_to(REPO)}: nothing to run")
    serve_help = docker.run("run", "--rm", "--network", "host", "--entrypoint", "tessera", docker.image,
                            "serve", "--help", check=False).stdout
    if "--store" not in serve_help:
        pytest.skip(f"the binary in {docker.image} has no --store (the cluster) yet")
    busy = [p for p in CLUSTER_PORTS if port_accepts(p)]
    assert not busy, f"{CLUSTER_FILE.name} needs the host's ports 8081-8083, 1935 and 15432; in use: {busy}"
    require_images(docker, docker.image, NGINX_RTMP_IMAGE, POSTGRES_IMAGE)
    work = open_dir(tmp_path, "cluster")
    # The file as it is, but for its media directory (the test's clip directory instead of
    # docker/media), the image under test and, for docker-compose 1.29, its top-level `name:`;
    # relative paths resolve from docker/.
    text = CLUSTER_FILE.read_text().replace("- ./media:/media:ro", f"- {clip_dir}:/media:ro")
    text = re.sub(r"(?m)^(\s*)image: tessera:local\b", lambda m: f"{m.group(1)}image: {docker.image}", text)
    token = f"cluster-test-{uuid.uuid4().hex[:12]}"
    command = compose_command(docker)
    compose = Compose(docker, command, compose_file(command, CLUSTER_FILE, text, work), "tessera-cluster-test",
                      DOCKER_DIR, {"TESSERA_API_TOKEN": token})
    print(f"{' '.join(command)} -f {CLUSTER_FILE.relative_to(REPO)} up -d --no-build")
    with compose:
        print(f"  all 5 services healthy after {compose.wait_healthy(5, 90)} ms")
        rtmp = "rtmp://127.0.0.1:1935/live/cluster-test"
        doc = {"taskId": "cluster-test",
               "inputs": [{"id": "a", "url": "clip.mp4", "loop": True}],
               "encoder": {"video": {"width": 640, "height": 360, "fps": 30, "bitrateKbps": 600}},
               "layout": {"template": "grid"},
               "outputs": [{"url": rtmp}]}
        node1, node2, node3 = (Client("127.0.0.1", p) for p in (8081, 8082, 8083))
        r = node1.post("/v1/tasks", doc, headers=bearer(token))
        assert r.status == 201, f"cluster: POST /v1/tasks on node 1: {r.status} {r.body[:2000]!r}\n{compose.logs()}"
        wait_output_live(node2, token, "cluster-test", 30)  # any node answers for any task
        print("  task cluster-test (POSTed to node 1) running and live as node 2 reports it")
        print("  " + check_stream(rtmp, 640, 360))
        r = node3.delete("/v1/tasks/cluster-test", headers=bearer(token))
        assert r.status == 200, f"cluster: DELETE on node 3: {r.status} {r.body[:2000]!r}"
        print("  stopped through node 3")
