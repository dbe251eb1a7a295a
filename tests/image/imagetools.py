"""Tools for the container image tests: the Docker command line pointed at one engine (found, or
started as scripts/image.sh starts it and stopped by its PID), and the checks of what a container
publishes and records: the stream read back with ffprobe / ffmpeg, recordings complete and owned
by the container's user, the task's output live through the API.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from helpers import ffprobe

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "live"))
from livetools import Client, log_tail, wait_until  # noqa: E402  (tests/live is not on the path here)

IMAGE = os.environ.get("TESSERA_IMAGE", "tessera:local")
RUN_DIR = Path("/run/tessera-docker")
DOCKER_ROOT = Path(os.environ.get("TESSERA_DOCKER_ROOT", "/var/lib/tessera-docker"))
TESSERA_UID = 10001
# The compose files' other images, built by `scripts/image.sh build` from docker/.
NGINX_RTMP_IMAGE = "tessera-nginx-rtmp:local"
POSTGRES_IMAGE = "tessera-postgres:local"


# --------------------------------------------------------------------------------------------- #
# the engine
# --------------------------------------------------------------------------------------------- #
def docker_client() -> str | None:
    """Debian's docker.io client when installed (the engine's own version), else any on PATH."""
    return "/usr/bin/docker" if Path("/usr/bin/docker").exists() else shutil.which("docker")


@dataclass
class Docker:
    """The Docker command line pointed at one engine, and the image under test."""
    cli: str
    host: str | None   # DOCKER_HOST for the client; None: the client's default socket
    image: str
    description: str

    def env(self, **extra: str) -> dict[str, str]:
        env = dict(os.environ, **extra)
        if self.host:
            env["DOCKER_HOST"] = self.host
        return env

    def run(self, *args: str, timeout: float = 120, check: bool = True, env: dict | None = None,
            ) -> subprocess.CompletedProcess:
        r = subprocess.run([self.cli, *args], capture_output=True, text=True, timeout=timeout,
                           env=env or self.env())
        if check:
            assert r.returncode == 0, f"docker {' '.join(args)} exited {r.returncode}:\n{r.stdout[-2000:]}{r.stderr[-2000:]}"
        return r

    def out(self, *args: str, timeout: float = 120) -> str:
        return self.run(*args, timeout=timeout).stdout.strip()

    def answers(self) -> bool:
        try:
            return self.run("info", timeout=20, check=False).returncode == 0
        except subprocess.TimeoutExpired:
            return False

    def has_image(self, tag: str) -> bool:
        return self.run("image", "inspect", tag, check=False).returncode == 0

    def state(self, container: str) -> str:
        """`running healthy`, `running starting`, `exited ` …: the container's status and health."""
        return self.out("inspect", "-f", "{{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{end}}",
                        container)

    def logs(self, container: str, lines: int = 40) -> str:
        r = self.run("logs", "--tail", str(lines), container, check=False)
        return f"--- docker logs {container} (last lines) ---\n{r.stdout}{r.stderr}"


def start_dockerd(cli: str) -> tuple[Docker, subprocess.Popen]:
    """dockerd as scripts/image.sh starts it: its data root, socket, pid file and exec root."""
    if os.geteuid() != 0:
        pytest.skip("no Docker engine answers, and starting one needs root: run as root (or scripts/image.sh test)")
    if shutil.which("dockerd") is None:
        pytest.skip("no Docker engine answers and no dockerd is installed (scripts/image.sh build installs docker.io)")
    DOCKER_ROOT.mkdir(parents=True, exist_ok=True)
    RUN_DIR.mkdir(parents=True, exist_ok=True)
    for stale in ("docker.sock", "dockerd.pid"):
        (RUN_DIR / stale).unlink(missing_ok=True)
    log = DOCKER_ROOT / "dockerd.log"
    proc = subprocess.Popen(
        ["dockerd", "--bridge=none", "--iptables=false", "--ip6tables=false", "--data-root", str(DOCKER_ROOT),
         "--exec-root", str(RUN_DIR / "exec"), "--pidfile", str(RUN_DIR / "dockerd.pid"),
         "--host", f"unix://{RUN_DIR}/docker.sock"],
        stdin=subprocess.DEVNULL, stdout=open(log, "ab"), stderr=subprocess.STDOUT)
    docker = Docker(cli, f"unix://{RUN_DIR}/docker.sock", IMAGE, f"a dockerd started for these tests (PID {proc.pid})")
    up = wait_until(lambda: proc.poll() is not None or ((RUN_DIR / "docker.sock").exists() and docker.answers()),
                    60, 0.5)
    if proc.poll() is not None or not up:
        stop_dockerd(proc)
        pytest.skip(f"no Docker engine can start on this machine (dockerd "
                    f"{'exited' if proc.poll() is not None else 'did not answer within 60 s'}):\n{log_tail(log, 1500)}")
    return docker, proc


def stop_dockerd(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


# --------------------------------------------------------------------------------------------- #
# media, the API, reading back
# --------------------------------------------------------------------------------------------- #
def open_dir(tmp_path: Path, name: str) -> Path:
    """A directory under tmp_path that containers (and their users) can enter: pytest makes its
    tmp directories 0700."""
    d = tmp_path / name
    d.mkdir(parents=True, exist_ok=True)
    d.chmod(0o755)
    return d


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def wait_output_live(client: Client, token: str, task_id: str, timeout: float) -> dict:
    """Polls GET /v1/tasks/<id> until the task runs and its first output is live; fails on
    `failed` / `stopped` or at the deadline, with the last status."""
    last: dict = {}

    def live():
        nonlocal last
        try:
            r = client.get(f"/v1/tasks/{task_id}", headers=bearer(token), timeout=10)
        except OSError as e:
            last = {"error": str(e)}
            return False
        last = {"http": r.status, "status": r.json}
        st = r.json if r.status == 200 and isinstance(r.json, dict) else {}
        states = [o.get("state") for o in st.get("outputs", [])]
        if st.get("state") in ("failed", "stopped"):
            return "over"
        return st.get("state") == "running" and states[:1] == ["live"]

    got = wait_until(live, timeout, 0.5)
    assert got is True, f"task {task_id}: its RTMP output was not live within {timeout} s: {json.dumps(last)[:2000]}"
    return last["status"]


def check_stream(url: str, width: int, height: int) -> str:
    """Reads the published stream back: H.264 width x height and AAC by ffprobe, and at least 30
    video frames decoded by ffmpeg from 2 s of it. Returns a line for the log."""
    r = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name,width,height",
                        "-of", "csv=p=0", url], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, f"ffprobe could not read {url}: {r.stderr}"
    probe = [line.strip().rstrip(",") for line in r.stdout.splitlines() if line.strip()]
    assert f"h264,{width},{height}" in probe, f"{url}: expected H.264 {width}x{height}, ffprobe saw {probe}"
    assert any(p.startswith("aac") for p in probe), f"{url}: no AAC audio, ffprobe saw {probe}"
    r = subprocess.run(["ffmpeg", "-v", "error", "-i", url, "-t", "2", "-map", "0:v", "-f", "framemd5", "-"],
                       capture_output=True, text=True, timeout=30)
    frames = sum(1 for line in r.stdout.splitlines() if line and not line.startswith("#"))
    assert frames >= 30, f"{url}: ffmpeg decoded only {frames} video frames of 2 s ({r.stderr[-500:]})"
    return f"read back {url}: {' '.join(probe)} - {frames} video frames decoded from 2 s"


def check_recording(path: Path, min_seconds: float, owner: int = TESSERA_UID) -> str:
    """A recording complete (a duration in its header: the trailer was written), at least
    `min_seconds` long, decoding without an error, owned by `owner`. Returns a line for the log."""
    assert path.is_file() and path.stat().st_size > 0, f"no recording {path}"
    assert path.stat().st_uid == owner, f"{path} is owned by uid {path.stat().st_uid}, expected {owner}"
    duration = ffprobe(path).get("format", {}).get("duration")
    assert duration not in (None, "N/A"), f"{path} has no duration: not finished properly"
    assert float(duration) >= min_seconds, f"{path} lasts {duration} s, expected at least {min_seconds} s"
    r = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-f", "null", "-"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0 and not r.stderr.strip(), f"{path} does not decode cleanly: {r.stderr[:1000]}"
    return f"{path.name}: {float(duration):.2f} s, decodes cleanly, owned by uid {owner}"


def uid_of(host_pid: int) -> list[int]:
    """Real, effective, saved and file-system uids of a host process (/proc/<pid>/status)."""
    for line in Path(f"/proc/{host_pid}/status").read_text().splitlines():
        if line.startswith("Uid:"):
            return [int(x) for x in line.split()[1:5]]
    raise AssertionError(f"no Uid: line for process {host_pid}")


def elapsed_ms(t0: float) -> int:
    return int((time.monotonic() - t0) * 1000)


# --------------------------------------------------------------------------------------------- #
# compose
# --------------------------------------------------------------------------------------------- #
def compose_command(docker: Docker) -> list[str]:
    """The engine's compose plugin (`docker compose`) when it has one, else Debian's docker-compose."""
    if docker.run("compose", "version", check=False).returncode == 0:
        return [docker.cli, "compose"]
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    pytest.fail("neither 'docker compose' nor docker-compose is installed")


def compose_file(command: list[str], path: Path, text: str, work: Path) -> Path:
    """`text` (the compose file at `path`, maybe edited) as the file to give `command`: Debian 12's
    docker-compose (1.29) reads the Compose specification but not its top-level `name:` (the
    project name, given with -p anyway), so for it the line is left out. The file is written to
    `work` when anything changed."""
    if command[0] == "docker-compose":
        text = "".join(line for line in text.splitlines(keepends=True) if not line.startswith("name:"))
    if text == path.read_text():
        return path
    out = work / path.name
    out.write_text(text)
    return out


class Compose:
    """One compose project on the engine, relative paths resolved from `project_dir`; `with`
    brings it up (`up -d --no-build`) and down (`down -v --remove-orphans`)."""

    def __init__(self, docker: Docker, command: list[str], file: Path, project: str, project_dir: Path,
                 env: dict[str, str]):
        self.docker, self.command = docker, command
        self.argv = [*command, "-f", str(file), "--project-directory", str(project_dir), "-p", project]
        self.env = docker.env(**env)

    def run(self, *args: str, timeout: float = 300, check: bool = True) -> subprocess.CompletedProcess:
        r = subprocess.run([*self.argv, *args], capture_output=True, text=True, timeout=timeout, env=self.env)
        if check:
            assert r.returncode == 0, f"{' '.join(self.command)} {' '.join(args)} exited {r.returncode}:\n" \
                                      f"{r.stdout[-2000:]}{r.stderr[-2000:]}\n{self.logs()}"
        return r

    def logs(self, lines: int = 30) -> str:
        r = subprocess.run([*self.argv, "logs", "--tail", str(lines)], capture_output=True, text=True, timeout=60,
                           env=self.env)
        return f"--- compose logs (last lines) ---\n{r.stdout[-6000:]}{r.stderr[-2000:]}"

    def container_id(self, service: str) -> str:
        return self.run("ps", "-q", service).stdout.strip()

    def wait_healthy(self, count: int, timeout: float) -> int:
        """Waits until `count` containers run and are healthy; fails at once when one is neither
        running nor created. Returns the milliseconds it took."""
        t0 = time.monotonic()
        last: dict[str, str] = {}

        def healthy():
            nonlocal last
            ids = self.run("ps", "-q").stdout.split()
            last = {i: self.docker.state(i) for i in ids}
            broken = {i: s for i, s in last.items() if not s.startswith(("running", "created"))}
            assert not broken, f"compose: containers {broken}\n{self.logs()}"
            return len(ids) == count and all(s == "running healthy" for s in last.values())

        assert wait_until(healthy, timeout, 0.5), \
            f"compose: not every service became healthy within {timeout} s: {last}\n{self.logs()}"
        return elapsed_ms(t0)

    def __enter__(self) -> "Compose":
        self.run("up", "-d", "--no-build")
        return self

    def __exit__(self, *exc) -> None:
        self.run("down", "-v", "--remove-orphans", check=False)
