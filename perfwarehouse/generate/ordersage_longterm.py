"""A synthetic long-term campaign with the shape of the OrderSage dataset.

Duplyakin et al. (OrderSage, USENIX ATC 2023), §4: about 2.3M trials of 25 CPU and
memory benchmarks in several settings on 13 CloudLab hardware types (1,880
configurations = test x hardware type), about 9,000 runs over nine months, each
run choosing fixed or freshly shuffled order with equal probability (4.4), a
reset between runs.

Values are long-tailed and non-normal, and carry, multiplicatively:

* a per-(test, hardware type) level and noise level, with a heavy tail in the
  "worse" direction (slower times, lower throughput);
* node offsets (machines of one type differ by ~0.5-3 %) and a per-run effect;
* **order effects** (planted): a position effect on memory benchmarks of some
  hardware types (caches and memory layout degrade along a run), and
  *polluter* tests that slow whichever test runs right after them;
* **drift**: a linear trend on some configurations (% per 30 days);
* **seasonality**: daily and weekly cycles on some hardware types.

The truth file lists every planted effect with its expected size, so analyses
and reports can be scored against it.

:func:`extend` continues the campaign past its last day (the nightly loop of issue 41:
"one more night"): the same hardware types, nodes and planted effects (drift and
seasonality go on with the calendar), each new day drawn from a generator seeded by
(seed, day) alone, so the campaign itself is unchanged and extending by 2 days gives
the day that extending by 1 gave, and a second day after it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import numpy as np
import pyarrow as pa

from perfwarehouse.generate.longterm_model import (  # noqa: F401  (the campaign's constants)
    BENCHMARKS,
    CAMPAIGN,
    CONFIGS_PER_TYPE,
    DAY_S,
    HARDWARE,
    SPAN_DAYS,
    START,
    Model,
    draw_model,
    draw_runs,
    trials_table,
)
from perfwarehouse.generate.trials import Generated, settings_json
from perfwarehouse.progress import Task


def _runs_per_type(total_runs: int, total_trials: int) -> np.ndarray:
    """Runs per hardware type, increasing with its test count, so that trials ~ ``total_trials``."""
    sizes = np.asarray(CONFIGS_PER_TYPE, dtype=float)
    lo, hi = 0.0, 4.0
    for _ in range(60):  # bisection on the exponent of the weighting
        a = (lo + hi) / 2
        runs = total_runs * sizes**a / np.sum(sizes**a)
        if np.sum(runs * sizes) < total_trials:
            lo = a
        else:
            hi = a
    return np.maximum(np.round(runs).astype(int), 4)


def generate(seed: int = 1, scale: float = 1.0, task: Task | None = None) -> Generated:
    """Generate the campaign.

    Parameters
    ----------
    seed:
        Seed of every random choice; the same seed gives the same file.
    scale:
        Fraction of the runs to generate (1.0: ~9,000 runs, ~2.3M trials).
        Every configuration keeps at least 4 runs.
    task:
        Optional progress: advances by the hardware types drawn (13).
    """
    campaign = draw_campaign(seed, scale, task)
    records = _in_time_order(campaign.tables, campaign.starts)
    truth = campaign.truth
    truth["counts"] = {
        "trials": records.num_rows,
        "runs": int(campaign.runs_per_type.sum()),
        "configurations": int(sum(CONFIGS_PER_TYPE)),
        "hardware_types": len(HARDWARE),
        "nodes": int(sum(h[1] for h in HARDWARE)),
    }
    return Generated(records, truth)


def extend(seed: int = 1, scale: float = 1.0, days: int = 1, task: Task | None = None
           ) -> Generated:
    """The ``days`` days after the campaign of ``seed`` and ``scale`` ended (its days
    :data:`SPAN_DAYS` to :data:`SPAN_DAYS` + ``days``), records only.

    Each hardware type runs as many runs a day as it did on average (a Poisson count),
    on its own nodes, with its planted effects; run ids name the day
    (``c220g5-d270-r003``) and ``run_index`` continues after the campaign's last run.
    The truth lists what is planted, as :func:`generate` does, and ``extension``: the
    days and the counts of the new records.
    """
    campaign = draw_campaign(seed, scale, task)  # the models, drawn as the campaign drew them
    first_run = int(campaign.runs_per_type.sum())
    tables: list[pa.Table] = []
    starts: list[np.ndarray] = []
    first_day = int(SPAN_DAYS)
    for day in range(first_day, first_day + days):
        for model in campaign.models:
            rng = np.random.default_rng([seed, day, model.h])
            n_runs = int(rng.poisson(campaign.runs_per_type[model.h] / SPAN_DAYS))
            if n_runs == 0:
                continue
            runs = draw_runs(rng, model, n_runs, day * DAY_S, (day + 1) * DAY_S)
            names = [f"{model.hw}-d{day}-r{r:03d}" for r in range(n_runs)]
            tables.append(trials_table(rng, model, runs, names))
            starts.append(runs.starts)
    if not tables:
        from perfwarehouse.errors import UsageError

        raise UsageError(f"no run falls in {days} day(s) at --scale {scale:g}: extend by "
                         "more days or generate at a larger scale")
    records = _in_time_order(tables, starts, first_run)
    truth = campaign.truth
    truth["extension"] = {
        "first_day": first_day, "days": days, "from": _iso(first_day),
        "until": _iso(first_day + days), "trials": records.num_rows,
        "runs": int(sum(len(s) for s in starts)), "first_run_index": first_run,
    }
    return Generated(records, truth)


def _iso(day: int) -> str:
    """The start of the campaign's day ``day`` (0: :data:`START`), RFC 3339."""
    return (START + timedelta(days=day)).isoformat().replace("+00:00", "Z")


@dataclass
class Campaign:
    """The campaign as drawn: each hardware type's :class:`Model`, records and run starts
    (seconds after :data:`START`), and the truth without its counts."""

    models: list[Model]
    runs_per_type: np.ndarray
    tables: list[pa.Table]
    starts: list[np.ndarray]
    truth: dict[str, Any]


def draw_campaign(seed: int, scale: float, task: Task | None = None) -> Campaign:
    """Every hardware type's model, runs and trials, drawn from one generator seeded by
    ``seed`` in a fixed order (so the same seed gives the same campaign)."""
    rng = np.random.default_rng(seed)
    runs_per_type = _runs_per_type(int(round(9000 * scale)), int(round(2_300_000 * scale)))
    truth: dict[str, Any] = {
        "generator": "ordersage-longterm", "seed": seed, "scale": scale, "campaign": CAMPAIGN,
        "order_dependent": [], "polluters": [], "drifting": [], "seasonality": [],
        "node_offset_sd_pct": {},
    }
    out = Campaign([], runs_per_type, [], [], truth)
    run_counter = 0
    for h, hardware in enumerate(HARDWARE):
        model = draw_model(rng, h, hardware)
        truth["node_offset_sd_pct"][model.hw] = round(100 * model.node_sd, 3)
        runs = draw_runs(rng, model, int(runs_per_type[h]), 0.0, SPAN_DAYS * DAY_S)
        names = [f"{model.hw}-r{run_counter + r:05d}" for r in range(len(runs.starts))]
        out.models.append(model)
        out.tables.append(trials_table(rng, model, runs, names))
        out.starts.append(runs.starts)
        _record_truth(truth, model)
        run_counter += int(runs_per_type[h])
        if task is not None:
            task.update(completed=h + 1, total=len(HARDWARE))
    return out


def _record_truth(truth: dict[str, Any], m: Model) -> None:
    """Expected effect sizes of what was planted, in the units the analyses report.

    ``expected_delta_pct`` is the expected Δ% = (mean_fixed - mean_random)/mean_fixed
    x 100 of the *performance factor* (positive: fixed order performs better);
    for lower-is-better metrics the value moves the other way.
    """
    hw, tests, test_of_config, n_tests = m.hw, m.tests, m.test_of_config, m.n_tests
    metrics_of_test = [BENCHMARKS[t.bench][2] for t in tests]
    polluters, polluter_delta, drift = m.polluters, m.polluter_delta, m.drift
    season_daily, season_weekly = m.season[:2]

    def key(c: int) -> dict[str, Any]:
        test = tests[test_of_config[c]]
        metric = metrics_of_test[test_of_config[c]][
            c - int(np.searchsorted(test_of_config, test_of_config[c]))
        ]
        return {"benchmark": BENCHMARKS[test.bench][0], "settings": settings_json(test.settings),
                "metric": metric, "hardware_type": hw}

    polluter_after = {int(p) + 1: float(d) for p, d in zip(polluters, polluter_delta)}
    for c in range(len(test_of_config)):
        t = int(test_of_config[c])
        fixed_pos = t / max(n_tests - 1, 1)
        position_part = m.position_gamma[t] * (0.5 - fixed_pos)
        # in fixed order test t always follows test t-1; in random order any
        # given predecessor occurs with probability 1/n_tests
        polluter_part = -polluter_after.get(t, 0.0) * (1 - 1 / n_tests)
        expected = 100 * (position_part + polluter_part)
        if abs(expected) >= 1.0:
            truth["order_dependent"].append({
                **key(c), "expected_delta_pct": round(expected, 3),
                "cause": "predecessor" if polluter_part else "position",
            })
        if drift[c]:
            truth["drifting"].append({**key(c), "slope_pct_per_30d": round(float(drift[c]), 3)})
    for p, d in zip(polluters, polluter_delta):
        test = tests[int(p)]
        truth["polluters"].append({
            "hardware_type": hw, "benchmark": BENCHMARKS[test.bench][0],
            "settings": settings_json(test.settings), "slows_next_by_pct": round(100 * d, 2),
        })
    if season_daily:
        truth["seasonality"].append(
            {"hardware_type": hw, "period": "1 day", "period_s": DAY_S,
             "amplitude_pct": round(100 * season_daily, 2)})
    if season_weekly:
        truth["seasonality"].append(
            {"hardware_type": hw, "period": "7 days", "period_s": 7 * DAY_S,
             "amplitude_pct": round(100 * season_weekly, 2)})


def _in_time_order(tables: list[pa.Table], starts: list[np.ndarray], first_run: int = 0
                   ) -> pa.Table:
    """One table, records in start-time order, run_index = ``first_run`` + the rank of a
    run's start (OrderSage 2022 style: runs of all types are interleaved in time)."""
    rank = np.empty(sum(len(s) for s in starts), dtype=np.int32)
    rank[np.argsort(np.concatenate(starts), kind="stable")] = np.arange(
        first_run, first_run + len(rank), dtype=np.int32)
    offsets = np.cumsum([0] + [len(s) for s in starts])
    index = tables[0].schema.get_field_index("run_index")
    tables = [t.set_column(index, "run_index",
                           pa.array(rank[o + t.column("run_index").to_numpy()]))
              for t, o in zip(tables, offsets)]
    records = pa.concat_tables(tables)
    key_time = records.column("started_at").cast(pa.int64()).to_numpy()
    key_run = records.column("run_index").to_numpy()
    key_metric = np.concatenate([c.indices.to_numpy() for c in records.column("metric").chunks])
    return records.take(np.lexsort((key_metric, key_run, key_time)))
