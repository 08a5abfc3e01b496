"""Job ``change-points``: when did each configuration's performance change?

Per configuration and hardware type, the series of trial values (median of each trial's
iterations) ordered by revision time then start (``--by revision``) or by start (``--by
time``: trials without a start time, whose files held none, are left out, and the
summary says how many, ``Job.over_time``) is searched with E-divisive means and a permutation test
(:mod:`perfwarehouse.changepoints`; Matteson & James, JASA 2014; as Otava and MongoDB
use it). Output table ``change_points`` (declared in ``perfwarehouse/warehouse/contracts.py``): one row
per change point, and one row with the reason for every series that has none.

``direction``: by the sign of ``change_pct`` (the sign of the change, also for negative
and zero-crossing values) and the metric's direction. ``abs_change_pct`` (|change_pct|)
and ``action`` (the change's interval lies beyond +-``--min-effect`` %, default 1 %, as
``compare`` judges a row) make the action list: rows with ``action``, largest
``abs_change_pct`` first; the others stay in the table. ``--baseline B`` (a paired
baseline): every other series is divided, trial by trial, by the median of B's trials of
the same metric in the same run (``prepare``: query ``change_point_baseline``, over the
whole campaign, so the job's slices of configurations all see it); ``paired_with`` and
``n_unpaired`` say so on each row.

``mixed``: a series that mixes what should be apart (several runs or revisions at one
start time, as tip and baseline toolchains of a benchseries night; two interleaved
groups of values under one node, as two runners of one name;
:mod:`perfwarehouse.stats.mixing`) says so on each of its rows, with the attribute that
splits it when one does; its change points need no action. ``--baseline KEY=VALUE``
pairs by a setting (one promoted from an attribute at ingest with
``--setting-from-attribute KEY``): each trial of a series whose KEY is another value is
divided by the median of the trials with KEY=VALUE of the same benchmark, other
settings and metric at the same start time (tip / that night's baseline).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import pyarrow as pa

from perfwarehouse.jobs.change_point_mixing import mixing_of
from perfwarehouse.jobs.change_point_pairing import _without as _without
from perfwarehouse.jobs.change_point_pairing import pair as pair
from perfwarehouse.jobs.change_point_pairing import pair_by_setting as pair_by_setting
from perfwarehouse.jobs.framework import Job, JobParams, Tables, param
from perfwarehouse.warehouse import contracts

if TYPE_CHECKING:
    from perfwarehouse.changepoints.incremental import Stored

QUERY = "change_point_series"
OUTPUT = "change_points"

# the columns of the output table, declared in perfwarehouse/warehouse/contracts.py
SCHEMA = contracts.CHANGE_POINTS.schema
FIELDS = tuple((f.name, f.type) for f in SCHEMA)


@dataclass(frozen=True)
class ChangePointParams(JobParams):
    by: str = param("revision", "Order each series by revision time, then start (revision), "
                    "or by start only (time: trials without a start time are left out, "
                    "and the summary says how many).", choices=("revision", "time"))
    alpha: float = param(0.01, "Level of the permutation tests: a series without change gets "
                         "any change point with probability <= alpha (the p-values do not "
                         "depend on it).")
    min_change: float = param(0.0, "Drop change points whose change is smaller than this many "
                              "percent.")
    min_size: int = param(4, "Fewest points on each side of a change point (4: a change "
                          "with 4 points after it can be tested; the peers' shortest "
                          "examples need it).")
    permutations: int = param(999, "Permutations of the first test of a series (at most).")
    split_permutations: int = param(199, "Permutations of the tests of its parts (at most).")
    confidence: float = param(0.99, "Confidence of each change's interval, at least 0.5 (0.99 or 99).")
    baseline: str | None = param(None, "Paired baseline: divide each trial of every other "
                                 "series by the median of this benchmark's trials of the "
                                 "same metric in the same run (cancels machine drift, as "
                                 "Go's benchseries); its own series stay raw. KEY=VALUE "
                                 "(a setting, e.g. toolchain=baseline from ingest "
                                 "--setting-from-attribute toolchain): divide each series "
                                 "with another KEY by the KEY=VALUE trials of the same "
                                 "benchmark and settings at the same start time.")
    baseline_values: tuple[tuple[Any, ...], ...] = param(
        (), "(campaign, hardware type, run, metric, baseline) rows (set by prepare)",
        internal=True)
    min_effect: float = param(1.0, "A change point needs action (column action) when its "
                              "interval lies beyond +-this many percent (its change, when "
                              "it has no interval), as compare's --threshold; sort the "
                              "action list by abs_change_pct, largest first.")


def prepare_baseline(table: pa.Table, params: ChangePointParams) -> ChangePointParams:
    """The baseline's value of every run, or of every configuration and start time when
    ``--baseline KEY=VALUE`` names a setting (query ``change_point_baseline``)."""
    if params.baseline is None:
        return params
    if table.num_rows == 0:
        what = ("that benchmark, or trials with that setting and a start time"
                if "=" in params.baseline else "that benchmark")
        from perfwarehouse.errors import AnalysisError

        raise AnalysisError(f"change-points: --baseline {params.baseline!r}: no trial of "
                            f"{what} in the data analysed")
    if "mode" in table.column_names and table.column("mode")[0].as_py() == "setting":
        key = params.baseline.partition("=")[0]
        rows = tuple(("setting", r["campaign"], r["hardware_type"], r["benchmark"],
                      _without(r["settings"], key), r["metric"], r["started_at"],
                      r["baseline"]) for r in table.to_pylist())
        return dataclasses.replace(params, baseline_values=rows)
    rows = tuple(tuple(r.values()) for r in table.select(
        ["campaign", "hardware_type", "run_id", "metric", "baseline"]).to_pylist())
    return dataclasses.replace(params, baseline_values=rows)


def _direction(change: float, higher_is_better: bool | None) -> str | None:
    if change != change or change == 0:  # NaN
        return None
    up = change > 0
    return "improvement" if up == bool(higher_is_better) else "regression"


def needs_action(change: float, low: float | None, high: float | None,
                 min_effect: float) -> bool:
    """The change matters: its interval lies entirely beyond +-``min_effect`` percent on
    one side (as ``compare`` judges a row), or, without an interval, |change| >= it."""
    if change != change:
        return False
    if low is None or high is None:
        return abs(change) >= min_effect
    return low > min_effect or high < -min_effect


def tail_points(n: int) -> int:
    """How many last points of a series of ``n`` make its tail: a change point there that
    no new revision begins (the last run or two of a long series) is not a step."""
    return max(10, n // 100)


def shift_kinds(values: Any, days: Any, positions: list[int], new_revision: list[bool]
                ) -> list[tuple[str, str | None]]:
    """(shift, reason) of each change point of one series: ``step``; ``level shift``
    where a smooth model of time (drift, daily or weekly cycle) explains it
    (:mod:`perfwarehouse.changepoints.structure`); ``tail`` for the last points of the
    series that begin at no new revision. ``days``: start times in days, NaN where a
    trial has none (then the index is the axis and no cycle is modelled)."""
    import numpy as np

    from perfwarehouse.changepoints.structure import classify

    if not positions:
        return []
    if not np.isfinite(values).all():
        return [("step", None) for _ in positions]
    times = None if np.isnan(days).any() else days
    structure = classify(values, positions, times)
    why = structure.why_not_a_step()
    tail = len(values) - tail_points(len(values))
    out: list[tuple[str, str | None]] = []
    for position, step, new in zip(positions, structure.steps, new_revision):
        if position >= tail and not new:
            out.append(("tail", f"the last {len(values) - position} points of the series, "
                                "at no new revision: not a step"))
        else:
            out.append(("step", None) if step else ("level shift", why))
    return out


def _days(started: Any) -> Any:
    """Start times as days since the epoch (NaN where missing)."""
    import numpy as np
    import pyarrow.compute as pc

    micros = pc.cast(started, pa.int64()).to_numpy(zero_copy_only=False)
    return np.asarray(micros, dtype=np.float64) / 86_400e6


@dataclass(frozen=True)
class Prior:
    """What the previous run of the job stored for one partition, for
    :func:`compute_reusing`: per (hardware type, config_id) its rows (the output
    table's columns) and what its search found
    (:class:`~perfwarehouse.changepoints.incremental.Stored`), and the run_ids of the
    trials that landed since (:mod:`perfwarehouse.jobs.incremental` reads them)."""

    rows: Mapping[tuple[str, int], pa.Table]
    stored: Mapping[tuple[str, int], Stored]
    new_runs: frozenset[str]


def compute(table: pa.Table, params: ChangePointParams) -> Tables:
    """The change points of every series of ``table`` (one partition), each searched
    whole."""
    return compute_reusing(table, params, None)


def _check(params: ChangePointParams) -> float:
    """The confidence of the intervals; a one-line error for an option out of range."""
    from perfwarehouse.errors import AnalysisError
    from perfwarehouse.stats.fractions import confidence as as_confidence

    if not 0 < params.alpha < 1:
        raise AnalysisError(f"change-points: --alpha must be in (0, 1), got {params.alpha}")
    confidence = as_confidence(params.confidence, "--confidence")
    if confidence < 0.5:
        raise AnalysisError("change-points: --confidence must be in [0.5, 1)")
    if (params.min_size < 2 or params.permutations < 1 or params.split_permutations < 1
            or not 0 <= params.min_change < float("inf")
            or not 0 <= params.min_effect < float("inf")):
        raise AnalysisError("change-points: --min-size must be >= 2, --permutations and "
                            "--split-permutations >= 1, --min-change and --min-effect finite "
                            "numbers >= 0")
    return confidence


def _plan_series(table: pa.Table, spans: list[tuple[int, int]], prior: Prior | None
                 ) -> list[pa.Table | Stored | None]:
    """Per series: its stored rows (no new trial, the same length: reused as they are),
    what its previous search found (new trials after every old one: searched from its
    last change points), or None (searched whole)."""
    if prior is None:
        return [None] * len(spans)
    import numpy as np
    import pyarrow.compute as pc

    runs = table.column("run_id")
    is_new = pc.fill_null(pc.is_in(runs, value_set=pa.array(sorted(prior.new_runs),
                                                             runs.type)), False)
    new = np.asarray(is_new.to_numpy(zero_copy_only=False), dtype=bool)
    out: list[pa.Table | Stored | None] = []
    for s, e in spans:
        key = (table.column("hardware_type")[s].as_py(), table.column("config_id")[s].as_py())
        known = prior.stored.get(key)
        count = int(new[s:e].sum())
        if known is None:
            out.append(None)
        elif not count and known.n == e - s and key in prior.rows:
            out.append(prior.rows[key])
        elif known.n + count == e - s and new[s + known.n:e].all():
            out.append(known)
        else:  # a new trial among the old ones (or an old one gone): search it whole
            out.append(None)
    return out


def compute_reusing(table: pa.Table, params: ChangePointParams, prior: Prior | None
                    ) -> Tables:
    """:func:`compute`, reusing what ``prior`` stored: a series without new trials keeps
    its rows, a series whose new trials all come after its old ones is searched again
    from its last change points
    (:func:`~perfwarehouse.changepoints.incremental.detect_appended`, which says why the
    result is a full search's and where it falls back to one), every other series is
    searched whole. With ``--baseline`` every series is searched whole (a new baseline
    trial changes the divided values of old runs)."""
    import numpy as np

    from perfwarehouse.changepoints.incremental import detect_each

    confidence = _check(params)
    unpaired: dict[int, int] = {}
    divided: set[int] | None = None  # None: every series but the baseline's is divided
    if params.baseline is not None:
        prior = None
        original = table
        if params.baseline_values and params.baseline_values[0][0] == "setting":
            table, unpaired, divided = pair_by_setting(table, params.baseline,
                                                       params.baseline_values)
        else:
            table, unpaired = pair(table, params.baseline, params.baseline_values)
    config = table.column("config_id").to_numpy()
    values = table.column("value").to_numpy(zero_copy_only=False).astype(np.float64)
    # Python objects only for the rows that become change points (to_pylist of every
    # timestamp of a partition took longer than the statistics)
    revision, revision_time, started = (table.column(k) for k in (
        "revision", "revision_time", "started_at"))
    bounds = np.flatnonzero(np.diff(config)) + 1
    starts = np.concatenate([[0], bounds]).astype(int)
    ends = np.concatenate([bounds, [config.size]]).astype(int)
    meta_cols = ("campaign", "hardware_type", "config_id", "benchmark", "settings", "metric",
                 "unit", "higher_is_better")
    spans = list(zip(starts.tolist(), ends.tolist()))
    plans = _plan_series(table, spans, prior)
    search = [i for i, plan in enumerate(plans) if not isinstance(plan, pa.Table)]
    found = detect_each([values[spans[i][0]:spans[i][1]] for i in search],
                        [cast("Stored | None", plans[i]) for i in search], alpha=params.alpha,
                        min_change=params.min_change, min_size=params.min_size,
                        permutations=params.permutations,
                        split_permutations=params.split_permutations, confidence=confidence)
    results = dict(zip(search, found))
    rows: list[dict[str, Any]] = []
    if params.baseline is not None:  # series with no trial left: say why, drop nothing
        kept = set(np.unique(config).tolist())
        first: dict[int, int] = {}
        for i, c in enumerate(original.column("config_id").to_pylist()):
            first.setdefault(c, i)
        for c, i in first.items():
            if c not in kept:
                meta = {k: original.column(k)[i].as_py() for k in meta_cols}
                rows.append({**meta, "ordered_by": params.by, "n_points": 0,
                             "confidence": confidence, "alpha": params.alpha,
                             "paired_with": params.baseline, "n_unpaired": unpaired.get(c, 0),
                             "reason": f"no trial has a baseline ({params.baseline}, same "
                                       "metric) " + ("at its start time" if divided is not None
                                                     else "in its run")})
    days = _days(table.column("started_at"))
    for index, (s, e) in enumerate(spans):
        plan = plans[index]
        if isinstance(plan, pa.Table):
            rows += plan.select(SCHEMA.names).to_pylist()
            continue
        result = results[index]
        meta = {k: table.column(k)[s].as_py() for k in meta_cols}
        paired = params.baseline is not None and (
            meta["config_id"] in divided if divided is not None
            else meta["benchmark"] != params.baseline)
        base = {**meta, "ordered_by": params.by, "n_points": e - s,
                "confidence": confidence, "alpha": params.alpha,
                "paired_with": params.baseline if paired else None,
                "n_unpaired": unpaired.get(meta["config_id"], 0) if paired else None,
                "mixed": mixing_of(table, values, days, s, e)}
        if not result.change_points:
            rows.append({**base, "p_value": result.p_value, "reason": result.reason})
            continue
        shifts = shift_kinds(values[s:e], days[s:e],
                             [cp.position for cp in result.change_points],
                             [revision[s + cp.position].as_py() != revision[s + cp.position - 1]
                              .as_py() for cp in result.change_points])
        for cp, (shift, why) in zip(result.change_points, shifts):
            i = s + cp.position
            rows.append({
                **base, "position": cp.position, "revision": revision[i].as_py(),
                "revision_time": revision_time[i].as_py(), "started_at": started[i].as_py(),
                "revision_before": revision[i - 1].as_py(), "n_before": cp.n_before,
                "n_after": cp.n_after, "median_before": cp.median_before,
                "median_after": cp.median_after, "change_pct": cp.change_pct,
                "ci_low_pct": cp.ci_low_pct, "ci_high_pct": cp.ci_high_pct,
                "p_value": cp.p_value,
                "direction": _direction(cp.change_pct, meta["higher_is_better"]),
                "abs_change_pct": abs(cp.change_pct),
                "action": shift == "step" and base["mixed"] is None and needs_action(
                    cp.change_pct, cp.ci_low_pct, cp.ci_high_pct, params.min_effect),
                "shift": shift, "reason": why,
            })
    return {OUTPUT: pa.Table.from_pylist(rows, schema=SCHEMA)}


def summarize(tables: Tables, params: ChangePointParams) -> list[str]:
    """The job's summary lines, from the result's columns (a Python object per row of a
    million series took 1.5 GB more than the whole job; only the few rows named are)."""
    t = tables.get(OUTPUT)
    if t is None or t.num_rows == 0:
        return ["change-points: no series"]
    import numpy as np
    import pyarrow.compute as pc

    def flags(array: Any) -> np.ndarray:
        return np.asarray(pc.fill_null(array, False).to_numpy(zero_copy_only=False), bool)

    def text(name: str) -> pa.ChunkedArray:
        return pc.fill_null(t.column(name).cast(pa.string()), "")

    keys = ["campaign", "hardware_type", "config_id"]
    point = flags(pc.is_valid(t.column("position")))
    shift = text("shift")
    stepped = point & (flags(pc.is_null(t.column("shift")))
                       | flags(pc.equal(t.column("shift"), "step")))
    regressions = int((stepped & flags(pc.equal(text("direction"), "regression"))).sum())
    mixed = flags(pc.not_equal(text("mixed"), ""))

    numbered = t.select(keys).append_column("row", pa.array(np.arange(t.num_rows)))

    def series(mask: np.ndarray | None = None) -> pa.Table:
        """The distinct series of the rows in ``mask`` (all), with their first row."""
        rows = numbered if mask is None else numbered.filter(pa.array(mask))
        return rows.group_by(keys, use_threads=False).aggregate([("row", "min")])

    every_series = series()
    n_points, n_stepped = int(point.sum()), int(stepped.sum())
    shifts = int((point & flags(pc.equal(shift, "level shift"))).sum())
    tails = int((point & flags(pc.equal(shift, "tail"))).sum())
    lines = [f"change-points: {every_series.num_rows:,} series, {n_points:,} change points in "
             f"{series(point).num_rows:,} series at alpha {params.alpha:g}: {n_stepped:,} steps "
             f"({regressions:,} regressions, {n_stepped - regressions:,} improvements)"
             + (f", {shifts:,} level shifts of series that drift or cycle" if shifts else "")
             + (f", {tails:,} in the last points at no new revision" if tails else "")]
    if n_points:
        action = int((point & flags(t.column("action"))).sum())
        lines.append(f"  {action:,} need action (interval beyond +-{params.min_effect:g} %)")
    if params.baseline is not None:  # every row of a series carries its count
        first = every_series.column("row_min")
        left_out = int(pc.sum(pc.fill_null(pc.take(t.column("n_unpaired"), first), 0)).as_py()
                       or 0)
        if "=" in params.baseline:  # a setting (or a benchmark named KEY=VALUE)
            lines.append(f"  series divided by the median of their {params.baseline} trials "
                         f"(at the same start time; run by run for a benchmark of that "
                         f"name); {left_out:,} trials without one left out")
        else:
            lines.append(f"  series divided run by run by {params.baseline}'s median; "
                         f"{left_out:,} trials without a baseline in their run left out")
    if mixed.any():
        firsts = np.sort(series(mixed).column("row_min").to_numpy())
        lines.append(f"  {firsts.size:,} series mix what should be apart (their change points "
                     "need no action; split them):")
        for r in t.take(pa.array(firsts[:3])).to_pylist():
            lines.append(f"    {r['benchmark']} ({r['metric']}) on {r['hardware_type']}: "
                         f"{r['mixed']}")
        if firsts.size > 3:
            lines.append(f"    ... and {firsts.size - 3:,} more (column mixed)")
    short = int(flags(pc.starts_with(text("reason"), "too short")).sum())
    if short:
        lines.append(f"  {short:,} series too short for the test "
                     f"(fewer than {2 * params.min_size} trials)")
    unmixed = point & ~mixed
    if unmixed.any():
        size = np.abs(pc.fill_null(t.column("change_pct"), 0.0).to_numpy(zero_copy_only=False))
        big = t.take(pa.array([int(np.argmax(np.where(unmixed, size, -1.0)))])).to_pylist()[0]
        lines.append(f"  largest: {big['benchmark']} ({big['metric']}) on {big['hardware_type']}"
                     f": {big['change_pct']:+.2f} % at {big['revision'] or big['started_at']}")
    return lines


JOB = Job(
    name="change-points",
    help="When did performance change? E-divisive means with a permutation test on each "
         "configuration's series of trial values over revisions (or time); calibrated: a "
         "series without change gets a change point with probability <= --alpha "
         "(Matteson & James 2014).",
    params=ChangePointParams,
    query=QUERY,
    compute=compute,
    outputs=(OUTPUT,),
    summarize=summarize,
    query_params=lambda p: {"by": p.by, "baseline": p.baseline},
    prepare_query="change_point_baseline",
    prepare=prepare_baseline,
    per_configuration=True,
    row_order=("config_id", "order_time", "started_at", "run_id", "position"),
    relative_cost=4.0,
    over_time=lambda p: p.by == "time",
)
