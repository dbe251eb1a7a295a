"""A private PostgreSQL server for the cluster tests: Debian's `postgresql` binaries, a fresh data
directory, a free loopback port, run as the `postgres` user when the tests run as root, stopped
by its own PID. Each test gets a database of its own (`new_database()`)."""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from livetools import free_port, port_accepts, wait_until


def _binaries() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


class PostgresServer:
    def __init__(self):
        self.bin = _binaries()
        if self.bin is None:
            raise RuntimeError("PostgreSQL is not installed: scripts/install.sh installs Debian's `postgresql`")
        self.root = Path(tempfile.mkdtemp(prefix="tessera-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        self.user = "tessera"
        self._count = 0
        # postgres refuses to run as root: run it as the `postgres` user, which must own the dir.
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            pw = pwd.getpwnam("postgres")
            os.chown(self.root, pw.pw_uid, pw.pw_gid)
            os.chmod(self.root, 0o755)
            # setpriv execs postgres in place, so the PID we hold is the server's own.
            self.as_user = ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"]

    def _run(self, args: list[str], **kw) -> subprocess.CompletedProcess:
        return subprocess.run(self.as_user + args, capture_output=True, text=True, timeout=120, **kw)

    def start(self) -> None:
        r = self._run([str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U", self.user,
                       "--no-sync", "-E", "UTF8"])
        assert r.returncode == 0, f"initdb failed: {r.stderr}"
        self._launch()

    def _launch(self) -> None:
        log = open(self.root / "postgres.log", "ab")
        self.proc = subprocess.Popen(
            self.as_user + [str(self.bin / "postgres"), "-D", str(self.data), "-p", str(self.port), "-k", str(self.root),
                            "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=300"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        ok = wait_until(lambda: self.proc.poll() is not None or self._ready(), 30, 0.1)
        assert ok and self.proc.poll() is None, f"postgres did not start:\n{(self.root / 'postgres.log').read_text()[-3000:]}"

    def _ready(self) -> bool:
        if not port_accepts(self.port):
            return False
        r = subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", self.user, "-d", "postgres",
                            "-Atc", "select 1"], capture_output=True, text=True, timeout=10)
        return r.returncode == 0

    def sql(self, statement: str, database: str = "postgres") -> str:
        r = subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", self.user, "-d", database,
                            "-v", "ON_ERROR_STOP=1", "-Atc", statement], capture_output=True, text=True, timeout=30)
        assert r.returncode == 0, f"psql {statement!r}: {r.stderr}"
        return r.stdout

    def new_database(self) -> str:
        """A fresh database; returns its store URL."""
        self._count += 1
        name = f"t{os.getpid()}_{self._count}"
        self.sql(f"CREATE DATABASE {name}")
        return f"postgres://{self.user}@127.0.0.1:{self.port}/{name}"

    def restart(self, down_seconds: float) -> None:
        """Stops the server as an upgrade or a failover does (fast shutdown: every connection
        closed), keeps it down `down_seconds`, and starts it again on the same port and data."""
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(30)
        time.sleep(down_seconds)
        self._launch()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)   # smart shutdown; SIGINT/SIGKILL if it lingers
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        shutil.rmtree(self.root, ignore_errors=True)
