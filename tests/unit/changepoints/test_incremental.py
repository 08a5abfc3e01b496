"""The search of a grown series from its last change points against the full search of
the same series (perfwarehouse.changepoints.incremental): random stepped series, many
seeds; and the cases where it is the full search."""

from __future__ import annotations

import numpy as np
import pytest

from perfwarehouse.changepoints.analysis import detect
from perfwarehouse.changepoints.incremental import (
    Stored,
    anchor,
    anchor_margin,
    detect_appended,
    detect_each,
)

SEEDS = 200


def _grown(seed: int, clear: bool) -> tuple[np.ndarray, int]:
    """A series of 40-400 old points with 0-3 steps anywhere (also among the new points)
    and 1-11 points appended; ``clear``: steps of at least 5 noise sd, else 1-20 % at
    0.5-3 % noise (many within the noise); a third rounded to one decimal (ties)."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(40, 400))
    n = m + int(rng.integers(1, 12))
    noise = rng.uniform(0.005, 0.03)
    level = np.ones(n)
    for _ in range(int(rng.integers(0, 4))):
        size = rng.uniform(5 * noise, 0.3) if clear else rng.uniform(0.01, 0.2)
        level[int(rng.integers(5, n - 1)):] *= 1 + rng.choice([-1, 1]) * size
    x = 50 * level * np.exp(rng.normal(0, noise, n))
    return (np.round(x, 1) if rng.random() < 0.3 else x), m


def _stored(x: np.ndarray, m: int) -> Stored:
    old = detect(x[:m])
    return Stored(m, tuple(c.position for c in old.change_points),
                  tuple(c.p_value for c in old.change_points))


def _agree(a: list[int], b: list[int]) -> bool:
    return len(a) == len(b) and all(abs(u - v) <= 1 for u, v in zip(a, b))


@pytest.mark.parametrize("clear", [True, False])
def test_equals_the_full_search_within_one_position_on_random_series(clear: bool) -> None:
    same = same_verdict = searched = 0
    for seed in range(SEEDS):
        x, m = _grown(seed, clear)
        stored = _stored(x, m)
        full = [c.position for c in detect(x).change_points]
        got = [c.position for c in detect_appended(x, stored).change_points]
        same += _agree(full, got)
        same_verdict += bool(full) == bool(got)
        searched += anchor(stored, 4) is not None
        # where the full search of the grown series keeps its own answer about the old
        # points (up to the anchor margin before the old end), the two agree: every
        # difference is a full search that changed its mind about points it had seen
        edge = m - anchor_margin(4)
        if _agree([p for p in full if p < edge], [p for p in stored.positions if p < edge]):
            assert _agree(full, got), (seed, full, got, stored.positions)
    # measured: 1-2 of 200 differ (a change 3-7 points from another, or a 5-point blip)
    assert same >= 0.975 * SEEDS
    assert same_verdict >= 0.99 * SEEDS
    assert searched >= SEEDS // 3  # the incremental path was taken, not only fallbacks


def test_keeps_the_change_points_before_the_anchor_and_finds_a_new_step() -> None:
    rng = np.random.default_rng(7)
    x = np.concatenate([np.full(120, 10.0), np.full(150, 12.0), np.full(30, 11.0),
                        np.full(8, 13.0)]) * np.exp(rng.normal(0, 0.01, 308))
    stored = _stored(x, 300)
    assert [round(p, -1) for p in stored.positions] == [120, 270]
    got = detect_appended(x, stored)
    assert [c.position for c in got.change_points][:2] == list(stored.positions)
    assert [c.position for c in got.change_points][2:] == [300]
    assert [c.position for c in got.change_points] == [
        c.position for c in detect(x).change_points]
    # the new step's description uses the segment since the anchor: +18 % (13 / 11)
    assert 15 < got.change_points[-1].change_pct < 21


def test_falls_back_to_the_full_search_where_it_cannot_keep_anything() -> None:
    rng = np.random.default_rng(3)
    x = np.concatenate([np.full(60, 5.0), np.full(60, 6.0)]) * np.exp(rng.normal(0, 0.01, 120))
    full = detect(x)
    # no stored change point: the whole series is the segment
    assert detect_appended(x, Stored(110, (), ())) == full
    # min_change: the full search drops small changes one by one
    assert detect_appended(x, Stored(110, (60,), (0.001,)), min_change=1.0) == detect(
        x, min_change=1.0)
    # a change point too close to the old end anchors nothing
    near = Stored(110, (110 - anchor_margin(4) + 1,), (0.001,))
    assert anchor(near, 4) is None
    assert detect_appended(x, near) == full


def test_detect_each_runs_each_series_its_way_in_order() -> None:
    x, m = _grown(11, True)
    y = np.arange(40.0)
    got = detect_each([x, y], [_stored(x, m), None], threads=2)
    assert got[0] == detect_appended(x, _stored(x, m))
    assert got[1] == detect(y)
