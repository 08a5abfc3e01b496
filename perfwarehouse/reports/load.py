"""The load-test report: peak throughput, peak rate, latency under load, law consistency.

From the tables of job ``load`` (``load_curve``, ``peak_rate``, ``load_law_checks``):
a verdict first (the peak, where, how sure, which points are inconsistent), then
throughput against N with CI bands and the law line X = N/(R + Z) ("On Performance
Evaluation", blog essay, 2019, Figure 2), latency percentiles against the offered load
with the knee and R_sat marked (its Figures 3 and 5; R_sat and lambda* after Shivam et
al., "Cutting Corners", USENIX ATC 2008), each trial's law residual, and the tables.
"""

from __future__ import annotations

import json
import math

import polars as pl
import pyarrow as pa

from perfwarehouse.reports import load_charts
from perfwarehouse.reports.base import ReportData, Request, provenance
from perfwarehouse.reports.charts import config_labels
from perfwarehouse.reports.page import (
    Block,
    Column,
    Figure,
    Missing,
    Notice,
    Page,
    Section,
    capped_table,
)

COMMAND = "perfwarehouse analyze load"
MAX_SCATTER = 4000
"""Trials the consistency scatter shows at most (every inconsistent one, then an even
sample of the rest)."""

INTRO = (
    "Two experiments every evaluation of a server must show (\"On Performance Evaluation\", "
    "2019): the peak throughput, found by raising the number of clients N of a closed-loop "
    "load generator until throughput stops rising, and latency under a varying offered load "
    "(open loop), whose knee is the peak rate λ*: the highest load whose response time stays "
    "at or below a threshold R_sat (Shivam et al., \"Cutting Corners\", USENIX ATC 2008). Each "
    "trial is checked against the operational laws (N = X·(R+Z) closed loop, flow balance "
    "open loop, U = X·S): a trial that breaks them is reported and left out, never silently "
    "used. CIs are over trials at the job's confidence; accuracy = 1 − (high − low)/(high + "
    "low) (Shivam et al., equation 2).")


def build(data: ReportData, request: Request) -> Page:
    runs = data.job_runs("load", request)
    lines = provenance(runs, "load")
    curve = data.results("load_curve", "load_curve", COMMAND, request)
    if isinstance(curve, Missing):
        return Page("Load tests: peak throughput and latency under load", INTRO,
                    (Section("Verdict", "", (curve.notice(),)),), tuple(lines), name="load")
    peaks = data.results("peak_rate", "peak_rate", COMMAND, request)
    checks = data.results("load_law_checks", "load_law_checks", COMMAND, request)
    tolerance = _tolerance(runs)
    c = _with_labels(pl.from_arrow(curve))  # type: ignore[arg-type]
    p = _with_labels(pl.from_arrow(peaks)) if not isinstance(peaks, Missing) else None  # type: ignore[arg-type]
    k = _with_labels(pl.from_arrow(checks)) if not isinstance(checks, Missing) else None  # type: ignore[arg-type]
    sections = [verdict_section(c, p, k, tolerance)]
    sections += curve_sections(c, p)
    if k is not None:
        sections.append(consistency_section(k, tolerance))
    sections.append(tables_section(c, p))
    return Page("Load tests: peak throughput and latency under load", INTRO, tuple(sections),
                tuple(lines), name="load")


def _tolerance(runs: pa.Table) -> float:
    """The law tolerance (%) of the latest job run (10 % if not recorded)."""
    for row in runs.to_pylist():
        try:
            value = float(json.loads(row["params"]).get("law_tolerance", 0.1))
        except (TypeError, ValueError):
            continue
        return value if value >= 1 else value * 100
    return 10.0


def _with_labels(df: pl.DataFrame) -> pl.DataFrame:
    """A ``family_label`` column: benchmark, the settings that differ between families,
    the hardware type when there are several."""
    fams = df.select("benchmark", "family", "hardware_type", "loop").unique(maintain_order=True)
    several = fams["hardware_type"].n_unique() > 1
    loops = fams["loop"].to_list()
    named: dict[int, str] = {}
    for loop in set(loops):  # names tell apart the families of one loop kind
        idx = [i for i, lp in enumerate(loops) if lp == loop]
        part = config_labels([fams["benchmark"][i] for i in idx], [fams["family"][i] for i in idx])
        named.update(zip(idx, part))
    fams = fams.with_columns(family_label=pl.Series(
        [f"{named[i]} @ {hw}" if several else named[i]
         for i, hw in enumerate(fams["hardware_type"].to_list())], dtype=pl.String))
    return df.join(fams.drop("loop"), on=["benchmark", "family", "hardware_type"], how="left")


def _fmt(x: float | None, digits: int = 4) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "?"
    return f"{x:,.{digits}g}" if abs(x) < 1e5 else f"{x:,.0f}"


# ------------------------------------------------------------------ verdict
def verdict_section(curve: pl.DataFrame, peaks: pl.DataFrame | None,
                    checks: pl.DataFrame | None, tolerance: float) -> Section:
    blocks: list[Block] = []
    conf = curve["confidence"][0] if curve.height else 0.95
    for row in (peaks.to_dicts() if peaks is not None else []):
        blocks.append(Notice(_verdict_line(row, conf)))
    if checks is not None:
        bad = checks.filter(pl.col("consistent") == False)  # noqa: E712
        unknown = checks.filter(pl.col("consistent").is_null()).height
        if bad.height:
            where = (bad.group_by("family_label", "loop", "load").agg(n=pl.len())
                     .sort("family_label", "load"))
            spots = "; ".join(
                f"{r['family_label']}: {r['n']} at {'N' if r['loop'] == 'closed' else 'λ'} = "
                f"{_fmt(r['load'])}" for r in where.head(12).to_dicts())
            more = " …" if where.height > 12 else ""
            blocks.append(Notice(
                f"{bad.height:,} of {checks.height:,} trials break the operational laws by more "
                f"than {tolerance:g} % and are left out of the curves and the peak: {spots}{more}. "
                "The table below gives each one with its reason."))
        else:
            blocks.append(Notice(f"All {checks.height:,} trials satisfy the operational laws "
                                 f"within {tolerance:g} %."))
        if unknown:
            blocks.append(Notice(f"{unknown:,} trials could not be checked (no throughput or "
                                 "latency)."))
    if checks is not None:
        bad = checks.filter(pl.col("consistent") == False)  # noqa: E712
        if bad.height:
            blocks.append(capped_table(
                "Inconsistent trials",
                "The operational law each trial breaks, its relative residual and what it "
                "usually means.",
                (Column("family_label", "family"), Column("hardware_type", "hardware type"),
                 Column("loop", "loop"), Column("load", "load", "float"),
                 Column("run_id", "run"), Column("position", "position", "int"),
                 Column("throughput", "X (req/s)", "float"),
                 Column("mean_ms", "R (ms)", "float"), Column("law", "law"),
                 Column("residual_pct", "residual (%)", "pct"), Column("reason", "reason")),
                bad.with_columns(residual_pct=pl.col("residual") * 100), limit=200))
    return Section("Verdict", "", tuple(blocks))


def _verdict_line(row: dict, conf: float) -> str:
    name = f"{row['family_label']} ({row['loop']} loop)"
    if row["loop"] == "closed":
        if row["peak_throughput"] is None:
            return f"{name}: no peak: {row['reason']}."
        ci = (f" ({conf:.0%} CI {_fmt(row['peak_low'])} – {_fmt(row['peak_high'])}, "
              "simultaneous over the levels)" if row["peak_low"] is not None else
              " (no CI: too few trials)")
        text = (f"{name}: peak throughput {_fmt(row['peak_throughput'])} req/s{ci} at "
                f"N = {_fmt(row['peak_clients'])} clients; knee at N = "
                f"{_fmt(row['knee_clients'])} (the first to reach "
                f"{row['knee_fraction']:.0%} of the peak); ")
        text += (f"throughput falls after the peak ({row['drop_pct']:+.0f} % at the largest N): "
                 "per-connection overhead" if row["falls_after_peak"]
                 else "throughput holds after the peak")
        if row["reason"]:
            text += f". Note: {row['reason']}"
        return text + "."
    if row["lambda_star"] is None:
        return f"{name}: no peak rate: {row['reason']}."
    bracket = ""
    if row["lambda_low"] is not None or row["lambda_high"] is not None:
        bracket = (f"; the true peak rate lies between {_fmt(row['lambda_low'])} and "
                   f"{_fmt(row['lambda_high'])} req/s (the loads surely below / above R_sat "
                   f"at {conf:.0%})")
    acc = f", accuracy {row['accuracy']:.0%}" if row["accuracy"] is not None else ""
    text = (f"{name}: peak rate λ* = {_fmt(row['lambda_star'])} req/s: {row['response_metric']} "
            f"response time {_fmt(row['r_star_ms'], 3)} ms (CI {_fmt(row['r_star_low_ms'], 3)} "
            f"– {_fmt(row['r_star_high_ms'], 3)}{acc}) ≤ R_sat = {_fmt(row['r_sat_ms'])} ms"
            f"{bracket}")
    if row["reason"]:
        text += f". Note: {row['reason'].replace('lambda*', 'λ*')}"
    return text + "."


# ------------------------------------------------------------------- curves
def curve_sections(curve: pl.DataFrame, peaks: pl.DataFrame | None) -> list[Section]:
    out: list[Section] = []
    closed = curve.filter(pl.col("loop") == "closed").sort("family_label", "load")
    opened = curve.filter(pl.col("loop") == "open").sort("family_label", "load")
    pk = peaks if peaks is not None else pl.DataFrame()
    if closed.height:
        marks = []
        for row in (pk.filter(pl.col("loop") == "closed").to_dicts() if pk.height else []):
            fam = closed.filter(pl.col("family_label") == row["family_label"])
            for mark, n in (("peak", row["peak_clients"]), ("knee", row["knee_clients"])):
                hit = fam.filter(pl.col("clients") == n)
                if n is not None and hit.height:
                    marks.append({"family_label": row["family_label"], "clients": n,
                                  "throughput": hit["throughput"][0], "mark": mark})
        mark_df = pl.DataFrame(marks, schema={"family_label": pl.String, "clients": pl.Float64,
                                              "throughput": pl.Float64, "mark": pl.String})
        blocks: list[Block] = [Figure(load_charts.throughput_curve(
            closed, mark_df, title="Throughput against the number of clients (closed loop)"),
            "load-throughput")]
        knees = pl.DataFrame(
            [{"family_label": m["family_label"], "x": m["clients"], "label": "knee"}
             for m in marks if m["mark"] == "knee"],
            schema={"family_label": pl.String, "x": pl.Float64, "label": pl.String})
        blocks.append(Figure(load_charts.latency_curve(
            _long_latency(closed.filter(pl.col("consistent")), "clients"), title="Latency against the number of clients "
            "(closed loop)", x_field="N", x_title="clients N (log scale)", r_sat_ms=None,
            knees=knees, log_x=True), "load-latency-closed"))
        out.append(Section(
            "Peak throughput (closed loop)",
            "Varying N finds the peak: throughput rises with N until the server saturates, "
            "then holds (the system is self-stabilising: R grows instead) or falls from "
            "per-connection overhead. The dashed law line X = N/(R+Z) is a consistency check "
            "of the two measured quantities.", tuple(blocks)))
    if opened.height:
        r_sat = None
        knees_rows = []
        metric = "mean"
        for row in (pk.filter(pl.col("loop") == "open").to_dicts() if pk.height else []):
            r_sat = row["r_sat_ms"] if row["r_sat_ms"] is not None else r_sat
            metric = row["response_metric"] or metric
            if row["lambda_star"] is not None:
                knees_rows.append({"family_label": row["family_label"],
                                   "x": row["lambda_star"], "label": "λ*"})
        knees = pl.DataFrame(knees_rows, schema={"family_label": pl.String, "x": pl.Float64,
                                                 "label": pl.String})
        blocks = [Figure(load_charts.latency_curve(
            _long_latency(opened.filter(pl.col("consistent")), "rate_rps"), title="Latency against the offered load "
            "(open loop)", x_field="rate (req/s)", x_title="offered load λ (req/s)",
            r_sat_ms=r_sat, knees=knees, log_x=False), "load-latency-open")]
        left_out = opened.filter(~pl.col("consistent"))
        if left_out.height:
            blocks.append(Notice(
                "Not drawn (every trial inconsistent, no steady state): "
                + ", ".join(f"{r['family_label']} at {_fmt(r['load'])} req/s"
                            for r in left_out.head(20).to_dicts()) + "."))
        if r_sat is None:
            blocks.append(Notice("No R_sat was given: run `perfwarehouse analyze load --r-sat MS` "
                                 "to find the peak rate λ*."))
        out.append(Section(
            "Latency under load (open loop)",
            f"Response time against the offered load: it shoots up at the knee as the "
            f"server saturates. λ* is the highest load whose {metric} response time stays at "
            "or below R_sat; levels whose trials break flow balance (the server did not keep "
            "up) are shown with their trials' numbers but take no part in λ*.",
            tuple(blocks)))
    return out


def _long_latency(df: pl.DataFrame, x: str) -> pl.DataFrame:
    parts = [df.select("family_label", pl.col(x).alias("x"), stat=pl.lit("mean"),
                       ms=pl.col("mean_ms"), low_ms=pl.col("mean_low_ms"),
                       high_ms=pl.col("mean_high_ms"))]
    for col, name in (("p50", "p50"), ("p90", "p90"), ("p99", "p99"), ("p999", "p99.9")):
        parts.append(df.select("family_label", pl.col(x).alias("x"), stat=pl.lit(name),
                               ms=pl.col(f"{col}_ms"), low_ms=pl.col(f"{col}_low_ms"),
                               high_ms=pl.col(f"{col}_high_ms")))
    return pl.concat(parts).filter(pl.col("ms").is_not_null() & (pl.col("ms") > 0))


# -------------------------------------------------------------- consistency
def consistency_section(checks: pl.DataFrame, tolerance: float) -> Section:
    df = checks.filter(pl.col("residual").is_not_null() & pl.col("load").is_not_null()).select(
        "family_label", "run_id", "position", "law", "reason", "loop",
        x=pl.col("load"), residual_pct=pl.col("residual") * 100,
        status=pl.when(pl.col("consistent").is_null()).then(pl.lit("not checked"))
        .when(pl.col("consistent")).then(pl.lit("consistent"))
        .otherwise(pl.lit("inconsistent")))
    blocks: list[Block] = []
    for loop, what, x_title, log_x in (
            ("closed", "closed loop: X·(R+Z)/N − 1", "clients N (log scale)", True),
            ("open", "open loop: completions/arrivals − 1", "offered load λ (req/s)", False)):
        part = df.filter(pl.col("loop") == loop)
        if part.height == 0:
            continue
        if part.height > MAX_SCATTER:
            bad = part.filter(pl.col("status") != "consistent")
            good = part.filter(pl.col("status") == "consistent")
            step = max(1, good.height // max(1, MAX_SCATTER - bad.height))
            part = pl.concat([bad, good.gather_every(step)])
            blocks.append(Notice(f"{loop} loop: every inconsistent trial and every {step}th "
                                 "consistent one are drawn."))
        blocks.append(Figure(load_charts.consistency_scatter(
            part, title=f"Operational-law residual of every trial ({what})",
            tolerance_pct=tolerance, x_title=x_title, log_x=log_x), f"load-consistency-{loop}"))
    return Section(
        "Consistency of the measurements",
        "The operational laws hold exactly for measured quantities, whatever the "
        "distributions (Denning and Buzen 1978), so they check a measurement: a closed-loop "
        "trial whose X·(R+Z) is well below N had fewer requests in flight than clients (the "
        "load generator was the bottleneck); an open-loop trial with fewer completions than "
        "arrivals did not reach a steady state.", tuple(blocks))


# ------------------------------------------------------------------- tables
def tables_section(curve: pl.DataFrame, peaks: pl.DataFrame | None) -> Section:
    blocks: list[Block] = []
    closed = peaks.filter(pl.col("loop") == "closed") if peaks is not None else None
    opened = peaks.filter(pl.col("loop") == "open") if peaks is not None else None
    if closed is not None and closed.height:
        blocks.append(capped_table(
            "Peak throughput (closed loop)",
            "The peak with its CI (simultaneous over the family's levels), N at the peak, the "
            "knee and the change at the largest N.",
            (Column("family_label", "family"), Column("hardware_type", "hardware type"),
             Column("n_levels", "levels", "int"),
             Column("n_inconsistent_levels", "inconsistent levels", "int"),
             Column("peak_throughput", "peak X (req/s)", "float"),
             Column("peak_low", "CI low", "float"), Column("peak_high", "CI high", "float"),
             Column("peak_clients", "N at peak", "float"),
             Column("knee_clients", "knee N", "float"),
             Column("falls_after_peak", "falls after", "bool"),
             Column("drop_pct", "change at max N (%)", "pct"), Column("reason", "note")),
            closed))
    if opened is not None and opened.height:
        blocks.append(capped_table(
            "Peak rate (open loop)",
            "λ*, the loads surely below / above R_sat, the response time at λ* with its CI, "
            "its accuracy (equation 2) and its place against the peak-rate region "
            "[R_sat ± s·R_sat].",
            (Column("family_label", "family"), Column("hardware_type", "hardware type"),
             Column("n_levels", "levels", "int"),
             Column("n_inconsistent_levels", "inconsistent levels", "int"),
             Column("r_sat_ms", "R_sat (ms)", "float"),
             Column("response_metric", "judged by"),
             Column("lambda_star", "λ* (req/s)", "float"),
             Column("lambda_low", "surely below (req/s)", "float"),
             Column("lambda_high", "surely above (req/s)", "float"),
             Column("r_star_ms", "R at λ* (ms)", "float"),
             Column("r_star_low_ms", "CI low", "float"),
             Column("r_star_high_ms", "CI high", "float"),
             Column("accuracy_pct", "accuracy (%)", "pct"), Column("region", "region"),
             Column("reason", "note")),
            opened.with_columns(accuracy_pct=pl.col("accuracy") * 100)))
    blocks.append(capped_table(
        "Load curve",
        "Per family and load level: trials (used = consistent), throughput and response time "
        "over trials with their CIs, pooled latency percentiles, error rate, the median law "
        "residual and the peak-region decision.",
        (Column("family_label", "family"), Column("hardware_type", "hardware type"),
         Column("loop", "loop"), Column("load", "load", "float"),
         Column("n_trials", "trials", "int"), Column("n_used", "used", "int"),
         Column("throughput", "X (req/s)", "float"),
         Column("throughput_low", "X low", "float"), Column("throughput_high", "X high", "float"),
         Column("throughput_law", "N/(R+Z)", "float"),
         Column("mean_ms", "mean R (ms)", "float"), Column("mean_low_ms", "R low", "float"),
         Column("mean_high_ms", "R high", "float"),
         Column("p50_ms", "p50 (ms)", "float"), Column("p99_ms", "p99 (ms)", "float"),
         Column("p99_low_ms", "p99 low", "float"), Column("p99_high_ms", "p99 high", "float"),
         Column("p999_ms", "p99.9 (ms)", "float"), Column("latency_source", "percentiles from"),
         Column("error_rate_pct", "errors (%)", "pct"),
         Column("law_residual_pct", "law residual (%)", "pct"),
         Column("region", "region"), Column("reason", "inconsistent trials")),
        curve.with_columns(error_rate_pct=pl.col("error_rate") * 100,
                           law_residual_pct=pl.col("law_residual") * 100)))
    return Section("Tables", "", tuple(blocks))
