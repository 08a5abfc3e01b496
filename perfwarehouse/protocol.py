"""Where the worker side meets the warehouse side: what the collector agent
(:mod:`perfwarehouse.agent`) and the puller (:mod:`perfwarehouse.ingest.pull`) agree on,
in one place both import, so that neither package imports the other (the bearer token
file and the segment file names), and the one question the agent asks a warehouse
(:func:`finished_values`, through the public read API :mod:`perfwarehouse.api`).

Module-level imports stay light (the CLI imports this module before it parses its
arguments); the rules of the JSON records both sides read live in
:mod:`perfwarehouse.policies`.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any

from perfwarehouse.errors import UsageError
from perfwarehouse.output import file_kind

MIN_TOKEN_CHARS = 16
"""The shortest bearer token accepted (printable ASCII, no white space)."""

MAX_TOKEN_BYTES = 4096
"""The largest token file read (a token is 43 characters from ``secrets.token_urlsafe``)."""

SEGMENT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+=,:@~-]{0,200}\.jsonl")
"""A spool segment's file name: no path separator, no leading dot, ends in ``.jsonl``."""


def is_segment_name(name: str) -> bool:
    """True for a plain segment file name: no path separator, no leading dot, ends in .jsonl."""
    return SEGMENT_NAME.fullmatch(name) is not None


def read_token(path: Path) -> str:
    """The bearer token in ``path`` (surrounding whitespace ignored).

    ``path`` must be (or link to) a regular file of at most :data:`MAX_TOKEN_BYTES`: it is
    opened without blocking (a FIFO would wait for a writer forever) and its kind and size
    checked on the open file before anything is read (``/dev/zero`` never ends)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise UsageError(f"cannot read the token file {path}: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UsageError(f"the token file {path} is {file_kind(info.st_mode)}, not a regular "
                             "file; write the token into a file (chmod 600)")
        if info.st_size > MAX_TOKEN_BYTES:
            raise UsageError(f"the token file {path} holds {info.st_size:,} bytes; a token "
                             f"file holds one token of at most {MAX_TOKEN_BYTES:,} bytes")
        data = b""
        while len(data) <= MAX_TOKEN_BYTES:
            piece = os.read(fd, MAX_TOKEN_BYTES + 1 - len(data))
            if not piece:
                break
            data += piece
    except OSError as exc:
        raise UsageError(f"cannot read the token file {path}: {exc.strerror}") from None
    finally:
        os.close(fd)
    if len(data) > MAX_TOKEN_BYTES:
        raise UsageError(f"the token file {path} holds more than {MAX_TOKEN_BYTES:,} bytes; a "
                         f"token file holds one token of at most {MAX_TOKEN_BYTES:,} bytes")
    try:
        token = data.decode("utf-8").strip()
    except UnicodeDecodeError:
        token = ""
    if len(token) < MIN_TOKEN_CHARS or not token.isascii() or any(c.isspace() for c in token) \
            or not token.isprintable():
        raise UsageError(
            f"the token in {path} must be at least {MIN_TOKEN_CHARS} printable ASCII characters "
            "without spaces; make one with: python3 -c 'import secrets; "
            "print(secrets.token_urlsafe(32))' > TOKEN_FILE")
    return token



def finished_values(warehouse: Path, metric: str) -> list[tuple[dict[str, Any], float]]:
    """(settings, value) of every ``ok`` measurement of ``metric`` with a value in the
    warehouse at ``warehouse``, oldest first (``started_at``, then ``run_id``): how the
    workbench agent seeds a search from the λ* (``peak_rate``) of earlier ones."""
    import json

    from perfwarehouse.api import connect

    with connect(warehouse) as con:
        rows = con.duckdb.execute(
            "SELECT settings, value FROM measurements WHERE metric = ? AND status = 'ok' "
            "AND value IS NOT NULL ORDER BY started_at, run_id", [metric]).fetchall()
    return [(json.loads(settings) if isinstance(settings, str) else dict(settings or {}),
             float(value)) for settings, value in rows]
