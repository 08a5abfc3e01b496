"""Job `surface`: the compute step on hand-made peak_rate rows (numpy least squares as twin)."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pytest

from perfwarehouse.errors import UsageError
from perfwarehouse.jobs.surface import SurfaceParams, compute, parse_levels


def _rows(points: list[tuple[float, float]], value, status=lambda i: "ok",
          extra: dict | None = None) -> pa.Table:
    rows = []
    for i, (a, b) in enumerate(points):
        settings = {"a": a, "b": str(b), "loop": "open", "search_policy": "binsearch",
                    "search_seeding": "nearest" if i else "default", **(extra or {})}
        rows.append({"campaign": "c", "hardware_type": "h", "benchmark": "hey",
                     "settings": json.dumps(settings), "run_id": f"r{i}", "status": status(i),
                     "value": float(value(a, b))})
    return pa.Table.from_pylist(rows)


POINTS = [(1, 1), (1, 4), (1, 8), (3, 1), (3, 8), (4, 4), (6, 1), (6, 8)]


def true_peak(a: float, b: float) -> float:
    return 25 + 6 * a + 3 * b + 0.25 * a * b - 0.1 * a * a


def test_fit_predicts_every_combination() -> None:
    params = SurfaceParams(campaign="c", factors="a,b", levels="a=1,2,3,4,5,6;b=1,2,4,8")
    out = compute(_rows(POINTS, true_peak), params)["response_surface"].to_pylist()
    coef = [r for r in out if r["kind"] == "coefficient"]
    pred = [r for r in out if r["kind"] == "prediction"]
    assert [r["term"] for r in coef] == ["1", "a", "b", "a*b", "a^2", "b^2"]
    x = np.array([[1, a, b, a * b, a * a, b * b] for a, b in POINTS], dtype=float)
    beta = np.linalg.lstsq(x, [true_peak(a, b) for a, b in POINTS], rcond=None)[0]
    assert np.allclose([r["estimate"] for r in coef], beta)
    assert len(pred) == 24 and all(r["n_samples"] == 8 and r["n_budget"] == 0 for r in out)
    for r in pred:
        p = json.loads(r["point"])
        assert r["estimate"] == pytest.approx(true_peak(p["a"], p["b"]))
        measured = (p["a"], p["b"]) in POINTS
        assert (r["measured"] is not None) == measured
    assert coef[0]["loo_mape"] == pytest.approx(0, abs=1e-9)
    assert json.loads(coef[0]["fixed_settings"]) == {"loop": "open"}


def test_budget_estimates_are_counted_or_left_out() -> None:
    table = _rows(POINTS, true_peak, status=lambda i: "budget" if i == 2 else "ok")
    out = compute(table, SurfaceParams(factors="a,b"))["response_surface"].to_pylist()
    assert out[0]["n_samples"] == 8 and out[0]["n_budget"] == 1
    out = compute(table, SurfaceParams(factors="a,b", budget_estimates=False))
    rows = out["response_surface"].to_pylist()
    assert rows[0]["n_samples"] == 7 and rows[0]["n_budget"] == 0


def test_refusals_and_nothing_to_do() -> None:
    table = _rows(POINTS, true_peak)
    assert compute(table, SurfaceParams())["response_surface"].num_rows == 0
    with pytest.raises(UsageError, match="at least 6"):
        compute(_rows(POINTS[:5], true_peak), SurfaceParams(factors="a,b"))
    with pytest.raises(UsageError, match="not numbers"):
        compute(_rows(POINTS, true_peak, extra={"b": "many"}), SurfaceParams(factors="a,b"))
    with pytest.raises(UsageError, match="--levels"):
        parse_levels("c=1,2", ["a", "b"])
    # records without the factors (another kind of search) are not part of the surface
    other = _rows(POINTS, true_peak)
    assert compute(other, SurfaceParams(factors="a,z"))["response_surface"].num_rows == 0
