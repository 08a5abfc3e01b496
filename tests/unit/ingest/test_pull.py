"""Pieces of the puller that need no network: sources files and cursor arithmetic."""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import pytest

from perfwarehouse.errors import SegmentChangedError, UsageError
from perfwarehouse.ingest.pull import Cursor, _advanced, _check, load_sources


def test_sources_resolve_token_files_next_to_the_sources_file(tmp_path: Path) -> None:
    path = tmp_path / "conf" / "sources.toml"
    path.parent.mkdir()
    path.write_text('# two agents\n[[agent]]\nname = "a"\nurl = "http://10.0.0.1:8765/"\n'
                    'token_file = "tokens/a"\n\n[[agent]]\nname = "b"\n'
                    'url = "https://b.example:9000"\ntoken_file = "/etc/pw/b.token"\n')
    a, b = load_sources(path)
    assert (a.name, a.url, a.token_file) == ("a", "http://10.0.0.1:8765", path.parent / "tokens/a")
    assert (b.name, b.url, b.token_file) == ("b", "https://b.example:9000", Path("/etc/pw/b.token"))


@pytest.mark.parametrize("text, message", [
    ("", "lists no agents"),
    ("# only comments\n", "lists no agents"),
    ('[[agent]]\nname = "a"\nurl = "http://x"\n', "needs token_file"),
    ('[[agent]]\nname = "a"\nurl = "ftp://x"\ntoken_file = "t"\n', "http://"),
    ('[[agent]]\nname = "a"\nurl = "http://x"\ntoken_file = "t"\ntoken = "inline"\n', "unknown key"),
    ('[[agent]]\nname = "a"\nurl = "http://x"\ntoken_file = "t"\n' * 2, "two agents"),
    ("[[agent]\n", "not a valid TOML"),
])
def test_bad_sources_files_are_refused(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "sources.toml"
    path.write_text(text)
    with pytest.raises(UsageError, match=message):
        load_sources(path)


def test_the_example_sources_file_lists_no_real_agents() -> None:
    example = Path(__file__).resolve().parents[3] / "ingest" / "sources.toml"
    assert "[[agent]]" in example.read_text()  # documented, commented out
    with pytest.raises(UsageError, match="lists no agents"):
        load_sources(example)


def _random_lines(rng: random.Random, n: int) -> list[bytes]:
    return [b"x" * rng.randrange(0, 30) + b"\n" for _ in range(n)]


def test_cursor_moves_past_whole_lines_and_remembers_the_last_one() -> None:
    rng = random.Random(4)
    cursor, segment = Cursor(), b""
    for _ in range(200):
        chunk = b"".join(_random_lines(rng, rng.randrange(1, 6)))
        cursor = _advanced(cursor, chunk)
        segment += chunk
        last_start = segment.rfind(b"\n", 0, len(segment) - 1) + 1
        assert cursor.byte_offset == len(segment)
        assert cursor.line_count == segment.count(b"\n")
        assert cursor.last_line_offset == last_start
        assert cursor.last_line_sha256 == hashlib.sha256(segment[last_start:]).hexdigest()
        # what a pull fetches next (from the last line on) checks out against the cursor
        _check(segment[cursor.last_line_offset:] + b"more", cursor, len(segment) + 4)


def test_check_detects_truncation_and_rewrites() -> None:
    segment = b'{"a":1}\n{"a":2}\n'
    cursor = _advanced(Cursor(), segment)
    start = cursor.last_line_offset
    _check(segment[start:], cursor, len(segment))
    with pytest.raises(SegmentChangedError, match="truncated"):
        _check(segment[start:-1], cursor, len(segment))
    with pytest.raises(SegmentChangedError, match="changed"):
        _check(b'{"a":3}\n', cursor, len(segment))
    _check(b"anything", Cursor(), 8)  # nothing ingested yet: nothing to compare
