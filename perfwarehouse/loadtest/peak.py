"""The peak of one configuration family's load curve (the ``peak_rate`` table of
:func:`perfwarehouse.loadtest.curve.analyse`).

Closed loop: the highest throughput with its CI, the N at the peak, the knee (smallest N
reaching ``knee_fraction`` of the peak) and whether throughput falls after the peak (a
larger N whose CI lies wholly below the peak's); with ``ci_method="t"`` the peak's CI is
simultaneous over the family's k consistent levels (Bonferroni, each at 1 - (1 - c)/k).
Open loop: the peak rate lambda* of Shivam et al. ("Cutting Corners: Workbench
Automation for Server Benchmarking", USENIX ATC 2008, sections 2 and 3), the highest
offered rate whose response time does not exceed R_sat, with the bracket of loads that
are surely below / above R_sat at the confidence and the response time at lambda* with
its CI and accuracy (equation 2).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from perfwarehouse.loadtest import intervals
from perfwarehouse.loadtest.parameters import PERCENTILES, Options
from perfwarehouse.loadtest.results import PEAK_FIELDS
from perfwarehouse.stats import means


# ---------------------------------------------------------------- utilities
def _f(table: pa.Table, name: str) -> np.ndarray:
    if name not in table.column_names:
        return np.full(table.num_rows, np.nan)
    col = table.column(name)
    if pa.types.is_null(col.type):
        return np.full(table.num_rows, np.nan)
    return np.asarray(pc.cast(col, pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64)


def _response_name(options: Options) -> str:
    if options.percentile is None:
        return "mean"
    return {p: k for k, p in PERCENTILES}[options.percentile]


def peak_rate(curve: pa.Table, options: Options,
              notes: dict[tuple[object, ...], str] | None = None,
              mixed: dict[tuple[object, ...], str] | None = None) -> pa.Table:
    """One row per family of ``curve`` (a ``load_curve`` table): see the module docstring.
    ``notes`` (family key -> text) is added to the family's ``reason``; ``mixed`` (the
    families whose repetitions mix several systems, :mod:`.mixing`) begins it."""
    rows: list[dict[str, object]] = []
    if curve.num_rows == 0:
        return pa.Table.from_pylist([], schema=pa.schema(PEAK_FIELDS))
    cols = {k: curve.column(k).to_pylist() for k in (
        "campaign", "hardware_type", "benchmark", "family", "loop", "consistent")}
    num = {k: _f(curve, k).tolist() for k in ("load", "throughput", "throughput_low",
                                               "throughput_high", "clients", "n_used")}
    resp_name = _response_name(options)
    prefix = "mean" if resp_name == "mean" else resp_name
    resp = tuple(_f(curve, f"{prefix}{suffix}").tolist()
                 for suffix in ("_ms", "_low_ms", "_high_ms"))
    fam_key = list(zip(cols["campaign"], cols["hardware_type"], cols["benchmark"],
                       cols["family"], cols["loop"]))
    bounds = [0] + [i for i in range(1, len(fam_key)) if fam_key[i] != fam_key[i - 1]] \
        + [len(fam_key)]
    for a, b in zip(bounds[:-1], bounds[1:]):
        ok = [i for i in range(a, b) if cols["consistent"][i]]
        row: dict[str, object] = dict(zip(("campaign", "hardware_type", "benchmark", "family",
                                           "loop"), fam_key[a]))
        row.update(n_levels=b - a, n_inconsistent_levels=(b - a) - len(ok),
                   confidence=options.confidence)
        if fam_key[a][4] == "closed":
            row.update(_closed_peak(ok, num, options))
        else:
            row.update(_open_peak(ok, num["load"], resp, resp_name, options))
        note = (notes or {}).get(fam_key[a])
        if note:
            row["reason"] = f"{row['reason']}; {note}" if row.get("reason") else note
        if (mix := (mixed or {}).get(fam_key[a])):
            row["reason"] = f"{mix}; {row['reason']}" if row.get("reason") else mix
        rows.append(row)
    return pa.Table.from_pylist(rows, schema=pa.schema(PEAK_FIELDS))


def _none(x: float) -> float | None:
    return None if x is None or math.isnan(x) else float(x)


@lru_cache(maxsize=4096)
def _critical(confidence: float, n: float) -> float:
    # n is a count held as a float: critical_value takes any number (np.asarray, float64)
    return float(means.critical_value(confidence, n))  # type: ignore[arg-type]


#: The reason of a closed-loop family with one trial per load level (falls_after_peak null).
SINGLE_RUNS = ("peak and fall not established: one trial per load level; repeat each level "
               ">= 3 times")


def _closed_peak(ok: list[int], num: dict[str, list[float]], options: Options
                 ) -> dict[str, object]:
    x = num["throughput"]
    cand = [i for i in ok if not math.isnan(x[i])]
    if not cand:
        return {"reason": "no consistent load level with a throughput"}
    peak = max(cand, key=lambda i: x[i])
    level = options.knee_fraction * x[peak]
    knee = min((i for i in cand if x[i] >= level), key=lambda i: num["clients"][i])
    after = [i for i in cand if num["clients"][i] > num["clients"][peak]]
    last = max(cand, key=lambda i: num["clients"][i])
    falls: bool | None = False
    for i in after:
        hi, lo_peak = num["throughput_high"][i], num["throughput_low"][peak]
        if not math.isnan(hi) and not math.isnan(lo_peak):
            falls = falls or hi < lo_peak
        else:
            falls = falls or x[i] < level
    low, high = num["throughput_low"][peak], num["throughput_high"][peak]
    if options.ci_method == "t" and len(cand) > 1 and not math.isnan(low):
        # the peak is the largest of k noisy levels: widen its CI to the simultaneous
        # (Bonferroni) level 1 - (1 - c)/k, which covers every level's true throughput,
        # hence the true peak, with probability >= c
        n_used = num["n_used"][peak]
        c = options.confidence
        ratio = _critical(1 - (1 - c) / len(cand), n_used) / _critical(c, n_used)
        half = (high - low) / 2 * ratio
        low, high = x[peak] - half, x[peak] + half
    reason = None
    if peak == last:
        reason = "the peak is at the largest N tested: throughput may rise further"
    if all(num["n_used"][i] < 2 for i in cand):
        # one trial per level: no level has a spread, so neither the peak nor a fall after
        # it can be told from run-to-run noise (issue 39: a wrk sweep of 17.6k, 12.2k,
        # 25.3k, 14k req/s is not a peak at N = 4 that falls 56 %)
        falls = None
        reason = SINGLE_RUNS
    return {
        "peak_throughput": float(x[peak]), "peak_low": _none(low), "peak_high": _none(high),
        "peak_clients": _none(num["clients"][peak]), "knee_clients": _none(num["clients"][knee]),
        "knee_fraction": options.knee_fraction, "falls_after_peak": falls,
        "last_throughput": float(x[last]),
        "drop_pct": float((x[last] - x[peak]) / x[peak] * 100.0) if x[peak] else None,
        "reason": reason,
    }


def _open_peak(ok: list[int], load: list[float],
               resp: tuple[list[float], ...], resp_name: str,
               options: Options) -> dict[str, object]:
    out: dict[str, object] = {"response_metric": resp_name, "width": options.width,
                              "r_sat_ms": options.r_sat_ms}
    if options.r_sat_ms is None:
        out["reason"] = "no R_sat given: pass --r-sat MS to find the peak rate"
        return out
    r_sat = options.r_sat_ms
    point, low, high = resp
    cand = sorted((i for i in ok if not math.isnan(point[i])), key=lambda i: load[i])
    if not cand:
        out["reason"] = "no consistent load level with a response time"
        return out
    under = [i for i in cand if point[i] <= r_sat]
    sure_under = [i for i in cand if not math.isnan(high[i]) and high[i] <= r_sat]
    if sure_under:
        out["lambda_low"] = float(load[max(sure_under, key=lambda i: load[i])])
    if not under:
        out["reason"] = (f"every load tested exceeds R_sat = {r_sat:g} ms: test lower loads")
        above = [i for i in cand if not math.isnan(low[i]) and low[i] > r_sat]
        if above:
            out["lambda_high"] = float(load[above[0]])
        return out
    star = max(under, key=lambda i: load[i])
    above = [i for i in cand if load[i] > load[star] and not math.isnan(low[i])
             and low[i] > r_sat]
    if above:
        out["lambda_high"] = float(load[above[0]])
    region = intervals.region_decision(low[star], high[star], r_sat, options.width)
    out.update(lambda_star=float(load[star]), r_star_ms=float(point[star]),
               r_star_low_ms=_none(low[star]), r_star_high_ms=_none(high[star]),
               accuracy=_none(float(means.accuracy(low[star], high[star]))),
               region=str(region))
    if not above:
        out["reason"] = ("no load tested is surely above R_sat: lambda* may be higher; "
                         "test higher loads")
    elif str(region) == "below":
        out["reason"] = ("lambda* is below the peak-rate region: the peak lies between "
                         f"{load[star]:g} and {out['lambda_high']:g}; test loads in between")
    return out
