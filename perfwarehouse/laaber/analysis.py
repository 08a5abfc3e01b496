"""Variability, A/A false positives and minimal detectable regressions (Laaber et al. (PeerJ Preprints 2018), §4).

Laaber et al., "Performance Testing in the Cloud. How Bad is it Really?" (PeerJ
Preprints 2018), section 4. Terms: a *trial* is one run's
execution of one configuration, with its measurements (iterations); a *node* is
an instance; a configuration is benchmark + settings + metric on one hardware type.

* **Variability** (4.1): outliers (values >= ``outlier_factor`` x the
  configuration's median, when that median is positive) are dropped and
  counted; RSD = 100 * sd / |mean| (sample sd, ddof 1) over all values (total),
  per node (mean and sd across nodes) and per run (mean and sd across the
  configuration's trials), plus the nested variance decomposition (share of
  the sum of squares between nodes, between runs of a node, within runs).
* **A/A testing** (4.2.1): control and test groups drawn from the same
  configuration; the two-sided rank-sum test on the pooled measurements at
  ``alpha``; the false-positive rate over ``draws`` draws.
* **Minimal detectable regression** (4.2.2, Algorithm 1 as corrected by SPEC
  5.3): for r in R, a draw is a false positive when |median(test) -
  median(control)| > r/2 % of |median(control)| and a true positive when the
  test group slowed by r % (x (1 + r/100), or / (1 + r/100) when higher is
  better) passes the same threshold; r is detectable when FP rate <= 5 % and
  TP rate >= 95 %. R is scanned from the largest r down, stopping at the first
  r that fails; the answer is the last r that passed, else none.

Sampling strategies (:func:`perfwarehouse.kernels.laaber.draw_groups`):
``instance`` (k nodes per group, one random trial each, control and test nodes
drawn independently) and ``trial`` (k nodes shared by both groups,
``trials_per_node`` distinct trials each for control and for test). A drawn
trial contributes all its measurements.

Every draw's random state is derived from (seed, configuration identity,
strategy, k, draw index), so the same seed gives the same numbers on any
machine and in any partition order; all r of one cell use the same draws.
Slowing the test group by a positive factor scales its median by the same
factor, so each draw needs just two medians for all r.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from perfwarehouse.kernels import laaber as kernels
from perfwarehouse.laaber.layout import Layout, layout_of_one
from perfwarehouse.laaber.parameters import (
    REGRESSIONS_PCT,
    HigherIsBetterMode,
    Strategy,
    check_higher_is_better_mode,
    check_strategy,
)
from perfwarehouse.laaber.results import (
    AAResult,
    DetectableRegressionResult,
    VariabilityBreakdown,
)

_STRATEGY_CODE = {"instance": kernels.STRATEGY_INSTANCE, "trial": kernels.STRATEGY_TRIAL}


# ----------------------------------------------------------------------- variability
def _rsd(mean: np.ndarray, sd: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(mean != 0, 100.0 * sd / np.abs(mean), np.nan)


def variability_columns(layout: Layout) -> dict[str, np.ndarray]:
    """Per-configuration variability statistics (arrays, one entry per configuration)."""
    v = layout.values
    t_off = layout.trial_offsets
    node_rows = t_off[layout.node_offsets]
    config_rows = node_rows[layout.config_offsets]
    config_trials = layout.node_offsets[layout.config_offsets]
    t_n, t_mean, t_sd = kernels.segment_moments(v, t_off)
    n_n, n_mean, n_sd = kernels.segment_moments(v, node_rows)
    c_n, c_mean, c_sd = kernels.segment_moments(v, config_rows)
    node_rsd_n, node_rsd_mean, node_rsd_sd = kernels.segment_moments(
        _rsd(n_mean, n_sd), layout.config_offsets)
    run_rsd_n, run_rsd_mean, run_rsd_sd = kernels.segment_moments(
        _rsd(t_mean, t_sd), config_trials)

    # nested decomposition of the sum of squares: nodes / runs within nodes / within runs
    node_of_trial = np.repeat(np.arange(len(n_n)), np.diff(layout.node_offsets))
    config_of_node = np.repeat(np.arange(len(c_n)), np.diff(layout.config_offsets))
    config_of_trial = config_of_node[node_of_trial]
    n_configs = layout.n_configs
    ss_within = np.bincount(config_of_trial, weights=np.nan_to_num(t_sd) ** 2 * (t_n - 1),
                            minlength=n_configs)
    ss_runs = np.bincount(config_of_trial, weights=t_n * (t_mean - n_mean[node_of_trial]) ** 2,
                          minlength=n_configs)
    ss_nodes = np.bincount(config_of_node, weights=n_n * (n_mean - c_mean[config_of_node]) ** 2,
                           minlength=n_configs)
    ss_total = ss_within + ss_runs + ss_nodes
    with np.errstate(divide="ignore", invalid="ignore"):
        share = {name: np.where(ss_total > 0, 100.0 * ss / ss_total, np.nan)
                 for name, ss in (("nodes", ss_nodes), ("runs", ss_runs), ("within", ss_within))}
    return {
        "n_values": layout.n_values,
        "n_outliers": layout.n_outliers,
        "n_kept": c_n,
        "n_nodes": layout.nodes_per_config(),
        "n_runs": layout.trials_per_config(),
        "mean": c_mean,
        "median": kernels.segment_medians(v, config_rows),
        "rsd_total_pct": _rsd(c_mean, c_sd),
        "rsd_node_mean_pct": node_rsd_mean,
        "rsd_node_sd_pct": node_rsd_sd,
        "n_nodes_rsd": node_rsd_n,
        "rsd_run_mean_pct": run_rsd_mean,
        "rsd_run_sd_pct": run_rsd_sd,
        "n_runs_rsd": run_rsd_n,
        "share_nodes_pct": share["nodes"],
        "share_runs_pct": share["runs"],
        "share_within_pct": share["within"],
    }


def variability_reason(row: dict[str, float]) -> str | None:
    """Why some RSD of a configuration is undefined (NULL), or None."""
    notes = []
    if row["n_kept"] < 2:
        notes.append("fewer than 2 values: no RSD")
    elif row["mean"] == 0:
        notes.append("mean is 0: RSD undefined")
    else:
        if row["n_nodes_rsd"] == 0:
            notes.append("per-node RSD undefined: every node has a single value")
        elif row["n_nodes_rsd"] == 1:
            notes.append("per-node RSD spread undefined: only one node has 2 or more values")
        if row["n_runs_rsd"] == 0:
            notes.append("per-run RSD undefined: every run has a single value of this "
                         "configuration")
        elif row["n_runs_rsd"] == 1:
            notes.append("per-run RSD spread undefined: only one run has 2 or more values")
    return "; ".join(notes) or None


def _py(x: object) -> object:
    if isinstance(x, (np.floating, float)):
        return None if np.isnan(x) else float(x)
    if isinstance(x, np.integer):
        return int(x)
    return x


def variability(
    values: Sequence[float] | np.ndarray, node: Sequence[object] | np.ndarray,
    run: Sequence[object] | np.ndarray | None = None, *, outlier_factor: float = 10.0,
) -> VariabilityBreakdown:
    """Variability of one configuration's measurements (values with their node and run labels).

    Examples
    --------
    >>> r = variability([10, 11, 12, 10, 30, 31], node=["a"] * 3 + ["b"] * 3,
    ...                 run=[0, 0, 1, 0, 0, 1])
    >>> round(r.rsd_total_pct, 1), r.n_nodes, r.n_runs
    (59.0, 2, 4)
    """
    columns = variability_columns(layout_of_one(values, node, run, outlier_factor=outlier_factor))
    row = {name: _py(col[0]) for name, col in columns.items()}
    reason = variability_reason({k: (np.nan if v is None else float(v))  # type: ignore[arg-type]
                                 for k, v in row.items()})
    row.pop("n_kept")
    return VariabilityBreakdown(**row, reason=reason)  # type: ignore[arg-type]


# ------------------------------------------------------------------------- sampling
@dataclass(frozen=True)
class Eligibility:
    """Which nodes each configuration may draw for one (strategy, k, trials per node) cell."""

    offsets: np.ndarray
    nodes: np.ndarray
    count: np.ndarray
    need_nodes: int
    min_trials: int


def eligibility(layout: Layout, strategy: str, k: int, trials_per_node: int,
                disjoint: bool = False) -> Eligibility:
    """Nodes with enough trials: 1 (instance-based) or 2 x ``trials_per_node`` (trial-based)."""
    min_trials = 2 * trials_per_node if strategy == "trial" else 1
    need = 2 * k if (strategy == "instance" and disjoint) else k
    ok = layout.trials_per_node() >= min_trials
    nodes = np.flatnonzero(ok).astype(np.int64)
    per_config = np.add.reduceat(ok.astype(np.int64), layout.config_offsets[:-1]) \
        if len(ok) else np.zeros(layout.n_configs, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(per_config)]).astype(np.int64)
    return Eligibility(offsets, nodes, per_config, need, min_trials)


def insufficient_reason(strategy: str, k: int, el: Eligibility, c: int, n_nodes: int) -> str | None:
    """Why a (configuration, strategy, k) cell cannot be drawn, or None when it can."""
    if el.count[c] >= el.need_nodes:
        return None
    trials = "a trial" if el.min_trials == 1 else f"at least {el.min_trials} trials"
    return (f"too few nodes: {strategy}-based sampling with k = {k} needs {el.need_nodes} "
            f"nodes with {trials} of this configuration; {el.count[c]} of {n_nodes} have that")


def sample_medians(
    layout: Layout, keys: np.ndarray, *, strategy: str, k: int, trials_per_node: int,
    draws: int, seed: int, disjoint: bool = False, with_ranksum: bool = False,
) -> tuple[Eligibility, np.ndarray, np.ndarray, np.ndarray]:
    """Draw ``draws`` control/test pairs per configuration: their medians, or with
    ``with_ranksum`` the rank-sum p-values (medians NaN); NaN where too few nodes."""
    check_strategy(strategy)
    if k < 1 or draws < 1 or trials_per_node < 1:
        raise ValueError("k, draws and trials_per_node must be positive")
    el = eligibility(layout, strategy, k, trials_per_node, disjoint)
    if with_ranksum:
        ranks, distinct = layout.dense_ranks
    else:
        ranks, distinct = np.empty(0, np.int64), np.empty(0, np.int64)
    med_c, med_t, pvalue = kernels.sample_group_statistics(
        layout.values, ranks, distinct, layout.trial_offsets, layout.node_offsets, el.offsets,
        el.nodes,
        np.ascontiguousarray(keys, dtype=np.uint64), np.uint64(seed % 2**64),
        _STRATEGY_CODE[strategy], int(k), int(trials_per_node), bool(disjoint), int(draws),
        bool(with_ranksum))
    return el, med_c, med_t, pvalue


def regression_counts(
    median_control: np.ndarray, median_test: np.ndarray, higher_is_better: np.ndarray,
    regressions_pct: Sequence[float] | np.ndarray,
    higher_is_better_mode: HigherIsBetterMode = "divide",
) -> tuple[np.ndarray, np.ndarray]:
    """False- and true-positive counts per configuration and r (shape configurations x len(R)).

    FP: |m_t - m_c| > r/2 % of |m_c| (A/A); TP: the same with m_t slowed by r %
    (x (1 + r/100), or / (1 + r/100) for higher-is-better metrics), which is
    the median of the slowed test group.

    ``higher_is_better_mode="divide"`` is the division of the first specification, to the letter. Note that a
    higher-is-better value divided by 2 (r = 100) moves by exactly the r/2 =
    50 % threshold, so at r = 100 a true positive needs m_t < m_c (about half
    the draws) and the scan from 100 down finds nothing. ``"cost"`` compares
    such metrics as costs (1 / median), where an r % regression is x (1 + r/100)
    exactly as for a time, so both directions get the same detection power.
    """
    check_higher_is_better_mode(higher_is_better_mode)
    r = np.asarray(regressions_pct, dtype=np.float64)
    n, draws = median_control.shape[0], max(1, median_control[:1].size)
    # configurations x draws x R temporaries, in slices of about COUNT_CELLS cells: whole,
    # they took 1.2 GB at 20,000 configurations (issue 44, H5)
    step = max(1, COUNT_CELLS // (draws * max(1, r.size)))
    fp = np.zeros((n, r.size), dtype=np.int64)
    tp = np.zeros((n, r.size), dtype=np.int64)
    hib_all = np.asarray(higher_is_better, dtype=bool)
    for start in range(0, n, step):
        end = min(n, start + step)
        fp[start:end], tp[start:end] = _counts(
            median_control[start:end], median_test[start:end], hib_all[start:end], r,
            higher_is_better_mode)
    return fp, tp


COUNT_CELLS = 1 << 19
"""Configuration x draw x r cells :func:`regression_counts` holds at once (4 MB each of
its float temporaries)."""


def _counts(median_control: np.ndarray, median_test: np.ndarray, higher_is_better: np.ndarray,
            regressions_pct: np.ndarray, higher_is_better_mode: str,
            ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`regression_counts` of a slice of the configurations."""
    r = regressions_pct[None, None, :]
    hib = higher_is_better[:, None, None]
    mc = median_control[:, :, None]
    mt = median_test[:, :, None]
    factor = 1.0 + r / 100.0
    if higher_is_better_mode == "cost":
        with np.errstate(divide="ignore"):
            mc = np.where(hib, 1.0 / mc, mc)
            mt = np.where(hib, 1.0 / mt, mt)
        slowed = mt * factor
    else:
        slowed = np.where(hib, mt / factor, mt * factor)
    threshold = np.abs(mc) * r / 200.0
    fp = (np.abs(mt - mc) > threshold).sum(axis=1)
    tp = (np.abs(slowed - mc) > threshold).sum(axis=1)
    return fp, tp


def scan_detectable(
    fp_count: np.ndarray, tp_count: np.ndarray, draws: int,
    regressions_pct: Sequence[float] | np.ndarray,
    max_fp_rate: float = 0.05, min_tp_rate: float = 0.95,
) -> np.ndarray:
    """Index into R of each configuration's minimal detectable regression, -1 when none.

    Scan R from the largest r down, stop at the first r that fails
    (FP rate > ``max_fp_rate`` or TP rate < ``min_tp_rate``); the answer is the
    last r that passed.
    """
    passes = (fp_count <= max_fp_rate * draws + 1e-9) & (tp_count >= min_tp_rate * draws - 1e-9)
    order = np.argsort(np.asarray(regressions_pct, dtype=np.float64))[::-1]
    answer = np.full(len(fp_count), -1, dtype=np.int64)
    alive = np.ones(len(fp_count), dtype=bool)
    for idx in order:
        alive &= passes[:, idx]
        answer[alive] = idx
    return answer


def aa_false_positive_rate(
    values: Sequence[float] | np.ndarray, node: Sequence[object] | np.ndarray,
    run: Sequence[object] | np.ndarray, *, strategy: Strategy = "trial", n_nodes: int = 1,
    trials_per_node: int = 5, draws: int = 100, seed: int = 1, alpha: float = 0.05,
    outlier_factor: float = 10.0, key: int = 0, disjoint: bool = False,
) -> AAResult:
    """A/A testing of one configuration: how often the rank-sum test rejects at ``alpha``."""
    check_strategy(strategy)
    layout = layout_of_one(values, node, run, outlier_factor=outlier_factor)
    per_node = trials_per_node if strategy == "trial" else 1
    el, _mc, _mt, p = sample_medians(layout, np.array([key], dtype=np.uint64), strategy=strategy,
                                     k=n_nodes, trials_per_node=per_node, draws=draws, seed=seed,
                                     disjoint=disjoint, with_ranksum=True)
    reason = insufficient_reason(strategy, n_nodes, el, 0, int(layout.nodes_per_config()[0]))
    if reason:
        return AAResult(strategy, n_nodes, per_node, draws, None, None, reason)
    rejections = int((p[0] < alpha).sum())
    return AAResult(strategy, n_nodes, per_node, draws, rejections, rejections / draws, None)


def none_reason(r_max: float, fp: int, tp: int, draws: int, max_fp_rate: float,
                min_tp_rate: float, divided: bool = False) -> str:
    """Why no r passed. ``divided``: a higher-is-better metric slowed by division."""
    text = (f"no regression detectable: at r = {r_max:g} % the FP rate is {100 * fp / draws:g} % "
            f"and the TP rate {100 * tp / draws:g} % (needs FP <= {100 * max_fp_rate:g} % "
            f"and TP >= {100 * min_tp_rate:g} %)")
    if divided and tp < min_tp_rate * draws - 1e-9 and r_max >= 100:
        text += ("; a higher-is-better value divided by 1 + r/100 moves by no more than the "
                 "r/2 % threshold at r >= 100 % (higher_is_better_mode 'cost' compares 1/value)")
    return text


def detectable_regression(
    values: Sequence[float] | np.ndarray, node: Sequence[object] | np.ndarray,
    run: Sequence[object] | np.ndarray, *, strategy: Strategy = "instance", n_nodes: int = 1,
    trials_per_node: int = 5, higher_is_better: bool | None = False, draws: int = 100,
    seed: int = 1, regressions_pct: Sequence[float] = REGRESSIONS_PCT,
    max_fp_rate: float = 0.05, min_tp_rate: float = 0.95, outlier_factor: float = 10.0,
    key: int = 0, disjoint: bool = False, higher_is_better_mode: HigherIsBetterMode = "divide",
) -> DetectableRegressionResult:
    """Minimal detectable regression of one configuration (Laaber et al. (PeerJ Preprints 2018), Algorithm 1).

    ``trials_per_node`` applies to the trial-based strategy (instance-based
    always takes one trial per node). ``key`` identifies the configuration in
    the random draws (the jobs use :func:`config_key`). ``higher_is_better``
    None (unknown direction) counts as lower is better; see
    :func:`regression_counts` for ``higher_is_better_mode``.
    """
    check_strategy(strategy)
    layout = layout_of_one(values, node, run, outlier_factor=outlier_factor)
    per_node = trials_per_node if strategy == "trial" else 1
    el, mc, mt, _p = sample_medians(layout, np.array([key], dtype=np.uint64), strategy=strategy,
                                    k=n_nodes, trials_per_node=per_node, draws=draws, seed=seed,
                                    disjoint=disjoint)
    reason = insufficient_reason(strategy, n_nodes, el, 0, int(layout.nodes_per_config()[0]))
    if reason:
        return DetectableRegressionResult(strategy, n_nodes, per_node, draws, None, (), (), (),
                                          reason)
    r = tuple(float(x) for x in regressions_pct)
    fp, tp = regression_counts(mc, mt, np.array([bool(higher_is_better)]), r,
                               higher_is_better_mode)
    idx = int(scan_detectable(fp, tp, draws, r, max_fp_rate, min_tp_rate)[0])
    top = int(np.argmax(r))
    detectable = r[idx] if idx >= 0 else None
    why = None if idx >= 0 else none_reason(
        r[top], int(fp[0, top]), int(tp[0, top]), draws, max_fp_rate, min_tp_rate,
        divided=bool(higher_is_better) and higher_is_better_mode == "divide")
    return DetectableRegressionResult(
        strategy, n_nodes, per_node, draws, detectable, r,
        tuple(float(x) / draws for x in fp[0]), tuple(float(x) / draws for x in tp[0]), why)
