"""The load-test report: peak throughput, peak rate, latency under load, law consistency,
and the workbench controller's searches.

From the tables of job ``load`` (``load_curve``, ``peak_rate``, ``load_law_checks``):
a verdict first (the peak, where, how sure, which points are inconsistent), then
throughput against N with CI bands and the law line X = N/(R + Z) ("On Performance
Evaluation", blog essay, 2019, Figure 2), latency percentiles against the offered load
with the knee and R_sat marked (its Figures 3 and 5; R_sat and lambda* after Shivam et
al., "Cutting Corners", USENIX ATC 2008), each trial's law residual, and the tables.
When the warehouse holds searches of the workbench controller (``agent peak-rate``,
``agent surface``) and the table ``response_surface`` (job ``surface``), the page also
has the sections of :mod:`perfwarehouse.reports.workbench`; the verdict is made by
:mod:`perfwarehouse.reports.load_verdict`, the families named by
:mod:`perfwarehouse.reports.load_labels`.

:func:`build` is the query step (the report queries ``sql/queries/report_*.sql``);
:func:`build_page` makes the page from their rows and nothing else.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import polars as pl
import pyarrow as pa

from perfwarehouse.reports import load_charts
from perfwarehouse.reports.base import Report, ReportData, Request, provenance
from perfwarehouse.reports.columns import col
from perfwarehouse.reports.load_labels import short_number, with_labels
from perfwarehouse.reports.load_verdict import short_verdict, verdict_section
from perfwarehouse.reports.page import (
    Block,
    Figure,
    Missing,
    Notice,
    Page,
    Section,
    capped_table,
)
from perfwarehouse.reports.workbench import workbench_sections

COMMAND = "perfwarehouse analyze load"
TITLE = "Load tests: peak throughput and latency under load"
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
    "low) (Shivam et al., equation 2). Searches of the workbench controller (`agent "
    "peak-rate`, `agent surface`) are shown as their trace and their cost per policy "
    "(Shivam et al., Figures 7 and 8), and the response surface of λ* once `analyze surface` "
    "has fitted it (section 5.5).")


@dataclass(frozen=True)
class LoadFrames:
    """The rows the page is made from, as the report queries return them: the tables of
    job ``load`` (a :class:`Missing` when it has not run), the workbench controller's
    searches and trials, and the latest ``response_surface`` (None: no such rows)."""

    curve: pa.Table | Missing
    peaks: pa.Table | Missing | None = None
    checks: pa.Table | Missing | None = None
    tolerance: float = 10.0
    searches: pa.Table | None = None
    trials: pa.Table | None = None
    surface: pa.Table | None = None
    provenance: tuple[str, ...] = ()


def build(data: ReportData, request: Request) -> Page:
    """The query step: the rows of the report queries, then :func:`build_page`."""
    runs = data.job_runs("load", request)
    lines = provenance(runs, "load")
    curve = data.results("load_curve", "load_curve", COMMAND, request)
    peaks = checks = None
    if not isinstance(curve, Missing):
        peaks = data.results("peak_rate", "peak_rate", COMMAND, request)
        checks = data.results("load_law_checks", "load_law_checks", COMMAND, request)
    searches = data.query("workbench_searches", campaign=request.campaign)
    trials = (data.query("workbench_trials", campaign=request.campaign)
              if searches.num_rows else None)
    surface = (data.query("response_surface", campaign=request.campaign)
               if data.has_table("response_surface") else None)
    if surface is not None and surface.num_rows:
        lines += provenance(data.job_runs("surface", request), "surface")
    return build_page(LoadFrames(curve, peaks, checks, _tolerance(runs), searches, trials,
                                 surface, tuple(lines)))


def build_page(frames: LoadFrames) -> Page:
    """The page from the rows of the report queries (pure)."""
    workbench = workbench_sections(frames.searches, frames.trials, frames.surface)
    if isinstance(frames.curve, Missing):
        return Page(TITLE, INTRO, (Section("Verdict", "", (frames.curve.notice(),)),
                                   *workbench), frames.provenance, name="load")
    c = with_labels(pl.from_arrow(frames.curve))  # type: ignore[arg-type]
    p, k = (with_labels(pl.from_arrow(t)) if isinstance(t, pa.Table) else None  # type: ignore[arg-type]
            for t in (frames.peaks, frames.checks))
    sections = [verdict_section(c, p, k, frames.tolerance)]
    sections += curve_sections(c, p)
    if k is not None:
        sections.append(consistency_section(k, frames.tolerance))
    sections += workbench
    sections.append(tables_section(c, p))
    return Page(TITLE, INTRO, tuple(sections), frames.provenance, name="load",
                verdict=short_verdict(p, k))


def _tolerance(runs: pa.Table) -> float:
    """The law tolerance (%) of the latest job run (10 % if not recorded)."""
    for row in runs.to_pylist():
        try:
            value = float(json.loads(row["params"]).get("law_tolerance", 0.1))
        except (TypeError, ValueError):
            continue
        return value if value >= 1 else value * 100
    return 10.0


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
                if n is None:  # no peak: nothing to mark (and no comparison with None)
                    continue
                hit = fam.filter(pl.col("clients") == n)
                if hit.height:
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
                + ", ".join(f"{r['family_label']} at {short_number(r['load'])} req/s"
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
    for stat, name in (("p50", "p50"), ("p90", "p90"), ("p99", "p99"), ("p999", "p99.9")):
        parts.append(df.select("family_label", pl.col(x).alias("x"), stat=pl.lit(name),
                               ms=pl.col(f"{stat}_ms"), low_ms=pl.col(f"{stat}_low_ms"),
                               high_ms=pl.col(f"{stat}_high_ms")))
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
            (col("family_label"), col("hardware_type"),
             col("n_levels"),
             col("n_inconsistent_levels"),
             col("peak_throughput"),
             col("peak_low"), col("peak_high"),
             col("peak_clients"),
             col("knee_clients"),
             col("falls_after_peak"),
             col("drop_pct"), col("reason_note")),
            closed))
    if opened is not None and opened.height:
        blocks.append(capped_table(
            "Peak rate (open loop)",
            "λ*, the loads surely below / above R_sat, the response time at λ* with its CI, "
            "its accuracy (equation 2) and its place against the peak-rate region "
            "[R_sat ± s·R_sat].",
            (col("family_label"), col("hardware_type"),
             col("n_levels"),
             col("n_inconsistent_levels"),
             col("r_sat_ms"),
             col("response_metric"),
             col("lambda_star_rps"),
             col("lambda_low"),
             col("lambda_high"),
             col("r_star_ms"),
             col("r_star_low_ms"),
             col("r_star_high_ms"),
             col("accuracy_pct"), col("region"),
             col("reason_note")),
            opened.with_columns(accuracy_pct=pl.col("accuracy") * 100)))
    blocks.append(capped_table(
        "Load curve",
        "Per family and load level: trials (used = consistent), throughput and response time "
        "over trials with their CIs, pooled latency percentiles, error rate, the median law "
        "residual and the peak-region decision.",
        (col("family_label"), col("hardware_type"),
         col("loop"), col("load"),
         col("n_trials"), col("n_used"),
         col("throughput"),
         col("throughput_low"), col("throughput_high"),
         col("throughput_law"),
         col("mean_ms"), col("mean_low_ms"),
         col("mean_high_ms"),
         col("p50_ms"), col("p99_ms"),
         col("p99_low_ms"), col("p99_high_ms"),
         col("p999_ms"), col("latency_source"),
         col("error_rate_pct"),
         col("law_residual_pct"),
         col("region"), col("reason_inconsistent")),
        curve.with_columns(error_rate_pct=pl.col("error_rate") * 100,
                           law_residual_pct=pl.col("law_residual") * 100)))
    return Section("Tables", "", tuple(blocks))


REPORT = Report(
    "load",
    "Load tests: verdict, throughput against N with the law line, latency against the offered "
    "load with the knee and R_sat, per-trial law consistency, peak table.",
    build)
