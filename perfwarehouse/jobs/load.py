"""Job ``load``: load curves, operational-law checks and peak rates of load-test trials.

Query ``sql/queries/load_trials.sql`` (one row per trial, with its latency
distribution from ``latency_histograms``), method :func:`perfwarehouse.loadtest.curve.analyse`,
outputs ``load_curve``, ``peak_rate`` and ``load_law_checks`` (declared in
``perfwarehouse/warehouse/contracts.py``; the catalog conforms the method's tables to
them). The closed-loop peak
throughput and knee follow "On Performance Evaluation" (blog essay, 2019, Figure 2 and
"Two Experiments You Must Do"); the open-loop peak rate lambda*, R_sat, the width s and
the accuracy follow Shivam et al., "Cutting Corners: Workbench Automation for Server
Benchmarking", USENIX ATC 2008, sections 2-3 and equations 1-2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pyarrow as pa

from perfwarehouse.errors import UsageError
from perfwarehouse.jobs.framework import Job, JobParams, Tables, param
from perfwarehouse.stats.fractions import confidence as as_confidence
from perfwarehouse.stats.fractions import fraction

QUERY = "load_trials"
PERCENTILE_CHOICES = ("50", "90", "99", "99.9")


@dataclass(frozen=True)
class LoadParams(JobParams):
    confidence: float = param(0.95, "Confidence of every CI (a fraction, or percent).")
    law_tolerance: float = param(
        0.10, "Largest relative residual of an operational law (N = X(R+Z), flow balance, "
              "U = XS) for a consistent trial (a fraction, or percent).")
    r_sat: float | str | None = param(
        None, "Response-time threshold R_sat in ms for the open-loop peak rate lambda* "
              "(Shivam et al.); without it no lambda* is computed.", type=float)
    width: float = param(0.10, "Width s of the peak-rate region [R_sat -+ s R_sat] "
                               "(a fraction, or percent).")
    percentile: str | None = param(
        None, "Judge saturation by this latency percentile instead of the mean.",
        choices=PERCENTILE_CHOICES)
    ci_method: str = param("t", "CIs over trials: t = mean with Student's t; rank = median "
                                "with order statistics (needs >= 6 trials at 95 %).",
                           choices=("t", "rank"))


def options(params: LoadParams) -> object:
    """The method's options from the job parameters (one-line errors for bad ones)."""
    from perfwarehouse.loadtest import Options

    r_sat = None
    if params.r_sat not in (None, ""):
        try:
            r_sat = float(params.r_sat)
        except ValueError:
            raise UsageError(f"--r-sat must be a number of milliseconds, got {params.r_sat!r}") \
                from None
        if not r_sat > 0 or not math.isfinite(r_sat):
            raise UsageError(f"--r-sat must be a positive number of milliseconds, got {r_sat}")
    width = fraction(params.width, "--width", zero=True)
    confidence = as_confidence(params.confidence, "--confidence")
    law_tolerance = fraction(params.law_tolerance, "--law-tolerance")
    try:
        return Options(confidence=confidence, law_tolerance=law_tolerance,
                       r_sat_ms=r_sat, width=width,
                       percentile=None if params.percentile is None else float(params.percentile),
                       ci_method=params.ci_method)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def compute(table: pa.Table, params: LoadParams) -> Tables:
    from perfwarehouse.loadtest.curve import analyse

    return analyse(table, options(params))  # type: ignore[arg-type]


def family_label(benchmark: str, family: str, loop: str | None) -> str:
    """``benchmark (generator, closed loop; key=value ...)``: a family in words."""
    from perfwarehouse.loadtest.settings import settings_object

    obj = settings_object(family)
    parts = [str(obj.pop("generator"))] if "generator" in obj else []
    obj.pop("loop", None)
    if loop:
        parts.append(f"{loop} loop")
    rest = " ".join(f"{k}={v}" for k, v in sorted(obj.items()))
    return f"{benchmark} ({', '.join(parts)}{'; ' + rest if rest else ''})"


def unplaced(checks: pa.Table) -> list[str]:
    """One line per generator whose load-test trials have no load (the tool's output does
    not state it and no --setting gave it): they are on no curve, and say so."""
    counts: dict[tuple[str, str | None], int] = {}
    if checks.num_rows == 0:
        return []
    loads = checks.column("load").to_pylist()
    loops = checks.column("loop").to_pylist()
    families = checks.column("family").to_pylist()
    import json

    for load, loop, family in zip(loads, loops, families):
        if load is not None:
            continue
        try:
            tool = json.loads(family).get("generator")
        except (ValueError, AttributeError):
            tool = None
        if loop is None and tool is None:
            continue  # not a load generator's trial at all
        counts[(tool or "?", loop)] = counts.get((tool or "?", loop), 0) + 1
    hint = {"closed": "--setting clients=N",
            "open": "--setting rate_rps=R",
            None: "--setting loop=closed --setting clients=N (--setting loop=open "
                  "--setting rate_rps=R for a rate)"}
    out = []
    for (tool, loop), k in sorted(counts.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
        what = "a load level" if loop else "a load model or level"
        out.append(f"{k:,} {tool} trial{'s' if k > 1 else ''} without {what} "
                   f"{'are' if k > 1 else 'is'} on no curve: the output does not state it; "
                   f"ingest it with the command line saved above the output or {hint[loop]}")
    return out


def summarize(tables: Tables, params: LoadParams) -> list[str]:
    curve, peaks, checks = tables["load_curve"], tables["peak_rate"], tables["load_law_checks"]
    if curve.num_rows == 0:
        return ["load: no load-test trials (settings with loop = open or closed)"] + [
            "  " + line for line in unplaced(checks)]
    bad = sum(1 for c in checks.column("consistent").to_pylist() if c is False)
    lines = [f"load: {checks.num_rows:,} trials at {curve.num_rows:,} load levels of "
             f"{peaks.num_rows:,} families; {bad:,} trials inconsistent with the operational "
             f"laws (tolerance {options(params).law_tolerance:.0%})"]  # type: ignore[attr-defined]
    lines += ["  " + line for line in unplaced(checks)]
    for row in peaks.slice(0, 10).to_pylist():
        name = (f"{family_label(row['benchmark'], row['family'], row['loop'])} "
                f"on {row['hardware_type']}")
        if (row["reason"] or "").startswith("mixed"):
            name += " (MIXED: the peak mixes several systems)"
        if row["loop"] == "closed" and row["peak_throughput"] is not None:
            ci = (f" [{max(row['peak_low'], 0.0):.4g}, {row['peak_high']:.4g}]"
                  if row["peak_low"] is not None else "")
            lines.append(f"  {name}: peak {row['peak_throughput']:.4g} req/s{ci} at N = "
                         f"{row['peak_clients']:g}, knee N = {row['knee_clients']:g}"
                         + ("; falls after the peak" if row["falls_after_peak"] else ""))
        elif row["loop"] == "open" and row["lambda_star"] is not None:
            lines.append(f"  {name}: lambda* = {row['lambda_star']:g} req/s "
                         f"({row['response_metric']} {row['r_star_ms']:.3g} ms <= R_sat "
                         f"{row['r_sat_ms']:g} ms)")
        else:
            lines.append(f"  {name}: {row['reason']}")
            continue
        if row["reason"]:
            lines.append(f"    {row['reason']}")
    if peaks.num_rows > 10:
        lines.append(f"  ... and {peaks.num_rows - 10:,} more families (table peak_rate)")
    return lines


JOB = Job(
    name="load",
    help="Load-test campaigns: load curve per family and load level with CIs, operational-law "
         "checks (N = X(R+Z), flow balance, U = XS) and the peak throughput / peak rate "
         "lambda* (On Performance Evaluation 2019; Shivam et al., USENIX ATC 2008).",
    params=LoadParams,
    query=QUERY,
    compute=compute,
    outputs=("load_curve", "peak_rate", "load_law_checks"),
    summarize=summarize,
    catalog_tables=("latency_histograms",),
)
