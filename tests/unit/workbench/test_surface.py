"""D-optimal designs and the quadratic response surface (brute force and numpy as twins)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats as sps

from perfwarehouse.errors import UsageError
from perfwarehouse.workbench import surface


def _naive_model_row(point: tuple[float, ...]) -> list[float]:
    k = len(point)
    row = [1.0, *point]
    row += [point[i] * point[j] for i in range(k) for j in range(i + 1, k)]
    row += [v * v for v in point]
    return row


def test_model_matrix_and_terms() -> None:
    pts = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert surface.model_matrix(pts).tolist() == [_naive_model_row(tuple(p)) for p in pts]
    assert surface.term_names(["a", "b"]) == ["1", "a", "b", "a*b", "a^2", "b^2"]
    assert surface.n_terms(3) == 10


def _logdet_raw(cand: np.ndarray, idx: tuple[int, ...]) -> float:
    x = np.array([_naive_model_row(tuple(cand[i])) for i in idx])
    sign, val = np.linalg.slogdet(x.T @ x)
    return val if sign > 0 else -math.inf


@pytest.mark.parametrize("levels,k", [
    ([[1, 2, 3], [10, 20, 40]], 6),
    ([[1, 2, 3], [10, 20, 40]], 7),
    ([[1, 2, 4, 8], [0, 1, 2]], 7),
])
def test_d_optimal_equals_brute_force(levels: list[list[float]], k: int) -> None:
    cand = surface.grid(levels)
    design = surface.d_optimal(cand, k, seed=1)
    brute = max(_logdet_raw(cand, c) for c in itertools.combinations(range(len(cand)), k))
    assert _logdet_raw(cand, design.indices) == pytest.approx(brute, abs=1e-8)
    assert design == surface.d_optimal(cand, k, seed=1)  # deterministic for a seed


def test_d_optimal_beats_random_picks() -> None:
    cand = surface.grid([[1, 2, 3, 4, 5, 6], [1, 2, 4, 8]])  # 24 combinations
    design = surface.d_optimal(cand, 8, seed=0)
    assert len(set(design.indices)) == 8
    rng = np.random.default_rng(0)
    ours = _logdet_raw(cand, design.indices)
    for _ in range(300):
        pick = tuple(rng.choice(len(cand), size=8, replace=False))
        assert ours >= _logdet_raw(cand, pick) - 1e-9


def test_d_optimal_refuses() -> None:
    cand = surface.grid([[1, 2, 3], [1, 2, 3]])
    with pytest.raises(UsageError, match="at least 6"):
        surface.d_optimal(cand, 5)
    with pytest.raises(UsageError, match="more than the 9"):
        surface.d_optimal(cand, 10)
    with pytest.raises(UsageError, match="three levels"):
        surface.d_optimal(surface.grid([[1, 2], [1, 2, 3]]), 6)
    assert surface.d_optimal(cand, 9).indices == tuple(range(9))


def test_fit_recovers_a_quadratic_and_matches_numpy() -> None:
    rng = np.random.default_rng(4)
    pts = surface.grid([[1, 2, 3, 4, 5, 6], [1, 2, 4, 8]])
    true = 100 + 30 * pts[:, 0] + 12 * pts[:, 1] + 2 * pts[:, 0] * pts[:, 1] - 3 * pts[:, 0] ** 2
    y = true + rng.normal(0, 5, size=len(pts))
    fit = surface.fit_quadratic(["a", "b"], pts, y, confidence=0.9)
    x = np.array([_naive_model_row(tuple(p)) for p in pts])
    beta = np.linalg.solve(x.T @ x, x.T @ y)
    assert np.allclose(fit.coefficients, beta)
    resid = y - x @ beta
    dof = len(y) - 6
    se = np.sqrt(np.diag(resid @ resid / dof * np.linalg.inv(x.T @ x)))
    t = sps.t.ppf(0.95, dof)
    assert np.allclose(fit.ci_low, beta - t * se) and np.allclose(fit.ci_high, beta + t * se)
    # leave-one-out by brute force
    errs = []
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        b = np.linalg.lstsq(x[keep], y[keep], rcond=None)[0]
        errs.append(abs(y[i] - x[i] @ b) / abs(y[i]))
    assert fit.loo_mape == pytest.approx(np.mean(errs))
    assert np.allclose(fit.predict(pts), x @ beta)
    assert fit.dof == dof and 0.9 < fit.r_squared <= 1


def test_saturated_fit_has_no_intervals() -> None:
    pts = surface.grid([[1, 2, 3], [1, 2, 3]])[[0, 1, 2, 3, 4, 8]]
    fit = surface.fit_quadratic(["a", "b"], pts, np.arange(1.0, 7.0))
    assert fit.dof == 0 and all(math.isnan(v) for v in fit.ci_low)
    assert math.isnan(fit.loo_mape)
    with pytest.raises(UsageError, match="at least 6"):
        surface.fit_quadratic(["a", "b"], pts[:5], np.arange(1.0, 6.0))


def test_design_then_fit_predicts_the_rest() -> None:
    """The acceptance shape: K = 8 of 24, prediction of the other 16 (noise-free here)."""
    cand = surface.grid([[1, 2, 3, 4, 5, 6], [1, 2, 4, 8]])

    def peak(p: np.ndarray) -> np.ndarray:
        return 200 + 40 * p[:, 0] + 25 * np.sqrt(p[:, 1])  # not quadratic in b

    design = surface.d_optimal(cand, 8, seed=0)
    picked = np.array(design.indices)
    fit = surface.fit_quadratic(["a", "b"], cand[picked], peak(cand[picked]))
    rest = np.setdiff1d(np.arange(24), picked)
    assert surface.mape(peak(cand[rest]), fit.predict(cand[rest])) <= 0.10
