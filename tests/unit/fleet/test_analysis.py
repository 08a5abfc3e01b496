"""The fleet report's analysis of two periods against its slow twin, its decisions on
planted effects, and its period rules."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfwarehouse import fleet
from tests.naive import fleet as naive

SINCE = datetime(2024, 4, 1, tzinfo=timezone.utc)
PERIOD = fleet.Period(SINCE, SINCE + timedelta(days=30))


def trials(seed: int) -> pl.DataFrame:
    """Two campaigns, two hardware types, configurations of every size (none, tiny, only
    one period, constant, tied values), one with a strong trend, one order-dependent."""
    rng = np.random.default_rng(seed)
    rows = []
    start_prev = PERIOD.previous_since.timestamp()
    for campaign in ("a", "b"):
        for hw in ("x", "y"):
            for config in range(7):
                for period in (0, 1):
                    n = int(rng.choice([0, 2, 5, 6, 7, 9, 10, 40, 120])) if config < 4 else 80
                    if config == 4 and period == 0:
                        n = 0  # only in this period
                    t = np.sort(rng.uniform(0, 30 * 86400, n)) + start_prev + period * 30 * 86400
                    random = rng.random(n) < 0.5
                    value = 100 * rng.lognormal(0, 0.02, n)
                    if config == 5:  # order-dependent: random order 10 % slower
                        value = value * np.where(random, 1.1, 1.0)
                    if config == 6:  # drifting: +5 % per 30 days in this period
                        value = value * (1 + 0.05 * (t - SINCE.timestamp()) / (30 * 86400))
                    if config == 3:
                        value = np.round(value / 2) * 2  # heavy ties
                    if config == 2 and hw == "y":
                        value = np.full(n, 7.0)  # constant
                    for i in range(n):
                        rows.append({"campaign": campaign, "hardware_type": hw,
                                     "config_id": config, "period": period,
                                     "is_random": int(random[i]), "started_s": float(t[i]),
                                     "value": float(value[i])})
    return pl.DataFrame(rows, schema={"campaign": pl.String, "hardware_type": pl.String,
                                      "config_id": pl.UInt64, "period": pl.Int32,
                                      "is_random": pl.Int32, "started_s": pl.Float64,
                                      "value": pl.Float64}).sort(
        ["campaign", "hardware_type", "config_id", "period", "started_s"])


def close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_analyse_matches_the_slow_twin(seed: int) -> None:
    data = trials(seed)
    got = fleet.analyse(data, PERIOD)
    want = naive.analyse(data.to_dicts(), SINCE.timestamp(), 30.0)
    assert got.height == len(want)
    for row in got.iter_rows(named=True):
        w = want[(row["campaign"], row["hardware_type"], row["config_id"])]
        assert row["n_now"] == w["n_now"] and row["n_prev"] == w["n_prev"]
        for mine, theirs in (("rsd_now_pct", "rsd_now"), ("rsd_prev_pct", "rsd_prev"),
                             ("p_now", "p_now"), ("p_prev", "p_prev"),
                             ("median_now", "median_now"), ("slope_pct", "slope"),
                             ("low_pct", "low"), ("high_pct", "high")):
            assert close(row[mine], w[theirs]), (mine, row[mine], w[theirs])
        assert row["dependent_now"] == w["dependent_now"]
        assert row["dependent_prev"] == w["dependent_prev"]
        assert row["drifting"] == w["drifting"] and row["change"] == w["change"]


def test_planted_effects_are_found_and_nothing_else() -> None:
    got = fleet.analyse(trials(4), PERIOD)
    drifting = set(got.filter(pl.col("drifting"))["config_id"].to_list())
    dependent = set(got.filter(pl.col("dependent_now"))["config_id"].to_list())
    assert drifting == {6}
    assert dependent == {5}
    row = got.filter((pl.col("config_id") == 6) & (pl.col("campaign") == "a")
                     & (pl.col("hardware_type") == "x")).row(0, named=True)
    assert 3.5 < row["slope_pct"] < 6.5 and row["low_pct"] <= 5 <= row["high_pct"]
    assert set(got.filter(pl.col("config_id") == 4)["n_prev"].to_list()) == {0}


def test_empty_input_gives_the_columns() -> None:
    empty = trials(1).head(0)
    got = fleet.analyse(empty, PERIOD)
    assert got.height == 0
    assert {"drifting", "change", "rsd_now_pct", "slope_pct", "dependent_now"} <= set(got.columns)


@given(st.lists(st.tuples(st.floats(0, 99.999), st.floats(-1e6, 1e6)), min_size=1, max_size=60),
       st.floats(0.01, 50))
@settings(max_examples=150, deadline=None)
def test_bin_medians_match_the_twin(points: list[tuple[float, float]], width: float) -> None:
    points.sort()
    x = np.array([p[0] for p in points])
    y = np.array([p[1] for p in points])
    got_x, got_y = fleet.bin_medians(x, y, width)
    want_x, want_y = naive.bin_medians(list(x), list(y), width)
    assert np.allclose(got_x, want_x, rtol=1e-12, atol=1e-9)
    assert np.allclose(got_y, want_y, rtol=1e-12, atol=1e-9)


def test_choose_period() -> None:
    last = datetime(2024, 5, 10, 13, 5, tzinfo=timezone.utc)
    p = fleet.choose_period(None, None, last)
    assert p is not None and p.until == datetime(2024, 5, 11, tzinfo=timezone.utc)
    assert p.since == p.until - timedelta(days=fleet.DEFAULT_PERIOD_DAYS)
    assert p.previous_since == p.since - timedelta(days=fleet.DEFAULT_PERIOD_DAYS)
    since = datetime(2024, 1, 1, tzinfo=timezone.utc)
    p = fleet.choose_period(since, None, last)
    assert p is not None
    assert (p.since, p.until) == (since, datetime(2024, 5, 11, tzinfo=timezone.utc))
    until = datetime(2024, 3, 1, tzinfo=timezone.utc)
    p = fleet.choose_period(None, until, None)
    assert p is not None and p.until == until and p.days == fleet.DEFAULT_PERIOD_DAYS
    assert fleet.choose_period(None, None, None) is None
