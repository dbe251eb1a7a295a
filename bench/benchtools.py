"""What the Python benchmarks share: free loopback ports, and an nginx-rtmp of their own."""
from __future__ import annotations

import os
import socket
import time
from pathlib import Path


def free_port(kind=socket.SOCK_STREAM) -> int:
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as s:
            s.settimeout(0.3)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise SystemExit(f"nothing listens on {port}")


def nginx_rtmp_command(folder: Path, port: int, application_extra: str = "") -> list[str]:
    """Writes `folder/nginx.conf` for an RTMP server on 127.0.0.1:`port` (application `live`, plus
    `application_extra` directives) and returns the command that runs it in the foreground."""
    module = next((p for p in ("/usr/lib/nginx/modules/ngx_rtmp_module.so", "/usr/share/nginx/modules/ngx_rtmp_module.so")
                   if os.path.exists(p)), None)
    if not module:
        raise SystemExit("ngx_rtmp_module.so not found (apt-get install nginx libnginx-mod-rtmp)")
    folder.mkdir(parents=True, exist_ok=True)
    conf = folder / "nginx.conf"
    conf.write_text(f"""load_module {module};
daemon off;
master_process off;
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log info;
events {{ worker_connections 256; }}
rtmp {{ server {{ listen 127.0.0.1:{port}; chunk_size 4096; application live {{ live on; record off; {application_extra} }} }} }}
""")
    return ["nginx", "-p", str(folder), "-c", str(conf), "-e", str(folder / "error.log")]
