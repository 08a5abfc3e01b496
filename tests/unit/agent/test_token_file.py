"""Token files (issue 44, H11): a FIFO, a device or a huge file is refused in one line
before anything is read; `agent serve` and `ingest pull` say so instead of hanging."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from perfwarehouse.errors import UsageError
from perfwarehouse.protocol import MAX_TOKEN_BYTES, read_token

TOKEN = "k" * 43


def _refused(call: Callable[[], object], fifo: Path | None = None) -> UsageError:
    """The UsageError ``call`` raises; if it blocks (on ``fifo``), unblock it and fail."""
    outcome: list[BaseException | object] = []

    def run() -> None:
        try:
            outcome.append(call())
        except BaseException as exc:  # noqa: BLE001 (handed to the test's thread)
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout=20)
    if worker.is_alive() and fifo is not None:  # the old code waits for a writer: be one
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.write(fd, TOKEN.encode())
        os.close(fd)
        worker.join(timeout=20)
        pytest.fail("reading the token blocked on the FIFO")
    assert outcome and isinstance(outcome[0], UsageError), outcome
    return outcome[0]


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "token"
    os.mkfifo(fifo)
    error = _refused(lambda: read_token(fifo), fifo)
    assert str(error) == (f"the token file {fifo} is a FIFO, not a regular file; write the "
                          "token into a file (chmod 600)")


def test_a_link_to_a_device_is_refused_before_reading(tmp_path: Path) -> None:
    link = tmp_path / "token"
    link.symlink_to("/dev/zero")
    error = _refused(lambda: read_token(link))
    assert "is a character device, not a regular file" in str(error)


def test_a_directory_is_refused(tmp_path: Path) -> None:
    assert "is a directory, not a regular file" in str(_refused(lambda: read_token(tmp_path)))


def test_a_token_file_over_the_limit_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "token"
    big.write_text("a" * (MAX_TOKEN_BYTES + 1))
    assert str(_refused(lambda: read_token(big))) == (
        f"the token file {big} holds {MAX_TOKEN_BYTES + 1:,} bytes; a token file holds one "
        f"token of at most {MAX_TOKEN_BYTES:,} bytes")


@pytest.mark.parametrize("text", [f"{TOKEN}\n", f"  {TOKEN}  \r\n", "a" * (MAX_TOKEN_BYTES - 1)])
def test_a_good_token_file_is_read(tmp_path: Path, text: str) -> None:
    path = tmp_path / "token"
    path.write_text(text)
    assert read_token(path) == text.strip()
    link = tmp_path / "link"  # a link to a regular file (a mounted secret) is fine
    link.symlink_to(path)
    assert read_token(link) == text.strip()


@pytest.mark.parametrize("data", [b"\xff" * 20, TOKEN.encode() + b"\x01", b"short"])
def test_a_token_that_is_not_printable_ascii_is_refused(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "token"
    path.write_bytes(data)
    assert "must be at least 16 printable ASCII characters" in str(
        _refused(lambda: read_token(path)))


def test_agent_serve_and_ingest_pull_refuse_a_fifo_in_one_line(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    fifo = tmp_path / "token"
    os.mkfifo(fifo)
    (tmp_path / "spool").mkdir()
    served = cli("agent", "serve", "--spool", str(tmp_path / "spool"), "--port", "0",
                 "--token-file", str(fifo), timeout=60)
    assert served.returncode == 1
    assert served.stderr == (f"error: the token file {fifo} is a FIFO, not a regular file; "
                             "write the token into a file (chmod 600)\n")
    sources = tmp_path / "sources.toml"
    sources.write_text(f'[[agent]]\nname = "w"\nurl = "http://127.0.0.1:9"\n'
                       f'token_file = "{fifo}"\n')
    pulled = cli("ingest", "pull", "--sources", str(sources), timeout=60)
    assert pulled.returncode == 1, pulled.stdout + pulled.stderr
    assert "Traceback" not in pulled.stderr
    assert f"the token file {fifo} is a FIFO" in pulled.stdout + pulled.stderr
