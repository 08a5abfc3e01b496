"""An agent's Content-Length of non-ASCII digits (issue 44, H7's str.isdigit() trap in
the puller): refused as an answer of the wrong size, not a ValueError."""

from __future__ import annotations

import pytest

from perfwarehouse.errors import AgentError
from perfwarehouse.ingest.agent_client import _capped


class _Response:
    def __init__(self, length: str, body: bytes) -> None:
        self.headers = {"content-length": length}
        self.body = body

    def iter_raw(self):  # type: ignore[no-untyped-def]
        yield self.body


@pytest.mark.parametrize("length", ["\u00b2", "1\u00b9", "\u0663", "-1", "1e3", " "])
def test_a_content_length_that_is_not_ascii_digits_is_refused(length: str) -> None:
    with pytest.raises(AgentError, match=f"answered /s with {length} bytes, more than the 10"):
        _capped(_Response(length, b"x"), 10, "agent w", "/s")


def test_an_honest_content_length_is_read() -> None:
    assert _capped(_Response("3", b"abc"), 10, "agent w", "/s") == b"abc"
