"""Jobs ``aa-fpr`` and ``detectable-regression`` (Laaber et al. (PeerJ Preprints 2018), §4.2).

Outputs ``aa_fpr``, ``detectable_regression`` and ``detectable_regression_curve``
(declared in ``perfwarehouse/warehouse/contracts.py``). The sampling and the scan rule live in
:mod:`perfwarehouse.laaber`; these functions only assemble tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from perfwarehouse import laaber
from perfwarehouse.errors import UsageError
from perfwarehouse.jobs.framework import Job, JobParams, Tables, param
from perfwarehouse.jobs.laaber_rows import QUERY, equal_to, floats, with_columns
from perfwarehouse.warehouse import contracts

# the columns computed behind the configuration's (part.meta), from the outputs' contracts
AA_FIELDS = contracts.AA_FPR.fields(contracts.MEASURED)
DETECTABLE_FIELDS = contracts.DETECTABLE_REGRESSION.fields(contracts.MEASURED)
CURVE_KEYS = contracts.KEY_NAMES
CURVE_FIELDS = contracts.DETECTABLE_REGRESSION_CURVE.fields(contracts.CONFIGURATION_KEY)


def _check_common(seed: int, draws: int, trials_per_node: int, node_counts: Sequence[int]) -> None:
    if draws < 1:
        raise UsageError("--draws must be at least 1")
    if trials_per_node < 1:
        raise UsageError("--trials-per-node must be at least 1")
    if not node_counts or any(k < 1 for k in node_counts):
        raise UsageError("node counts must be given and be at least 1")
    if seed < 0:
        raise UsageError("--seed must be a non-negative integer")


# ------------------------------------------------------------------------ aa-fpr
@dataclass(frozen=True)
class AAParams(JobParams):
    seed: int = param(1, "Seed of the random draws; the same seed gives the same table.")
    draws: int = param(100, "Random control/test draws per configuration and cell.")
    n_nodes: tuple[int, ...] = param((1, 5, 10, 20), "Node counts k to test.")
    strategies: tuple[str, ...] = param(
        ("trial", "instance"), "Sampling strategies: trial (same k nodes, different trials) "
        "and/or instance (independently drawn nodes, one trial each).")
    trials_per_node: int = param(5, "Trials per node and group for the trial strategy.")
    alpha: float = param(0.05, "Significance level of the rank-sum test.")
    outlier_factor: float = param(10.0, "Drop values >= this many times the configuration's "
                                        "median first; 0 keeps everything.")


def compute_aa(table: pa.Table, params: AAParams) -> Tables:
    _check_common(params.seed, params.draws, params.trials_per_node, params.n_nodes)
    if not params.strategies:
        raise UsageError(f"--strategies: give at least one of {', '.join(laaber.STRATEGIES)}")
    for s in params.strategies:
        if s not in laaber.STRATEGIES:
            raise UsageError(f"unknown strategy {s!r}; choose from {', '.join(laaber.STRATEGIES)}")
    part = laaber.partition_from_arrow(table, outlier_factor=params.outlier_factor)
    layout = part.layout
    n = layout.n_configs
    nodes_available = layout.nodes_per_config()
    pieces = []
    for strategy in params.strategies:
        per_node = params.trials_per_node if strategy == "trial" else 1
        for k in params.n_nodes:
            el, _mc, _mt, p = laaber.sample_medians(
                layout, part.keys, strategy=strategy, k=k, trials_per_node=per_node,
                draws=params.draws, seed=params.seed, with_ranksum=True)
            reasons = [laaber.insufficient_reason(strategy, k, el, c, int(nodes_available[c]))
                       for c in range(n)]
            drawn = np.array([r is None for r in reasons])
            rejections = (p < params.alpha).sum(axis=1)
            pieces.append(with_columns(part.meta, {
                "strategy": [strategy] * n, "n_nodes": np.full(n, k),
                "trials_per_node": np.full(n, per_node), "draws": np.full(n, params.draws),
                "alpha": np.full(n, float(params.alpha)),
                "rejections": [int(x) if ok else None for x, ok in zip(rejections, drawn)],
                "fp_rate": np.where(drawn, rejections / params.draws, np.nan),
                "nodes_available": nodes_available, "nodes_eligible": el.count,
                "seed": np.full(n, params.seed), "reason": reasons,
            }, AA_FIELDS))
    return {"aa_fpr": pa.concat_tables(pieces)}


def summarize_aa(tables: Tables, params: AAParams) -> list[str]:
    t = tables["aa_fpr"]
    if t.num_rows == 0:
        return ["aa-fpr: no configurations"]
    lines = [f"aa-fpr: rank-sum A/A false-positive rate (alpha {params.alpha:g}), mean over "
             "configurations:"]
    strategy, k = t.column("strategy"), t.column("n_nodes")
    fp = floats(t.column("fp_rate"))
    for s in params.strategies:
        cells = []
        for n in params.n_nodes:
            sel = equal_to(strategy, s) & equal_to(k, n) & np.isfinite(fp)
            cells.append(f"k={n}: {100 * fp[sel].mean():.0f} %" if sel.any() else f"k={n}: -")
        lines.append(f"  {s}-based: " + ", ".join(cells))
    return lines


JOB_AA_FPR = Job(
    name="aa-fpr",
    help="A/A false-positive rate of the two-sided Wilcoxon rank-sum test for k nodes, "
         "per configuration and hardware type (Laaber et al. 4.2.1).",
    params=AAParams,
    query=QUERY,
    compute=compute_aa,
    outputs=("aa_fpr",),
    summarize=summarize_aa,
    per_configuration=True,
    relative_cost=2.0,
)


# ---------------------------------------------------------- detectable-regression
@dataclass(frozen=True)
class DetectableParams(JobParams):
    seed: int = param(1, "Seed of the random draws; the same seed gives the same table.")
    draws: int = param(100, "Random control/test draws per configuration and cell "
                            "(the same draws serve every r).")
    instance_nodes: tuple[int, ...] = param(
        (1, 5, 20), "Node counts k of the instance-based strategy (one trial per node).")
    trial_nodes: tuple[int, ...] = param(
        (1, 20), "Node counts k of the trial-based strategy (the same k nodes for both "
                 "groups, --trials-per-node trials each).")
    trials_per_node: int = param(5, "Trials per node and group for the trial strategy.")
    regressions: tuple[int, ...] = param(laaber.REGRESSIONS_PCT, "Regression sizes R in %.")
    max_fp_rate: float = param(0.05, "Largest false-positive rate at which r is detectable.")
    min_tp_rate: float = param(0.95, "Smallest true-positive rate at which r is detectable.")
    instance_groups: str = param(
        "independent", "Instance-based control and test nodes: drawn independently (may "
        "share nodes) or disjoint (2k distinct nodes).", choices=("independent", "disjoint"))
    higher_is_better_mode: str = param(
        "cost", "Higher-is-better metrics (throughput): cost (the default: compare 1/value, "
        "so an r % regression means the cost per unit of work grows by r %, as for a time) "
        "or divide (to the letter: the test values are divided by 1 + r/100 and "
        "compared with the r/2 % threshold; r = 100 then sits exactly on the threshold and "
        "nearly every throughput configuration comes out 'none').",
        choices=laaber.HIGHER_IS_BETTER_MODES)
    outlier_factor: float = param(10.0, "Drop values >= this many times the configuration's "
                                        "median first; 0 keeps everything.")


def _cells(params: DetectableParams) -> list[tuple[str, int, int]]:
    return ([("instance", k, 1) for k in params.instance_nodes]
            + [("trial", k, params.trials_per_node) for k in params.trial_nodes])


def compute_detectable(table: pa.Table, params: DetectableParams) -> Tables:
    _check_common(params.seed, params.draws, params.trials_per_node,
                  (*params.instance_nodes, *params.trial_nodes))
    if not params.regressions or min(params.regressions) <= 0:
        raise UsageError("--regressions must be positive percentages")
    part = laaber.partition_from_arrow(table, outlier_factor=params.outlier_factor)
    layout = part.layout
    n = layout.n_configs
    nodes_available = layout.nodes_per_config()
    r = np.asarray(params.regressions, dtype=np.float64)
    top = int(np.argmax(r))
    n_r = len(r)
    disjoint = params.instance_groups == "disjoint"
    rows, curves = [], []
    for strategy, k, per_node in _cells(params):
        el, mc, mt, _p = laaber.sample_medians(
            layout, part.keys, strategy=strategy, k=k, trials_per_node=per_node,
            draws=params.draws, seed=params.seed, disjoint=disjoint)
        fp, tp = laaber.regression_counts(mc, mt, part.higher_is_better, r,
                                          params.higher_is_better_mode)  # type: ignore[arg-type]
        answer = laaber.scan_detectable(fp, tp, params.draws, r, params.max_fp_rate,
                                        params.min_tp_rate)
        reasons: list[str | None] = []
        status: list[str] = []
        for c in range(n):
            why = laaber.insufficient_reason(strategy, k, el, c, int(nodes_available[c]))
            if why is None and answer[c] < 0:
                why = laaber.none_reason(
                    r[top], int(fp[c, top]), int(tp[c, top]), params.draws, params.max_fp_rate,
                    params.min_tp_rate, divided=bool(part.higher_is_better[c])
                    and params.higher_is_better_mode == "divide")
                status.append("none")
            else:
                status.append("insufficient" if why else "detectable")
            reasons.append(why)
        found = answer >= 0
        at = np.maximum(answer, 0)
        rows.append(with_columns(part.meta, {
            "strategy": [strategy] * n, "n_nodes": np.full(n, k),
            "trials_per_node": np.full(n, per_node),
            "detectable_pct": np.where(found, r[at], np.nan),
            "fp_rate": np.where(found, fp[np.arange(n), at] / params.draws, np.nan),
            "tp_rate": np.where(found, tp[np.arange(n), at] / params.draws, np.nan),
            "status": status, "reason": reasons, "nodes_available": nodes_available,
            "nodes_eligible": el.count, "n_runs": layout.trials_per_config(),
            "n_values": layout.n_values, "n_outliers": layout.n_outliers,
            "draws": np.full(n, params.draws), "seed": np.full(n, params.seed),
        }, DETECTABLE_FIELDS))

        drawn = np.flatnonzero(el.count >= el.need_nodes)
        m = len(drawn) * n_r
        curve_meta = part.meta.select(list(CURVE_KEYS)).take(pa.array(np.repeat(drawn, n_r)))
        curves.append(with_columns(curve_meta, {
            "strategy": [strategy] * m, "n_nodes": np.full(m, k),
            "trials_per_node": np.full(m, per_node), "r_pct": np.tile(r, len(drawn)),
            "fp_rate": (fp[drawn] / params.draws).ravel(),
            "tp_rate": (tp[drawn] / params.draws).ravel(),
            "passes": ((fp[drawn] <= params.max_fp_rate * params.draws + 1e-9)
                       & (tp[drawn] >= params.min_tp_rate * params.draws - 1e-9)).ravel(),
            "draws": np.full(m, params.draws), "seed": np.full(m, params.seed),
        }, CURVE_FIELDS))
    return {"detectable_regression": pa.concat_tables(rows),
            "detectable_regression_curve": pa.concat_tables(curves)}


def summarize_detectable(tables: Tables, params: DetectableParams) -> list[str]:
    t = tables["detectable_regression"]
    if t.num_rows == 0:
        return ["detectable-regression: no configurations"]
    strategy, k, status = t.column("strategy"), t.column("n_nodes"), t.column("status")
    pct = floats(t.column("detectable_pct"))
    found_any, none, insufficient = (equal_to(status, v)
                                     for v in ("detectable", "none", "insufficient"))
    lines = ["detectable-regression: median minimal detectable regression per cell "
             "(configurations detectable / none / too few nodes):"]
    for s, n, _per in _cells(params):
        sel = equal_to(strategy, s) & equal_to(k, n)
        found = sel & found_any
        median = f"{np.median(pct[found]):g} %" if found.any() else "-"
        lines.append(f"  {s}-based, k={n}: {median} ({found.sum()} / "
                     f"{(sel & none).sum()} / {(sel & insufficient).sum()})")
    return lines


JOB_DETECTABLE_REGRESSION = Job(
    name="detectable-regression",
    help="Smallest regression (in %) each configuration can reliably detect on each "
         "hardware type, for instance- and trial-based sampling with k nodes, with the "
         "FP/TP curve per regression size (Laaber et al. 4.2.2, Algorithm 1).",
    params=DetectableParams,
    query=QUERY,
    compute=compute_detectable,
    outputs=("detectable_regression", "detectable_regression_curve"),
    summarize=summarize_detectable,
    per_configuration=True,
)
