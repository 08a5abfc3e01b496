"""Bounded reading of compressed input: a gzip file is decompressed to at most
:data:`perfwarehouse.ingest.limits.DECOMPRESSED_MAX` bytes (rule ``too-large``), in
pieces, so a small file that expands without end (0.5 MB of gzip to 1.1 GB in memory
before) costs at most the limit plus one read, never the machine's memory."""

from __future__ import annotations

import gzip
import io
import zlib

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.limits import DECOMPRESSED_MAX

RULE = "too-large"
_PIECE = 1 << 20


def gunzip(raw: bytes, source: str, limit: int = DECOMPRESSED_MAX) -> bytes:
    """The decompressed bytes of the gzip data ``raw`` (all members), or one
    :class:`TrialParseError`: ``too-large`` past ``limit`` bytes, ``truncated`` when the
    data is broken or cut short."""
    out = bytearray()
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(raw)) as f:
            while piece := f.read(min(_PIECE, limit + 1 - len(out))):
                out += piece
                if len(out) > limit:
                    raise TrialParseError(
                        source, 0, RULE, f"gzip data expands to more than {limit:,} bytes "
                        f"({len(raw):,} compressed); decompress it yourself if it is real")
    except (OSError, EOFError, zlib.error) as exc:
        raise TrialParseError(source, 0, "truncated",
                              f"gzip data is broken or cut short ({exc})") from None
    return bytes(out)
