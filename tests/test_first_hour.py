"""A newcomer's first hour, as they would live it: the README's quick start run command by command
as written there (serve, POST a live task, watch it, stop it, stop the server), `tessera --version`,
`validate` and `mix` on a document only `serve` can run (the same words from both), and a missing
file named with the folder that was searched, by `validate`, `mix` and serve's 400.

The quick start runs in a sandbox laid out like the repository (`.build/release/tessera` a link to
$TESSERA_BIN, `demo/media` made by scripts/demo.sh --media-only), so its commands run verbatim;
the only change is the port (`localhost:8080` → a free one, given to serve as TESSERA_PORT) so the
test does not collide with a server already on 8080. `ffplay` and `kill %1` need a display and an
interactive shell: the test does what they stand for (decodes the same stream or file with ffmpeg
and looks at the picture; sends the server SIGTERM) and fails on any command it does not know, so
the README cannot gain a step nobody ran.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from helpers import REPO, TESSERA_BIN, ffprobe, run_tessera, split_yuv420

sys.path.insert(0, str(Path(__file__).resolve().parent / "live"))
from livetools import Client, free_port, log_tail, wait_until  # noqa: E402

README = REPO / "README.md"
QUICK_START = "## Quick start"


# --------------------------------------------------------------------------------------------- #
# the README's quick start
# --------------------------------------------------------------------------------------------- #
def quick_start_commands(text: str) -> list[str]:
    """The commands of the quick start's first ```sh block: comments dropped, a command running
    on while a quote is open or a line ends in a backslash."""
    start = text.index("\n" + QUICK_START)
    block = re.search(r"```sh\n(.*?)```", text[start:], re.S)
    assert block, "the quick start has no ```sh block"
    commands, current = [], ""
    for line in block.group(1).splitlines():
        if not current and (not line.strip() or line.lstrip().startswith("#")):
            continue
        current += line + "\n"
        if line.rstrip().endswith("\\"):
            continue
        try:
            shlex.split(current)
        except ValueError:      # an open quote: the JSON body goes on
            continue
        commands.append(current.strip())
        current = ""
    assert not current, f"the quick start's last command is unfinished: {current!r}"
    return commands


def test_the_quick_start_comes_first():
    """Right after the two set-up commands, before any table, and about six commands long."""
    text = README.read_text()
    assert QUICK_START in text, "README.md has no quick start section"
    quick = text.index("\n" + QUICK_START)
    first_table = text.index("\n| ")
    assert quick < first_table, "the quick start comes after a table"
    setup = [m.start() for m in re.finditer(r"```sh\n", text)]
    assert len([s for s in setup if s < quick]) == 2, "the README's top must keep exactly its two set-up commands"
    commands = quick_start_commands(text)
    assert 5 <= len(commands) <= 8, commands
    assert "tessera serve" in commands[0] and commands[0].endswith("&"), commands[0]
    assert commands[-1] == "kill %1", commands[-1]


def _picture_is_two_pictures(frame, width: int) -> str | None:
    """The pk layout's two halves both show a moving test pattern: neither is flat (black, grey)."""
    left, right = frame.y[:, : width // 2], frame.y[:, width // 2:]
    for name, half in (("left (anchor)", left), ("right (guest)", right)):
        if float(np.std(half)) < 20:
            return f"the {name} half is flat (std {np.std(half):.1f}, mean {np.mean(half):.1f})"
    return None


def _decode(url_or_path: str, seconds: float) -> tuple[list, str]:
    """Up to `seconds` of video as frames, and ffmpeg's error output."""
    info = ffprobe(url_or_path)
    video = next(s for s in info["streams"] if s["codec_type"] == "video")
    w, h = int(video["width"]), int(video["height"])
    r = subprocess.run(["ffmpeg", "-hide_banner", "-v", "error", "-nostdin", "-i", str(url_or_path), "-t", str(seconds),
                        "-map", "0:v:0", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"], capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    return split_yuv420(r.stdout, w, h), r.stderr.decode(errors="replace")


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory) -> Path:
    """A directory laid out like the repository after the set-up: the binary and the demo media."""
    root = tmp_path_factory.mktemp("first-hour")
    (root / ".build" / "release").mkdir(parents=True)
    (root / ".build" / "release" / "tessera").symlink_to(TESSERA_BIN.resolve())
    env = dict(os.environ, DEMO_DIR=str(root / "demo"), TESSERA_BIN=str(TESSERA_BIN))
    r = subprocess.run(["bash", str(REPO / "scripts" / "demo.sh"), "--media-only"], cwd=REPO, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"scripts/demo.sh --media-only failed:\n{r.stderr[-3000:]}"
    return root


def test_the_quick_start_runs_as_written(sandbox):
    commands = quick_start_commands(README.read_text())
    port = free_port()
    env = dict(os.environ, TESSERA_PORT=str(port))
    client = Client("127.0.0.1", port)
    server: subprocess.Popen | None = None
    log = sandbox / "serve.log"
    task_id = None
    running_since = None
    stopped = None

    def sh(command: str) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", "-c", command.replace("localhost:8080", f"localhost:{port}")], cwd=sandbox,
                              env=env, capture_output=True, text=True, timeout=60)

    def answer(command: str) -> dict:
        r = sh(command)
        assert r.returncode == 0, f"`{command}` exited {r.returncode}: {r.stderr}"
        try:
            return json.loads(r.stdout)
        except ValueError:
            raise AssertionError(f"`{command}` did not answer JSON: {r.stdout[:2000]!r}\n{log_tail(log)}") from None

    try:
        for command in commands:
            words = shlex.split(command)
            if "tessera" in words[0] and words[1] == "serve" and command.endswith("&"):
                server = subprocess.Popen(["bash", "-c", "exec " + command[:-1]], cwd=sandbox, env=env,
                                          stdin=subprocess.DEVNULL, stdout=open(log, "ab"), stderr=subprocess.STDOUT)
                ok = wait_until(lambda: server.poll() is not None or _healthy(client), 20)
                assert ok and server.poll() is None, f"`{command}` did not start serving:\n{log_tail(log)}"
            elif words[0] == "curl" and "POST" in words:
                st = answer(command)
                assert st.get("state") in ("starting", "running"), st
                task_id = st["taskId"]
                st = client.wait_state(task_id, "running", 20)
                running_since = time.monotonic()
            elif words[0] == "curl" and "DELETE" in words:
                # Let the recording hold a few seconds before it is stopped.
                time.sleep(max(0.0, 6 - (time.monotonic() - running_since)))
                stopped = answer(command)
                assert stopped.get("state") == "stopped", stopped
                assert stopped.get("taskId") == task_id, stopped
            elif words[0] == "curl":
                # The status, as the newcomer reads it: running, each output writing.
                def live():
                    st = answer(command)
                    return st if st.get("state") == "running" and st.get("outputs") and \
                        all(o.get("state") == "live" for o in st["outputs"]) and st.get("frames", 0) > 30 else None
                st = wait_until(live, 20, 0.5)
                assert st, f"`{command}`: not running with every output live: {answer(command)}"
                assert [i["state"] for i in st["inputs"]] == ["live", "live"], st["inputs"]
            elif words[0] == "ffplay":
                target = sandbox / words[-1]
                if stopped is None:
                    # The live stream: a playlist with segments, decoded without an error,
                    # showing both clips side by side at the task's size.
                    assert wait_until(lambda: target.exists() and target.read_text().count("#EXTINF") >= 2, 30), \
                        f"{target} has no two segments:\n{log_tail(log)}"
                else:
                    assert target.exists(), f"{target} was not written"
                # A live playlist is read as it grows: a few seconds of it, in about as many.
                frames, errors = _decode(str(target), 3 if stopped is None else 60)
                assert not errors.strip(), f"{target}: decoding errors: {errors[:1000]}"
                assert len(frames) >= 30, f"{target}: {len(frames)} frames"
                v = next(s for s in ffprobe(target)["streams"] if s["codec_type"] == "video")
                assert (int(v["width"]), int(v["height"])) == (1280, 360), v
                assert any(s["codec_type"] == "audio" for s in ffprobe(target)["streams"]), f"{target} has no audio"
                for frame in frames[5::30]:
                    problem = _picture_is_two_pictures(frame, 1280)
                    assert problem is None, f"{target}: {problem}"
                if stopped is not None:
                    seconds = float(ffprobe(target)["format"]["duration"])
                    assert seconds >= 4, f"the recording holds only {seconds:.1f} s"
            elif command == "kill %1":
                server.send_signal(signal.SIGTERM)
                assert server.wait(30) == 0, f"serve did not exit 0 on SIGTERM:\n{log_tail(log)}"
            else:
                pytest.fail(f"the quick start has a command this test does not know how to run: {command!r}")
        assert task_id and stopped and server.poll() is not None, "the quick start misses a step"
    finally:
        if server and server.poll() is None:
            server.kill()
            server.wait(10)


def _healthy(client: Client) -> bool:
    try:
        return client.get("/healthz", timeout=2).status == 200
    except OSError:
        return False


# --------------------------------------------------------------------------------------------- #
# the command line
# --------------------------------------------------------------------------------------------- #
def test_version():
    for args in (["--version"], ["version"]):
        r = run_tessera(args)
        assert r.returncode == 0, r.stderr
        assert re.fullmatch(r"\d+\.\d+\.\d+\n", r.stdout), r.stdout
    assert run_tessera(["--version"]).stdout == run_tessera(["version"]).stdout


def test_serve_help_says_what_sigterm_does():
    r = run_tessera(["serve", "--help"])
    assert r.returncode == 0
    text = " ".join(r.stdout.split())
    assert "--on-shutdown" in text and "SIGTERM" in text, r.stdout
    assert "resume" in text and "stop" in text


SERVE_ONLY = sorted((REPO / "Layouts" / "serve").glob("*.json"))


@pytest.mark.parametrize("document", SERVE_ONLY, ids=[p.stem for p in SERVE_ONLY])
def test_validate_and_mix_say_serve_only_in_the_same_words(document, tmp_path):
    v = run_tessera(["validate", document], cwd=tmp_path)
    assert v.returncode == 0, f"{document.name} is valid (for the server):\n{v.stdout}{v.stderr}"
    said = [line for line in v.stdout.splitlines() if line.startswith("serve only: ")]
    allocated = [i for i, inp in enumerate(json.loads(document.read_text())["inputs"]) if "allocate" in inp.get("rtp", {})]
    assert [line.split(":")[1].strip() for line in said] == [f"inputs[{i}].rtp.allocate" for i in allocated], v.stdout
    assert all("tessera serve" in line and "tessera mix" in line for line in said), said

    m = run_tessera(["mix", document, "--output-dir", tmp_path / "out"], cwd=tmp_path, timeout=60)
    assert m.returncode == 1, m.stderr
    assert [line.removeprefix("error: ") for line in m.stderr.splitlines()] == said, m.stderr
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.*")), "mix wrote something"


def test_a_mixable_document_is_not_called_serve_only(tmp_path):
    example = REPO / "Layouts" / "examples" / "pk-side-by-side.json"
    media = tmp_path / "media"
    media.mkdir()
    for name in json.dumps(json.loads(example.read_text())).split('"'):
        if re.fullmatch(r"[\w-]+\.(mp4|webm|mkv|png)", name):
            (media / name).write_bytes(b"x")
    v = run_tessera(["validate", example, "--media-root", media], cwd=tmp_path)
    assert "serve only" not in v.stdout, v.stdout


MISSING = {"taskId": "t", "inputs": [{"id": "a", "url": "clips/anchor.mp4"}],
           "encoder": {"video": {"width": 320, "height": 240}}, "outputs": [{"url": "o.mp4"}]}


def test_file_not_found_names_the_folder_searched(tmp_path):
    doc = tmp_path / "task.json"
    doc.write_text(json.dumps(MISSING))
    media = tmp_path / "media"
    media.mkdir()
    expected = f"inputs[0].url: file not found: clips/anchor.mp4 (looked in {media}/clips/"
    v = run_tessera(["validate", doc, "--media-root", media], cwd=tmp_path)
    assert v.returncode == 1 and expected in v.stdout, v.stdout
    m = run_tessera(["mix", doc, "--media-root", media, "--output-dir", tmp_path], cwd=tmp_path)
    assert m.returncode == 1 and expected in m.stderr, m.stderr
    # Without --media-root the working directory is searched, and said.
    v = run_tessera(["validate", doc], cwd=media)
    assert f"(looked in {media}/clips/" in v.stdout, v.stdout


def test_serve_says_where_it_looked_without_revealing_its_file_system(tmp_path):
    """serve's 400 names the setting searched (its value is in the server's start-up log), never
    the path: an API client does not learn where the media root lies."""
    media = tmp_path / "media"
    media.mkdir()
    port = free_port()
    log = tmp_path / "serve.log"
    server = subprocess.Popen([str(TESSERA_BIN), "serve", "--port", str(port), "--media-root", str(media),
                               "--output-dir", str(tmp_path / "out")], cwd=tmp_path, stdin=subprocess.DEVNULL,
                              stdout=open(log, "ab"), stderr=subprocess.STDOUT)
    client = Client("127.0.0.1", port)
    try:
        assert wait_until(lambda: server.poll() is not None or _healthy(client), 20) and server.poll() is None, log_tail(log)
        for path in ("/v1/tasks", "/v1/validate"):
            r = client.post(path, MISSING)
            assert r.status == 400, r.body
            error = r.json["error"]
            assert error["path"] == "inputs[0].url", error
            assert error["message"] == "file not found: clips/anchor.mp4 (looked in the server's media root, --media-root)", error
            assert str(tmp_path) not in r.body.decode(), r.body
        assert str(media) in log.read_text(), "the start-up log does not name the media root"
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(20) == 0, log_tail(log)


def test_the_quick_start_document_mixes_offline_as_the_readme_says(sandbox):
    """The paragraph after the quick start: its task document without `loop`, saved as the file it
    names, runs with the `tessera mix` command it gives, and writes both outputs."""
    text = README.read_text()
    post = next(c for c in quick_start_commands(text) if c.startswith("curl") and "POST" in shlex.split(c))
    words = shlex.split(post)
    document = json.loads(words[words.index("-d") + 1])
    for spec in document["inputs"]:
        spec.pop("loop", None)
    said = re.search(r"saved as `([\w.-]+\.json)`", text[text.index("\n" + QUICK_START):])
    command = re.search(r"`(\.build/release/tessera mix [^`]+)`", text[text.index("\n" + QUICK_START):])
    assert said and command, "the quick start no longer says how to run its document offline"
    (sandbox / said.group(1)).write_text(json.dumps(document))
    r = subprocess.run(["bash", "-c", command.group(1)], cwd=sandbox, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    out = sandbox / shlex.split(command.group(1))[-1]
    for output in document["outputs"]:
        target = out / output["url"]
        frames, errors = _decode(str(target), 60)
        assert not errors.strip() and len(frames) >= 200, f"{target}: {len(frames)} frames, {errors[:500]}"
        assert _picture_is_two_pictures(frames[100], 1280) is None
