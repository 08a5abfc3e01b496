"""Issue 31 item 4: memory bombs in importers are refused before they cost memory.

Before: a 2.6 KB JMH file whose rawDataHistogram said a value occurs 3e7 times took 2.3 GB
and 100 s (1e12: a MemoryError traceback); a gzip file was decompressed whole, without a
cap (0.5 MB -> 1.1 GB in memory)."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest import bounded, limits
from perfwarehouse.ingest.formats import load
from perfwarehouse.ingest.formats.records import ImportOptions
from perfwarehouse.ingest.service import read_input
from tests.unit.ingest.importer_support import FIXTURES

OPTIONS = ImportOptions(campaign="c", node="n", hardware_type="h")
SAMPLE = FIXTURES / "jmh" / "good" / "mapbench-sample.json"
FIRST_COUNT = re.compile(r"(\[\s*1\.25,\s*)3(\s*\])")


@pytest.mark.parametrize("count", ["30000000", "1000000000000", "1e300"])
def test_a_jmh_histogram_count_past_the_limit_is_refused_without_expanding(count: str) -> None:
    text = SAMPLE.read_text()
    assert FIRST_COUNT.search(text)
    data = FIRST_COUNT.sub(rf"\g<1>{count}\g<2>", text, count=1).encode()
    assert len(data) < 10_000
    with pytest.raises(TrialParseError, match=r"\[too-many-values\].*more than 10,000,000"):
        load("jmh").parse(data, "bomb.json", OPTIONS)


def test_a_jmh_histogram_within_the_limit_still_expands() -> None:
    records = load("jmh").parse(SAMPLE.read_bytes(), "ok.json", OPTIONS)
    assert records and all(len(r["values"]) <= limits.VALUES_PER_TRIAL_MAX for r in records)


def test_gunzip_stops_at_its_limit() -> None:
    raw = gzip.compress(b"x" * 5000)
    assert bounded.gunzip(raw, "f.gz", limit=5000) == b"x" * 5000
    with pytest.raises(TrialParseError, match=r"f.gz: \[too-large\] gzip data expands to more "
                                              r"than 4,999 bytes"):
        bounded.gunzip(raw, "f.gz", limit=4999)
    two_members = raw + gzip.compress(b"y")
    assert bounded.gunzip(two_members, "f.gz", limit=5001).endswith(b"xy")
    with pytest.raises(TrialParseError, match=r"\[truncated\]"):
        bounded.gunzip(raw[:-10], "f.gz")


def test_a_gzip_bomb_is_refused_by_the_ingest_edge(tmp_path: Path) -> None:
    member = gzip.compress(b"\0" * (64 << 20), compresslevel=9)  # 64 MiB -> about 64 KB
    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(member * (limits.DECOMPRESSED_MAX // (64 << 20) + 1))  # > 1 GiB inside
    assert bomb.stat().st_size < 2_000_000
    with pytest.raises(TrialParseError, match=r"\[too-large\]"):
        read_input(bomb)
