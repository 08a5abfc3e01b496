"""Spool segments: names, whole-line appends, rotation, torn tails, the agent lock."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfwarehouse.agent.spool import (
    SegmentWriter,
    is_segment_name,
    own_segments,
    read_records,
    repair_torn_tail,
    spool_lock,
)
from perfwarehouse.errors import UsageError


@pytest.mark.parametrize("name", ["a.jsonl", "camp-node-0a1b2c3d-0001.jsonl", "A_b.c-d.jsonl",
                                  "trials-2024-01-01T00:00:00+00:00.jsonl", "n=1,a@b~2.jsonl"])
def test_plain_segment_names_are_accepted(name: str) -> None:
    assert is_segment_name(name)


@pytest.mark.parametrize("name", [
    "", ".jsonl", ".hidden.jsonl", "..", "../a.jsonl", "a/b.jsonl", "/etc/passwd", "a.json",
    "a.jsonl/", "a.jsonl\n", "a\\b.jsonl", "a b.jsonl", "a%2Fb.jsonl", "a\x00.jsonl",
    "-a.jsonl", "x" * 300 + ".jsonl", "é.jsonl", "a?b.jsonl", "a#b.jsonl", "a;b.jsonl",
    "a'b.jsonl", "a*b.jsonl",
])
def test_anything_else_is_refused(name: str) -> None:
    assert not is_segment_name(name)


def test_writer_appends_whole_lines_and_rotates(tmp_path: Path) -> None:
    writer = SegmentWriter(tmp_path, "camp 1", "node/a", "0a1b2c3d", 1, max_bytes=200)
    records = [{"i": i, "pad": "x" * 60} for i in range(7)]
    for record in records:
        writer.append(record)
    writer.close()
    segments = own_segments(tmp_path, "camp 1", "node/a")
    assert [s.seq for s in segments] == [1, 2, 3, 4]
    assert all(s.session == "0a1b2c3d" and is_segment_name(s.path.name) for s in segments)
    assert all(s.path.stat().st_size <= 200 for s in segments)
    read = [r for s in segments for r in read_records(s.path)]
    assert read == records
    for s in segments:
        assert s.path.read_bytes().endswith(b"\n")
    assert own_segments(tmp_path, "camp 2", "node/a") == []


def test_torn_tail_is_cut_back_to_the_last_whole_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    whole = b'{"a":1}\n{"a":2}\n'
    path.write_bytes(whole + b'{"a":')
    assert [r["a"] for r in read_records(path)] == [1, 2]  # the torn line is not a record
    assert repair_torn_tail(path) == 5
    assert path.read_bytes() == whole
    assert repair_torn_tail(path) == 0
    path.write_bytes(b'{"only": "a half' * 10000)  # no newline at all, longer than a block
    assert repair_torn_tail(path) == 16 * 10000
    assert path.read_bytes() == b""


def test_a_damaged_line_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"a":1}\nnot json\n')
    with pytest.raises(UsageError, match="s.jsonl:2"):
        list(read_records(path))


def test_one_agent_per_spool(tmp_path: Path) -> None:
    with spool_lock(tmp_path):
        info = json.loads((tmp_path / ".agent.lock").read_text())
        with pytest.raises(UsageError, match=f"pid {info['pid']}"):
            with spool_lock(tmp_path):
                pass
    with spool_lock(tmp_path):  # released
        pass
