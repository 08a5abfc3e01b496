"""Real servers for the workbench tests: nginx with rate limits, redis-server, on 127.0.0.1.

Each server runs in its own temporary directory and is stopped (by its pid) when the
``with`` block ends. A missing tool fails the test in CI (``CI`` set; ``.ci/setup``
installs them) and skips it elsewhere.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest


def require(*tools: str) -> None:
    missing = [t for t in tools if not (shutil.which(t) or shutil.which(t, path="/usr/sbin"))]
    if not missing:
        return
    message = f"needs {', '.join(missing)} (Debian packages; .ci/setup installs them)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_port(port: int, proc: subprocess.Popen[bytes], what: str, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen on {port} within {timeout} s")


@contextmanager
def nginx(rates: Mapping[str, int]) -> Iterator[int]:
    """nginx serving a small file at ``/<path>/`` limited to ``rates[path]`` req/s each.

    ``limit_req`` with a large ``burst`` delays (does not refuse) requests beyond the
    rate, so the response time of a client that offers more than the rate jumps from
    well under a millisecond to about 1/rate.
    """
    exe = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin")
    assert exe is not None
    work = Path(tempfile.mkdtemp(prefix="pw_nginx_"))
    work.chmod(0o755)  # the worker runs as nobody when we are root
    (work / "html").mkdir()
    (work / "html" / "index.html").write_text("x" * 100)
    (work / "html").chmod(0o755)
    port = free_port()
    zones = "\n".join(f"    limit_req_zone $binary_remote_addr zone=z_{path}:1m rate={rate}r/s;"
                      for path, rate in rates.items())
    locations = "\n".join(
        f"        location /{path}/ {{ limit_req zone=z_{path} burst=100000; "
        f"alias {work}/html/; }}" for path in rates)
    (work / "nginx.conf").write_text(f"""daemon off;
worker_processes 1;
pid {work}/nginx.pid;
error_log {work}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {work}/tmp; proxy_temp_path {work}/tmp;
    fastcgi_temp_path {work}/tmp; uwsgi_temp_path {work}/tmp; scgi_temp_path {work}/tmp;
{zones}
    server {{
        listen 127.0.0.1:{port};
{locations}
    }}
}}
""")
    proc = subprocess.Popen([exe, "-p", str(work), "-c", str(work / "nginx.conf")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait_port(port, proc, "nginx")
        yield port
    finally:
        _stop(proc)
        shutil.rmtree(work, ignore_errors=True)


@contextmanager
def redis_server() -> Iterator[int]:
    work = Path(tempfile.mkdtemp(prefix="pw_redis_"))
    port = free_port()
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1",
                             "--save", "", "--appendonly", "no", "--dir", str(work)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_port(port, proc, "redis-server")
        yield port
    finally:
        _stop(proc)
        shutil.rmtree(work, ignore_errors=True)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
