"""What a client of `agent serve` can hold, and what `ingest pull` accepts from an agent:
huge Range numbers and trailing slashes get plain answers; slow and idle clients
(slowloris, bounded, on 127.0.0.1) are cut off and a well-behaved pull still completes;
an agent answering with more bytes than asked is refused before anything lands."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from perfwarehouse.warehouse.store import Warehouse
from tests.conftest import CliRunner
from tests.integration.agent_support import (
    agent_server,
    free_port,
    write_sources,
    write_token,
    write_trials,
)

pytestmark = pytest.mark.integration


@pytest.fixture
def agent(tmp_path: Path):  # type: ignore[no-untyped-def]
    spool = tmp_path / "spool"
    spool.mkdir()
    write_trials(spool / "s-0001.jsonl", 200, run_size=50)
    token_file = tmp_path / "agent.token"
    token = write_token(token_file)
    with agent_server(spool, token_file) as url:
        yield {"url": url, "token": token, "token_file": token_file}


def _get(agent, path: str, **headers: str) -> httpx.Response:  # type: ignore[no-untyped-def]
    headers["Authorization"] = f"Bearer {agent['token']}"
    return httpx.get(agent["url"] + path, headers=headers, timeout=30)


def test_a_huge_range_number_is_416_and_a_trailing_slash_404(agent) -> None:  # type: ignore[no-untyped-def]
    huge = "9" * 5000
    # a first byte past any file: 416; a last byte or suffix length past the end is
    # clamped to the file (RFC 9110 14.1.2): 206 with the whole file (issue 31 item 12;
    # this test asserted 416 for those two before)
    assert _get(agent, "/segments/s-0001.jsonl", Range=f"bytes={huge}-").status_code == 416
    whole = _get(agent, "/segments/s-0001.jsonl").content
    for wanted in (f"bytes=0-{huge}", f"bytes=-{huge}", "bytes=0-" + "9" * 19,
                   "bytes=-" + "9" * 19):
        response = _get(agent, "/segments/s-0001.jsonl", Range=wanted)
        assert response.status_code == 206, wanted
        assert response.content == whole
        assert response.headers["content-range"] == f"bytes 0-{len(whole) - 1}/{len(whole)}"
    tail = _get(agent, "/segments/s-0001.jsonl", Range="bytes=10-" + "9" * 19)
    assert tail.status_code == 206 and tail.content == whole[10:]
    for path in ("/segments/", "/segments/s-0001.jsonl/"):
        response = _get(agent, path)
        assert response.status_code == 404 and "location" not in response.headers


def test_slow_and_idle_clients_are_cut_off_and_a_pull_completes(
        agent, tmp_path: Path, cli: CliRunner) -> None:  # type: ignore[no-untyped-def]
    url = urlsplit(agent["url"])
    clients = []
    try:
        for number in range(80):  # more than the server's connection limit
            sock = socket.create_connection((url.hostname, url.port), timeout=5)
            if number % 2:  # slowloris: a request that never finishes its headers
                sock.sendall(b"GET /segments HTTP/1.1\r\nHost: x\r\nX-Slow: 1")
            clients.append(sock)
        sources = write_sources(tmp_path / "sources.toml", [("a", agent["url"],
                                                             agent["token_file"])])
        pulled = cli("ingest", "pull", "--sources", str(sources), check=True)
        assert "200 trials added" in pulled.stdout
        # every slow or idle client was disconnected by the server (bounded wait)
        deadline = time.monotonic() + 60
        for sock in clients:
            sock.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                data = sock.recv(1024)
            except ConnectionResetError:
                data = b""
            assert data == b""
    finally:
        for sock in clients:
            sock.close()
    with Warehouse(tmp_path / "warehouse").catalog() as con:
        assert con.execute("SELECT count(*) FROM trials").fetchone()[0] == 200


def test_unauthenticated_connections_never_starve_an_authenticated_client(
        agent) -> None:  # type: ignore[no-untyped-def]
    """Issue 31 item 3: 100 idle connections without a token and 40 that trickle their
    headers (more than every limit) stay open while an authenticated client asks, once
    each, without retrying: every answer is 200 (before: 503, the concurrency limit
    counted the unauthenticated sockets)."""
    url = urlsplit(agent["url"])
    attackers = []
    try:
        for number in range(140):
            sock = socket.create_connection((url.hostname, url.port), timeout=30)
            if number >= 100:
                sock.sendall(b"GET /segments HTTP/1.1\r\nHost: x\r\nX-Slow: 1")
            attackers.append(sock)
        with httpx.Client(headers={"Authorization": f"Bearer {agent['token']}"},
                          timeout=60) as client:
            for _ in range(5):
                listing = client.get(agent["url"] + "/segments")
                assert listing.status_code == 200, listing.text
                assert listing.json()["segments"][0]["name"] == "s-0001.jsonl"
            for _ in range(5):  # a new connection each time
                assert _get(agent, "/segments/s-0001.jsonl", Range="bytes=0-9").status_code == 206
    finally:
        for sock in attackers:
            sock.close()


MALICIOUS_AGENT = textwrap.dedent('''
    import json, sys
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    LINE = b'{"v":1}\\n'

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            if self.path == "/segments":
                body = json.dumps({"segments": [{"name": "s-0001.jsonl", "size": 662}]}).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            # a range request: claims the range asked for, sends 60 MB without a length
            self.send_response(206)
            self.send_header("Content-Range", "bytes 0-661/662")
            self.send_header("Connection", "close")
            self.end_headers()
            block = LINE * 8192
            try:
                for _ in range(60 * 2**20 // len(block)):
                    self.wfile.write(block)
            except OSError:
                pass

    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
    print("ready", flush=True)
    server.serve_forever()
''')


def test_an_agent_sending_more_than_asked_is_refused(tmp_path: Path, cli: CliRunner) -> None:
    port = free_port()
    script = tmp_path / "malicious_agent.py"
    script.write_text(MALICIOUS_AGENT)
    proc = subprocess.Popen([sys.executable, str(script), str(port)], stdout=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        token = tmp_path / "agent.token"
        write_token(token)
        sources = write_sources(tmp_path / "sources.toml",
                                [("evil", f"http://127.0.0.1:{port}", token)])
        result = cli("ingest", "pull", "--chunk-mb", "1", "--sources", str(sources))
    finally:
        proc.kill()
        proc.wait()
    assert result.returncode == 1 and "Traceback" not in result.stderr
    output = result.stdout + result.stderr
    assert "more than the 662 bytes asked for" in output
    home = tmp_path / "warehouse"
    if (home / "catalog.duckdb").exists():
        with Warehouse(home).catalog() as con:
            assert con.execute("SELECT count(*) FROM trials").fetchone()[0] == 0
            assert con.execute("SELECT count(*) FROM pull_cursors").fetchone()[0] == 0
