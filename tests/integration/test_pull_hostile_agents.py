"""Issue 31 item 9: hostile or slow agents in `ingest pull`. A listing with "size": Infinity
is refused for that agent only (before: a traceback that stopped the whole pull, the agents
after it not pulled); an agent answering a byte a second is given up at the per-agent
deadline (before: it held the pull indefinitely, every read being within the read
timeout); the good agent listed after each is pulled."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import CliRunner
from tests.integration.agent_support import (
    agent_server,
    free_port,
    write_sources,
    write_token,
    write_trials,
)

pytestmark = pytest.mark.integration

HOSTILE_AGENT = textwrap.dedent('''
    import sys, time
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    MODE = sys.argv[2]

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            if self.path == "/segments":
                size = "Infinity" if MODE == "infinity" else "100000"
                body = ('{"segments": [{"name": "s-0001.jsonl", "size": %s}]}' % size).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            # slow: a byte a second of the range asked for
            first, last = self.headers["Range"].split("=")[1].split("-")
            self.send_response(206)
            self.send_header("Content-Range", "bytes %s-%s/100000" % (first, last))
            self.send_header("Content-Length", str(int(last) - int(first) + 1))
            self.end_headers()
            try:
                for _ in range(int(last) - int(first) + 1):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(1)
            except OSError:
                pass

    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
    print("ready", flush=True)
    server.serve_forever()
''')


@pytest.mark.parametrize("mode", ["infinity", "slow"])
def test_a_hostile_agent_is_refused_alone_and_the_next_one_is_pulled(
        cli: CliRunner, tmp_path: Path, mode: str) -> None:
    spool = tmp_path / "spool"
    spool.mkdir()
    write_trials(spool / "s-0001.jsonl", 100, run_size=50)
    token_file = tmp_path / "agent.token"
    write_token(token_file)
    script = tmp_path / "hostile_agent.py"
    script.write_text(HOSTILE_AGENT)
    port = free_port()
    hostile = subprocess.Popen([sys.executable, str(script), str(port), mode],
                               stdout=subprocess.PIPE, text=True)
    try:
        assert hostile.stdout is not None and hostile.stdout.readline().strip() == "ready"
        with agent_server(spool, token_file) as good_url:
            sources = write_sources(tmp_path / "sources.toml", [
                ("bad", f"http://127.0.0.1:{port}", token_file), ("good", good_url, token_file)])
            # without the deadline a byte a second of 100,000 bytes is 28 hours: the
            # command's own timeout (300 s) would end this test
            pulled = cli("ingest", "pull", "--sources", str(sources), "--agent-deadline", "5",
                         "--retries", "0", timeout=300)
    finally:
        hostile.kill()
        hostile.wait()
    assert pulled.returncode == 1
    assert "Traceback" not in pulled.stderr
    assert "agent good: 1 segment(s), 100 trials added" in pulled.stdout
    bad = [line for line in pulled.stderr.splitlines() if line.startswith("agent bad:")]
    assert bad, pulled.stderr
    if mode == "infinity":
        assert "with size inf, not a byte count" in bad[0]
    else:
        assert "deadline of 5 s" in pulled.stderr
