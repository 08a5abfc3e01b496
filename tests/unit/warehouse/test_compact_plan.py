"""Compaction planning (pure): which files, how cut, when deleted, when automatic."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from perfwarehouse.warehouse.compact_plan import (
    Policy,
    auto_compact_wanted,
    config_ranges,
    expired,
    files_to_rewrite,
    is_compacted,
)


@dataclass(frozen=True)
class F:
    path: str
    row_count: int


P = "measurements/campaign=a/hardware_type=h/"


def test_what_is_rewritten() -> None:
    policy = Policy(keep_rows=100)
    batch = [F(P + f"b{i:06d}-0.parquet", 10) for i in range(3)]
    small_c, big_c = F(P + "c000002-x-0.parquet", 50), F(P + "c000001-y-0.parquet", 100)
    assert is_compacted(small_c.path) and not is_compacted(batch[0].path)
    assert files_to_rewrite(batch, policy) == batch
    assert files_to_rewrite(batch[:1], policy) == batch[:1]  # one batch file: not clustered
    assert files_to_rewrite([small_c], policy) == []  # idempotent
    assert files_to_rewrite([big_c], policy) == []
    assert files_to_rewrite([big_c, *batch], policy) == batch  # a large compacted file stays
    assert files_to_rewrite([big_c, small_c, batch[0]], policy) == sorted(
        [small_c, batch[0]], key=lambda f: f.path)
    assert files_to_rewrite([], policy) == []


@pytest.mark.parametrize("seed", range(20))
def test_config_ranges_cover_every_configuration_once_in_bounded_parts(seed: int) -> None:
    rng = np.random.default_rng(seed)
    ids = np.sort(rng.choice(10**9, size=int(rng.integers(1, 300)), replace=False))
    rows = rng.integers(1, 1000, size=ids.size)
    config_rows = list(zip(ids.tolist(), rows.tolist()))
    max_rows = int(rng.integers(500, 50_000))
    ranges = config_ranges(config_rows, max_rows)
    total = int(rows.sum())
    assert 1 <= len(ranges) <= -(-total // max_rows)
    owner = []
    for cid, _ in config_rows:
        owner.append([k for k, (lo, hi) in enumerate(ranges) if lo <= cid <= hi])
    assert all(len(o) == 1 for o in owner)  # every configuration in exactly one range
    assert [o[0] for o in owner] == sorted(o[0] for o in owner)  # contiguous, in order
    sizes = np.bincount([o[0] for o in owner], weights=rows, minlength=len(ranges))
    assert sizes.max() <= max_rows + rows.max()  # a part overshoots by at most one config


def test_config_ranges_empty_and_single() -> None:
    assert config_ranges([], 10) == []
    assert config_ranges([(5, 1000)], 10) == [(5, 5)]


def test_expired_after_the_grace_period_only() -> None:
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    retired = [("a", now - timedelta(seconds=10)), ("b", now - timedelta(seconds=100))]
    assert expired(retired, now, 50) == ["b"]
    assert expired(retired, now, 0) == ["a", "b"]
    assert expired(retired, now, 1000) == []


def test_auto_compaction_only_when_many_small_files() -> None:
    policy = Policy(auto_min_files=4, auto_max_rows=100)
    files = [F(P + f"b{i:06d}-0.parquet", 10) for i in range(4)]
    assert auto_compact_wanted(files, policy)
    assert not auto_compact_wanted(files[:3], policy)  # too few files
    assert not auto_compact_wanted([*files, F(P + "b9-0.parquet", 100)], policy)  # too many rows
