"""`perfwarehouse agent serve` as a real process: tokens, byte ranges, and path tricks."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from tests.integration.agent_support import agent_server, perfwarehouse, write_token

pytestmark = pytest.mark.integration

SECRET = b"TOP-SECRET-CONTENT outside the spool\n"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """A spool with one good segment and every kind of trap, served by a real process."""
    root = tmp_path_factory.mktemp("serve")
    spool = root / "spool"
    spool.mkdir()
    secret = root / "secret.jsonl"
    secret.write_bytes(SECRET)
    (root / "secret.txt").write_bytes(SECRET)
    body = b"".join(b'{"n":%d}\n' % i for i in range(1000))
    (spool / "seg-0001.jsonl").write_bytes(body)
    (spool / "empty.jsonl").write_bytes(b"")
    (spool / "link.jsonl").symlink_to(secret)            # symlink out of the spool
    (spool / "dirlink").symlink_to(root)                  # symlinked directory
    (spool / ".hidden.jsonl").write_bytes(SECRET)
    (spool / "notes.txt").write_bytes(SECRET)
    (spool / "sub.jsonl").mkdir()
    (spool / "sub").mkdir()
    (spool / "sub" / "inner.jsonl").write_bytes(SECRET)
    os.mkfifo(spool / "fifo.jsonl")
    token_file = root / "token"
    token = write_token(token_file)
    with agent_server(spool, token_file) as url:
        yield {"url": url, "token": token, "body": body, "spool": spool}


def _get(served, path: str, token: str | None = "right", **headers: str) -> httpx.Response:  # type: ignore[no-untyped-def]
    if token == "right":
        token = served["token"]
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.get(served["url"] + path, headers=headers, timeout=10)


def _raw(served, target: str, method: str = "GET", auth: bool = True) -> tuple[int, bytes]:  # type: ignore[no-untyped-def]
    """Send a request line exactly as written (no client-side normalisation)."""
    url = urlsplit(served["url"])
    request = f"{method} {target} HTTP/1.1\r\nHost: {url.netloc}\r\nConnection: close\r\n"
    if auth:
        request += f"Authorization: Bearer {served['token']}\r\n"
    with socket.create_connection((url.hostname, url.port), timeout=10) as sock:
        sock.sendall((request + "\r\n").encode())
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    response = b"".join(chunks)
    status = int(response.split(b" ", 2)[1]) if response.startswith(b"HTTP/") else 0
    return status, response


def test_listing_shows_only_plain_segments_with_their_sizes(served) -> None:  # type: ignore[no-untyped-def]
    response = _get(served, "/segments")
    assert response.status_code == 200
    assert response.json() == {"segments": [
        {"name": "empty.jsonl", "size": 0},
        {"name": "seg-0001.jsonl", "size": len(served["body"])}]}


def test_byte_ranges(served) -> None:  # type: ignore[no-untyped-def]
    body = served["body"]
    size = len(body)
    whole = _get(served, "/segments/seg-0001.jsonl")
    assert whole.status_code == 200 and whole.content == body
    part = _get(served, "/segments/seg-0001.jsonl", Range="bytes=100-199")
    assert part.status_code == 206 and part.content == body[100:200]
    assert part.headers["content-range"] == f"bytes 100-199/{size}"
    assert part.headers["content-length"] == "100"
    tail = _get(served, "/segments/seg-0001.jsonl", Range=f"bytes={size - 10}-")
    assert tail.status_code == 206 and tail.content == body[-10:]
    suffix = _get(served, "/segments/seg-0001.jsonl", Range="bytes=-7")
    assert suffix.status_code == 206 and suffix.content == body[-7:]
    beyond = _get(served, "/segments/seg-0001.jsonl", Range=f"bytes={size + 5}-{size + 10}")
    assert beyond.status_code == 416 and beyond.headers["content-range"] == f"bytes */{size}"
    clipped = _get(served, "/segments/seg-0001.jsonl", Range=f"bytes={size - 3}-{size + 100}")
    assert clipped.status_code == 206 and clipped.content == body[-3:]
    bad = _get(served, "/segments/seg-0001.jsonl", Range="bytes=1-2,5-6")
    assert bad.status_code == 400
    assert _get(served, "/segments/empty.jsonl", Range="bytes=0-").status_code == 416


@pytest.mark.parametrize("header", [None, "Bearer", "Bearer wrong-token-of-enough-length",
                                    "Basic {token}", "Bearer {token}x", "Bearer {short}",
                                    "{token}"])
def test_wrong_or_missing_token_gets_401_and_nothing_else(served, header) -> None:  # type: ignore[no-untyped-def]
    headers = {}
    if header is not None:
        headers["Authorization"] = header.format(token=served["token"],
                                                 short=served["token"][:-1])
    for path in ("/segments", "/segments/seg-0001.jsonl", "/nope", "/segments/link.jsonl"):
        response = httpx.get(served["url"] + path, headers=headers, timeout=10)
        assert response.status_code == 401
        assert response.headers["www-authenticate"].startswith("Bearer")
        assert b"seg" not in response.content and b'{"n"' not in response.content


@pytest.mark.parametrize("target", [
    "/segments/../secret.txt", "/segments/..%2Fsecret.txt", "/segments/%2e%2e%2fsecret.jsonl",
    "/segments/..%2F..%2Fsecret.jsonl", "/segments/%2Fetc%2Fpasswd", "/segments//etc/passwd",
    "/segments/%2F" + "%2F".join(["tmp", "secret.jsonl"]), "/../secret.txt", "/segments/..",
    "/segments/link.jsonl", "/segments/.hidden.jsonl",
    "/segments/notes.txt", "/segments/sub.jsonl", "/segments/sub%2Finner.jsonl",
    "/segments/sub/inner.jsonl", "/segments/dirlink%2Fsecret.jsonl", "/segments/fifo.jsonl",
    "/segments/seg-0001.jsonl%00.txt", "/segments/nope.jsonl", "/segments/%5C..%5Csecret.jsonl",
    "/segments/..\\secret.jsonl", "/segments/C:%5Csecret.jsonl", "/etc/passwd", "/",
])
def test_no_path_trick_reads_outside_the_spool(served, target: str) -> None:  # type: ignore[no-untyped-def]
    status, response = _raw(served, target)
    assert status in (400, 404), response[:300]
    assert b"TOP-SECRET" not in response and b"root:" not in response


def test_the_server_is_read_only(served) -> None:  # type: ignore[no-untyped-def]
    before = sorted(os.listdir(served["spool"]))
    for method in ("PUT", "POST", "DELETE", "PATCH"):
        status, _ = _raw(served, "/segments/seg-0001.jsonl", method=method)
        assert status == 405
        status, _ = _raw(served, "/segments/new.jsonl", method=method)
        assert status == 405
    assert sorted(os.listdir(served["spool"])) == before
    assert (served["spool"] / "seg-0001.jsonl").read_bytes() == served["body"]


def test_it_listens_on_loopback_only_by_default(served) -> None:  # type: ignore[no-untyped-def]
    assert urlsplit(served["url"]).hostname == "127.0.0.1"


def test_entries_that_are_not_served_are_named_at_start(tmp_path: Path) -> None:
    spool = tmp_path / "spool"
    spool.mkdir()
    (spool / "good.jsonl").write_bytes(b"{}\n")
    (spool / "bad name.jsonl").write_bytes(b"{}\n")
    (spool / "link.jsonl").symlink_to(spool / "good.jsonl")
    (spool / "dir.jsonl").mkdir()
    token = tmp_path / "token"
    write_token(token)
    proc = subprocess.Popen(perfwarehouse("agent", "serve", "--spool", str(spool), "--port", "0",
                                          "--token-file", str(token)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and "http://127.0.0.1:" in proc.stdout.readline()
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    assert "not serving 'bad name.jsonl'" in err
    assert "not serving link.jsonl: a symbolic link" in err
    assert "not serving dir.jsonl: not a regular file" in err
    assert "good.jsonl" not in err


def test_a_short_token_is_refused(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "token").write_text("short\n")
    (tmp_path / "spool").mkdir()
    result = cli("agent", "serve", "--spool", str(tmp_path / "spool"), "--port", "0",
                 "--token-file", str(tmp_path / "token"))
    assert result.returncode == 1
    assert "at least 16" in result.stderr and "Traceback" not in result.stderr
