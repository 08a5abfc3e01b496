"""Response surfaces of the peak rate (Shivam et al., USENIX ATC 2008, Algorithm 1, §5.5).

Instead of finding λ* for every combination of the factors F_1..F_n (the outer
loop of Algorithm 1), response surface methodology (Myers and Montgomery,
"Response Surface Methodology", Wiley 1995) picks a few samples with a
D-optimal design for the full quadratic model

    λ* = β0 + Σ_i βi·Fi + Σ_{i<j} βij·Fi·Fj + Σ_i βii·Fi²

(the paper's double sum over j ≠ i counts each interaction twice; with i < j each
appears once, which is the same model), fits it by least squares and predicts
λ* at every other combination. The paper reports a MAPE of 3-15 % from 6-10 of
32 samples (Table 4).

* :func:`d_optimal` picks K of the candidate combinations maximising det(X'X)
  with Fedorov's exchange algorithm (best single swap until none improves),
  from several random starts drawn from a seeded generator: deterministic for
  a seed. Factors are coded to [-1, 1] first (det(X'X) of a quadratic model only
  changes by a constant factor under an affine recoding of a factor, so the
  choice is the same, and the numbers are better conditioned).
* :func:`fit_quadratic` is ordinary least squares with Student's t intervals of
  the coefficients (n - p degrees of freedom), the leave-one-out mean absolute
  percentage error, and predictions at any points.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from perfwarehouse.errors import UsageError


def term_names(factors: Sequence[str]) -> list[str]:
    """Names of the quadratic model's columns: 1, Fi, Fi*Fj (i < j), Fi^2."""
    names = ["1", *factors]
    names += [f"{a}*{b}" for a, b in itertools.combinations(factors, 2)]
    names += [f"{a}^2" for a in factors]
    return names


def n_terms(n_factors: int) -> int:
    return 1 + n_factors + n_factors * (n_factors - 1) // 2 + n_factors


def model_matrix(points: np.ndarray) -> np.ndarray:
    """The full-quadratic model matrix of ``points`` (rows = samples, columns = factors)."""
    x = np.asarray(points, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError("points must be a 2-D array (samples x factors)")
    n, k = x.shape
    cols = [np.ones(n)] + [x[:, i] for i in range(k)]
    cols += [x[:, i] * x[:, j] for i, j in itertools.combinations(range(k), 2)]
    cols += [x[:, i] ** 2 for i in range(k)]
    return np.column_stack(cols)


def coded(points: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Each factor mapped linearly from [low, high] to [-1, 1] (a constant factor stays 0)."""
    span = np.where(high > low, high - low, 1.0)
    return 2.0 * (np.asarray(points, dtype=np.float64) - low) / span - np.where(high > low, 1, 0)


def grid(levels: Sequence[Sequence[float]]) -> np.ndarray:
    """Every combination of the factors' levels (first factor varies slowest)."""
    return np.array(list(itertools.product(*levels)), dtype=np.float64).reshape(
        -1, len(levels))


def log_det_information(x_model: np.ndarray) -> float:
    """log det(X'X); -inf when singular."""
    sign, logdet = np.linalg.slogdet(x_model.T @ x_model)
    return float(logdet) if sign > 0 else -math.inf


@dataclass(frozen=True)
class Design:
    """The indices (into the candidates, ascending) of the picked samples and log det(X'X)."""

    indices: tuple[int, ...]
    log_det: float


def d_optimal(candidates: np.ndarray, k: int, seed: int = 0, starts: int = 20,
              max_rounds: int = 100) -> Design:
    """K distinct rows of ``candidates`` maximising det(X'X) of the quadratic model.

    Raises :class:`UsageError` when K is smaller than the number of model terms
    or larger than the number of distinct candidates, or when no K rows give a
    non-singular X'X (fewer than three levels of a factor cannot fit its square).
    """
    cand = np.asarray(candidates, dtype=np.float64)
    n, f = cand.shape
    p = n_terms(f)
    if k < p:
        raise UsageError(f"a quadratic model in {f} factor(s) has {p} terms: --samples must be "
                         f"at least {p}")
    if k > n:
        raise UsageError(f"--samples {k} is more than the {n} factor combinations")
    if any(len(np.unique(cand[:, j])) < 3 for j in range(f)):
        raise UsageError("every factor needs at least three levels to fit its square term")
    x = model_matrix(coded(cand, cand.min(axis=0), cand.max(axis=0)))
    if k == n:
        return Design(tuple(range(n)), log_det_information(x))
    rng = np.random.default_rng(seed)
    best: Design | None = None
    for _ in range(starts):
        chosen = _start(x, k, rng)
        score = log_det_information(x[chosen])
        for _ in range(max_rounds):
            swap, swap_score = None, score
            outside = [j for j in range(n) if j not in set(chosen)]
            for pos in range(k):
                for j in outside:
                    trial = chosen.copy()
                    trial[pos] = j
                    s = log_det_information(x[trial])
                    if s > swap_score + 1e-10:
                        swap, swap_score = (pos, j), s
            if swap is None:
                break
            chosen[swap[0]] = swap[1]
            score = swap_score
        design = Design(tuple(sorted(int(i) for i in chosen)), score)
        if best is None or design.log_det > best.log_det + 1e-10 or (
                abs(design.log_det - best.log_det) <= 1e-10 and design.indices < best.indices):
            best = design
    assert best is not None
    if not math.isfinite(best.log_det):
        raise UsageError("no choice of samples gives an estimable quadratic model; add levels "
                         "or samples")
    return best


def _start(x: np.ndarray, k: int, rng: np.random.Generator) -> list[int]:
    """A random non-singular start when one is found quickly, else any random start."""
    n = x.shape[0]
    chosen = [int(i) for i in rng.choice(n, size=k, replace=False)]
    for _ in range(20):
        if math.isfinite(log_det_information(x[chosen])):
            break
        chosen = [int(i) for i in rng.choice(n, size=k, replace=False)]
    return chosen


@dataclass(frozen=True)
class QuadraticFit:
    """Least-squares quadratic surface in the factors (in their own units)."""

    factors: tuple[str, ...]
    terms: tuple[str, ...]
    coefficients: tuple[float, ...]
    ci_low: tuple[float, ...]  # NaN when there are no residual degrees of freedom
    ci_high: tuple[float, ...]
    confidence: float
    n: int
    dof: int
    r_squared: float
    loo_mape: float  # leave-one-out mean absolute percentage error, as a fraction; NaN if undefined

    def predict(self, points: np.ndarray) -> np.ndarray:
        return model_matrix(np.asarray(points, dtype=np.float64).reshape(
            -1, len(self.factors))) @ np.asarray(self.coefficients)


def fit_quadratic(factors: Sequence[str], points: np.ndarray, response: np.ndarray,
                  confidence: float = 0.95) -> QuadraticFit:
    """Fit λ* = quadratic(points) by least squares; needs as many samples as terms."""
    from scipy import stats

    x_pts = np.asarray(points, dtype=np.float64).reshape(-1, len(factors))
    y = np.asarray(response, dtype=np.float64)
    n, p = x_pts.shape[0], n_terms(len(factors))
    if n < p:
        raise UsageError(f"a quadratic model in {len(factors)} factor(s) needs at least {p} "
                         f"samples with a peak rate; there are {n}")
    if not np.isfinite(y).all() or not np.isfinite(x_pts).all():
        raise UsageError("the samples' factors and peak rates must be finite numbers")
    x = model_matrix(x_pts)
    beta, _, rank, _ = np.linalg.lstsq(x, y, rcond=None)
    if rank < p:
        raise UsageError("the samples cannot estimate every term of the quadratic model (too few "
                         "distinct levels per factor); add samples (plan surface picks them)")
    resid = y - x @ beta
    dof = n - p
    ss_res = float(resid @ resid)
    ss_tot = float(((y - y.mean()) ** 2).sum())
    r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else math.nan
    if dof > 0:
        sigma2 = ss_res / dof
        cov = sigma2 * np.linalg.pinv(x.T @ x)
        half = float(stats.t.ppf((1 + confidence) / 2, dof)) * np.sqrt(np.clip(np.diag(cov), 0,
                                                                                 None))
        low, high = beta - half, beta + half
    else:
        low = high = np.full(p, math.nan)
    return QuadraticFit(tuple(factors), tuple(term_names(factors)), tuple(map(float, beta)),
                        tuple(map(float, low)), tuple(map(float, high)), confidence, n, dof, r2,
                        loo_mape(x, y))


def loo_mape(x: np.ndarray, y: np.ndarray) -> float:
    """Mean over samples of |y_i - ŷ_(-i)| / |y_i|, each ŷ_(-i) fitted without sample i.

    NaN when a left-out fit cannot estimate every term or some y_i is 0.
    """
    n, p = x.shape
    if n <= p or np.any(y == 0):
        return math.nan
    errors = []
    for i in range(n):
        keep = np.arange(n) != i
        beta, _, rank, _ = np.linalg.lstsq(x[keep], y[keep], rcond=None)
        if rank < p:
            return math.nan
        errors.append(abs(y[i] - x[i] @ beta) / abs(y[i]))
    return float(np.mean(errors))


def mape(actual: np.ndarray, predicted: np.ndarray) -> float:
    """Mean absolute percentage error as a fraction (actual values must be non-zero)."""
    a = np.asarray(actual, dtype=np.float64)
    return float(np.mean(np.abs(a - np.asarray(predicted, dtype=np.float64)) / np.abs(a)))


def plan_samples(factors: Sequence[tuple[str, Sequence[str]]], k: int | None, design: str,
                 seed: int = 0) -> list[dict[str, str]]:
    """The samples to run: every combination (``full``) or K of them (``d-optimal``).

    ``factors`` are (name, levels as text); levels keep their text in the output
    (they are substituted into commands). D-optimal needs numeric levels.
    """
    names = [name for name, _ in factors]
    combos = list(itertools.product(*(list(levels) for _, levels in factors)))
    if design == "full":
        if k is not None and k != len(combos):
            raise UsageError(f"--design full runs all {len(combos)} combinations; drop "
                             "--samples or use --design d-optimal")
        return [dict(zip(names, combo)) for combo in combos]
    if design != "d-optimal":
        raise UsageError("--design must be d-optimal or full")
    if k is None:
        raise UsageError("--design d-optimal needs --samples K")
    try:
        numeric = np.array([[float(v) for v in combo] for combo in combos], dtype=np.float64)
    except ValueError:
        raise UsageError("a D-optimal design for the quadratic model needs numeric factor "
                         "levels") from None
    if len({tuple(r) for r in numeric.tolist()}) != len(combos):
        raise UsageError("a factor lists the same level twice")
    chosen = d_optimal(numeric, k, seed=seed)
    return [dict(zip(names, combos[i])) for i in chosen.indices]
