"""The command line around `mix`: help, progress on a terminal, plain log lines otherwise."""
import os
import pty
import re
import select
import subprocess
import time

from helpers import RED, TESSERA_BIN, run_tessera, task


def test_help_lists_the_commands():
    r = run_tessera(["--help"])
    assert r.returncode == 0
    for cmd in ("mix", "validate", "preview"):
        assert cmd in r.stdout, f"'{cmd}' missing from tessera --help:\n{r.stdout}"
    for opt in ("--output", "--media-root", "--output-dir"):
        assert opt in run_tessera(["mix", "--help"]).stdout, f"mix --help does not mention {opt}"


def test_plain_log_lines_when_not_a_terminal(ws, media):
    src = media.solid(RED, duration=1.0, tone=440)
    r = ws.mix(task([{"id": "r", "url": src}], [{"input": "r", "x": 0, "y": 0, "width": 320, "height": 240}],
                    outputs=["log.mp4"]))
    assert "\r" not in r.stderr, "a progress bar (carriage returns) was drawn on a pipe"
    assert "\x1b[" not in r.stderr, "terminal escape codes on a pipe"
    assert r.stderr.strip(), "no log lines at all on stderr"


def test_progress_bar_on_a_terminal(ws, media):
    src = media.solid(RED, duration=3.0, tone=440, size=(320, 240), fps=30)
    doc = task([{"id": "r", "url": src}], [{"input": "r", "x": 0, "y": 0, "width": 320, "height": 240}],
               outputs=["tty.mp4"], fps=30)
    path = ws.write_task(doc)
    master, slave = pty.openpty()
    proc = subprocess.Popen([str(TESSERA_BIN), "mix", str(path), "--media-root", str(media.root),
                             "--output-dir", str(ws.out)], cwd=ws.root, stdin=subprocess.DEVNULL,
                            stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    chunks = []
    deadline = time.time() + 120
    while time.time() < deadline:
        ready, _, _ = select.select([master], [], [], 1.0)
        if ready:
            try:
                data = os.read(master, 4096)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    proc.wait(timeout=30)
    os.close(master)
    text = b"".join(chunks).decode(errors="replace")
    assert proc.returncode == 0, text
    assert "%" in text, f"no percentage in the terminal progress output:\n{text!r}"
    # (a terminal turns every "\n" into "\r\n": look for a bare "\r" that redraws the line)
    assert re.search(r"\r(?!\n)", text) or "\x1b[" in text, f"the progress bar does not redraw in place:\n{text[-500:]!r}"
    assert (ws.out / "tty.mp4").exists()
