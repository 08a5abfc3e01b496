"""What the collector agent (:mod:`perfwarehouse.agent`) and the puller
(:mod:`perfwarehouse.ingest.pull`) agree on, in one place both import, so that neither
package imports the other: the bearer token file and the segment file names.
"""

from __future__ import annotations

import re
from pathlib import Path

from perfwarehouse.errors import UsageError

MIN_TOKEN_CHARS = 16
"""The shortest bearer token accepted (printable ASCII, no white space)."""

SEGMENT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+=,:@~-]{0,200}\.jsonl")
"""A spool segment's file name: no path separator, no leading dot, ends in ``.jsonl``."""


def is_segment_name(name: str) -> bool:
    """True for a plain segment file name: no path separator, no leading dot, ends in .jsonl."""
    return SEGMENT_NAME.fullmatch(name) is not None


def read_token(path: Path) -> str:
    """The bearer token in ``path`` (surrounding whitespace ignored)."""
    try:
        token = Path(path).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the token file {path}: {exc}") from None
    if len(token) < MIN_TOKEN_CHARS or not token.isascii() or any(c.isspace() for c in token):
        raise UsageError(
            f"the token in {path} must be at least {MIN_TOKEN_CHARS} printable ASCII characters "
            "without spaces; make one with: python3 -c 'import secrets; "
            "print(secrets.token_urlsafe(32))' > TOKEN_FILE")
    return token
