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
draws, after Shivam et al., "Cutting Corners: Workbench Automation for Server
Benchmarking" (USENIX ATC 2008): the search trace (load factor λ/λ* of every trial,
its Figure 7), the cost of the policies (trials, load-generator seconds and loads per
search, its Figure 8) and the response surface of λ* (its section 5.5).

:func:`build` is the query step (the report queries ``sql/queries/report_*.sql``);
:func:`build_page` makes the page from their rows and nothing else.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import polars as pl
import pyarrow as pa

from perfwarehouse.reports import load_charts
from perfwarehouse.reports.base import Report, ReportData, Request, provenance
from perfwarehouse.reports.charts import config_labels
from perfwarehouse.reports.page import (
    Block,
    Column,
    Figure,
    Missing,
    Notice,
    Page,
    Section,
    Verdict,
    capped_table,
    format_settings,
)

COMMAND = "perfwarehouse analyze load"
TITLE = "Load tests: peak throughput and latency under load"
MAX_SCATTER = 4000
"""Trials the consistency scatter shows at most (every inconsistent one, then an even
sample of the rest)."""
TRACE_SEARCHES = 12
"""Searches the trace draws at most per policy and seeding (the first ones started); the
searches table lists every one."""
MAX_SURFACES = 6
"""Response surfaces drawn at most (the tables list every one)."""

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
    c = _with_labels(pl.from_arrow(frames.curve))  # type: ignore[arg-type]
    p, k = (_with_labels(pl.from_arrow(t)) if isinstance(t, pa.Table) else None  # type: ignore[arg-type]
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


#: A benchmark (an URL, a script path) longer than this is shortened in labels.
MAX_NAME = 48


def short_name(name: str | None, limit: int = MAX_NAME) -> str:
    """A benchmark as a person reads it: an URL without its scheme, query and fragment
    (``host:port/path``), and a long one cut in the middle of its path so that the host
    and the last path segment stay (``api.example.com/…/items``). Tables keep the full
    name."""
    text = "" if name is None else str(name)
    if "://" in text:
        text = text.split("://", 1)[1].split("?", 1)[0].split("#", 1)[0].rstrip("/") or text
    if len(text) <= limit:
        return text
    head, _, rest = text.partition("/")
    tail = rest.rsplit("/", 1)[-1] if rest else ""
    keep = max(8, limit - len(head) - 3)
    if tail and len(head) + len(tail) + 3 <= limit:
        return f"{head}/…/{tail}"
    return text[: limit - keep - 1] + "…" + text[-keep:]


def _family_parts(family: str | None) -> tuple[str | None, str | None]:
    """(the generator, the family's settings without it) of a family's settings text."""
    try:
        obj = json.loads(family) if family else {}
    except ValueError:
        return None, family
    if not isinstance(obj, dict):
        return None, family
    tool = obj.pop("generator", None)
    return (str(tool) if tool is not None else None), json.dumps(obj, sort_keys=True,
                                                                  separators=(",", ":"))


def _with_labels(df: pl.DataFrame) -> pl.DataFrame:
    """A ``family_label`` column: the benchmark (long URLs shortened: :func:`short_name`),
    the settings that differ between families, the load generator in parentheses, the
    hardware type when there are several, the campaign when there are several."""
    keys = [k for k in ("campaign", "benchmark", "family", "hardware_type") if k in df.columns]
    fams = df.select(*keys, "loop").unique(maintain_order=True)
    several = fams["hardware_type"].n_unique() > 1
    campaigns = fams["campaign"].to_list() if "campaign" in keys else []
    several_campaigns = len(set(campaigns)) > 1
    loops = fams["loop"].to_list()
    named: dict[int, str] = {}
    parts = [_family_parts(f) for f in fams["family"].to_list()]
    benchmarks = fams["benchmark"].to_list()
    for group in {(lp, parts[i][0]) for i, lp in enumerate(loops)}:
        # names tell apart the families of one loop kind and one generator
        idx = [i for i, lp in enumerate(loops) if (lp, parts[i][0]) == group]
        part = config_labels([short_name(benchmarks[i]) for i in idx],
                             [parts[i][1] for i in idx])
        for i, label in zip(idx, part):
            tool = parts[i][0]
            said = tool is None or str(benchmarks[i]).startswith(tool) or (
                campaigns and campaigns[i] == tool and several_campaigns)
            named[i] = label if said else f"{label} ({tool})"
    labels = []
    for i, hw in enumerate(fams["hardware_type"].to_list()):
        label = f"{named[i]} @ {hw}" if several else named[i]
        labels.append(f"{campaigns[i]}: {label}" if several_campaigns else label)
    fams = fams.with_columns(family_label=pl.Series(labels, dtype=pl.String))
    return df.join(fams.drop("loop"), on=keys, how="left")


def _fmt(x: float | None, digits: int = 4) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "?"
    return f"{x:,.{digits}g}" if abs(x) < 10 ** digits else f"{x:,.0f}"


# ------------------------------------------------------------------ verdict
def short_verdict(peaks: pl.DataFrame | None, checks: pl.DataFrame | None) -> Verdict | None:
    """The answer in a sentence per family: the system, its peak and where it lies (the
    N of the peak, or the offered rate λ*); then the trials left out, in a sentence each.
    The numbers with their CIs and notes follow in "Verdict"."""
    if peaks is None or peaks.height == 0:
        return None
    rows = peaks.to_dicts()
    sentences = []
    for row in rows[:VERDICT_FAMILIES]:
        name = row["family_label"]
        if row["loop"] == "closed" and row["peak_throughput"] is not None:
            text = (f"{name} peaks at {_fmt(row['peak_throughput'])} req/s with "
                    f"N = {_fmt(row['peak_clients'])} clients (knee at N = "
                    f"{_fmt(row['knee_clients'])})")
            if row["falls_after_peak"]:
                text += f" and falls {abs(row['drop_pct'] or 0):.0f} % by the largest N"
            elif row["peak_clients"] is not None and row["reason"] and \
                    "largest N tested" in row["reason"]:
                text += ", the largest N tested: it may rise further"
        elif row["loop"] == "open" and row["lambda_star"] is not None:
            text = (f"{name} holds {row['response_metric']} response time ≤ "
                    f"{_fmt(row['r_sat_ms'])} ms up to λ* = {_fmt(row['lambda_star'])} req/s")
            if row["lambda_high"] is not None:
                text += f" (exceeded surely at {_fmt(row['lambda_high'])} req/s)"
            else:
                text += " (no load tested exceeds it yet)"
        else:
            reason = (row["reason"] or "no peak").split(";")[0].replace("lambda*", "λ*")
            text = f"{name}: {reason}"
        if (row["reason"] or "").startswith("mixed"):  # loadtest/mixing.py: say it first
            parts = row["reason"].removeprefix("mixed: ").split("; ")
            text = (f"MIXED, no single system's peak: {name}: {'; '.join(parts[:2])}. "
                    f"Its numbers mix them: {text.removeprefix(name).lstrip(': ')}")
        sentences.append(text + ".")
    if len(rows) > VERDICT_FAMILIES:
        sentences.append(f"{len(rows) - VERDICT_FAMILIES:,} more families are in the table of "
                         "peaks.")
    if checks is not None:
        bad = checks.filter(pl.col("consistent").fill_null(True).not_()).height
        if bad:
            sentences.append(f"{bad:,} trials break the operational laws and are left out.")
        sentences += unplaced_sentences(checks)
    return Verdict(" ".join(sentences), "info")


def unplaced_sentences(checks: pl.DataFrame) -> list[str]:
    """One sentence on the load-test trials without a load level (by generator): they
    are on no curve, and the page says so with how to give the load."""
    lost = checks.filter(pl.col("loop").is_not_null() & pl.col("load").is_null())
    if lost.height == 0:
        return []
    tools = [_family_parts(f)[0] or "other" for f in lost["family"].to_list()]
    by_tool = ", ".join(f"{tools.count(t):,} {t}" for t in sorted(set(tools)))
    k = lost.height
    return [f"{k:,} trial{'s' if k > 1 else ''} without a load level ({by_tool}) "
            f"{'are' if k > 1 else 'is'} on no curve: the tool's output does not state the "
            "load; ingest it with its command line saved above the output, or with --setting "
            "clients=N (--setting loop=open --setting rate_rps=R for a rate)."]


#: Families with a line of their own in the verdict; the table of peaks has every one.
VERDICT_FAMILIES = 6


def verdict_section(curve: pl.DataFrame, peaks: pl.DataFrame | None,
                    checks: pl.DataFrame | None, tolerance: float) -> Section:
    blocks: list[Block] = []
    conf = curve["confidence"][0] if curve.height else 0.95
    rows = peaks.to_dicts() if peaks is not None else []
    if len(rows) > VERDICT_FAMILIES:
        found = sum(1 for r in rows if r["peak_throughput"] is not None
                    or r["lambda_star"] is not None)
        blocks.append(Notice(
            f"{len(rows):,} families: a peak (closed loop) or peak rate λ* (open loop) found "
            f"for {found:,}; the first {VERDICT_FAMILIES} follow, every one is in the table "
            "of peaks under Tables."))
    for row in rows[:VERDICT_FAMILIES]:
        blocks.append(Notice(_verdict_line(row, conf)))
    if checks is not None:
        bad = checks.filter(pl.col("consistent") == False)  # noqa: E712
        unknown = checks.filter(pl.col("consistent").is_null()).height
        checked = checks.height - unknown
        if bad.height:
            where = (bad.group_by("family_label", "loop", "load").agg(n=pl.len())
                     .sort("family_label", "load"))
            spots = "; ".join(
                f"{r['family_label']}: {r['n']} at {'N' if r['loop'] == 'closed' else 'λ'} = "
                f"{_fmt(r['load'])}" for r in where.head(12).to_dicts())
            more = " …" if where.height > 12 else ""
            blocks.append(Notice(
                f"{bad.height:,} of {checked:,} trials break the operational laws by more "
                f"than {tolerance:g} % and are left out of the curves and the peak: {spots}{more}. "
                "The table below gives each one with its reason."))
        elif checked:
            blocks.append(Notice(f"All {checked:,} checked trials satisfy the operational laws "
                                 f"within {tolerance:g} %."))
        if unknown:
            why = (checks.filter(pl.col("consistent").is_null())
                   .group_by("reason").agg(n=pl.len()).sort("n", descending=True))
            blocks.append(Notice(
                f"{unknown:,} trials were not checked: " + "; ".join(
                    f"{r['n']:,} {str(r['reason']).removeprefix('not checked: ')}"
                    for r in why.head(4).to_dicts()) + "."))
        blocks += [Notice(t) for t in unplaced_sentences(checks)]
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
        ci = (f" ({conf:.0%} CI {_fmt(max(row['peak_low'], 0.0))} – {_fmt(row['peak_high'])}, "
              "simultaneous over the levels)" if row["peak_low"] is not None else
              " (no CI: too few trials)")
        text = (f"{name}: peak throughput {_fmt(row['peak_throughput'])} req/s{ci} at "
                f"N = {_fmt(row['peak_clients'])} clients; knee at N = "
                f"{_fmt(row['knee_clients'])} (the first to reach "
                f"{row['knee_fraction']:.0%} of the peak)")
        if row["falls_after_peak"] is not None:  # null: one trial per level, not established
            text += (f"; throughput falls after the peak ({row['drop_pct']:+.0f} % at the "
                     "largest N): per-connection overhead" if row["falls_after_peak"]
                     else "; throughput holds after the peak")
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
    ci = (f"CI {_fmt(row['r_star_low_ms'], 3)} – {_fmt(row['r_star_high_ms'], 3)}{acc}"
          if row["r_star_low_ms"] is not None else "no CI: one trial at this load")
    text = (f"{name}: peak rate λ* = {_fmt(row['lambda_star'])} req/s: {row['response_metric']} "
            f"response time {_fmt(row['r_star_ms'], 3)} ms ({ci}) ≤ R_sat = "
            f"{_fmt(row['r_sat_ms'])} ms{bracket}")
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


# ---------------------------------------------------------------- workbench
def workbench_sections(searches: pa.Table | None, trials: pa.Table | None,
                       surface: pa.Table | None) -> list[Section]:
    """The search trace and the cost of the policies (when the warehouse holds finished
    searches of the workbench controller) and the response surface (when
    ``response_surface`` has rows); nothing for data that are not there."""
    out: list[Section] = []
    if searches is not None and searches.num_rows:
        s = _searches(searches)
        t = pl.from_arrow(trials) if trials is not None else None
        out.append(trace_section(s, t))  # type: ignore[arg-type]
        out.append(cost_section(s))
    if surface is not None and surface.num_rows:
        out.append(surface_section(pl.from_arrow(surface)))  # type: ignore[arg-type]
    return out


def _searches(rows: pa.Table) -> pl.DataFrame:
    """The searches with ``seeding`` in words (:data:`load_charts.SEEDING`: a search
    seeded from the nearest finished sample is "with seeding"; one that started at the
    default load, even when asked to seed, is "without"), the raw setting in
    ``search_seeding`` and a ``label`` naming the sample."""
    df = pl.from_arrow(rows)
    assert isinstance(df, pl.DataFrame)
    labels = [f"{c}: {format_settings(f)}" if format_settings(f) else c
              for c, f in zip(df["campaign"].to_list(), df["factors"].to_list())]
    return df.rename({"seeding": "search_seeding"}).with_columns(
        policy=pl.col("policy").fill_null("?"),
        seeding=pl.when(pl.col("search_seeding") == "nearest").then(
            pl.lit(load_charts.SEEDING[1])).otherwise(pl.lit(load_charts.SEEDING[0])),
        label=pl.Series(labels, dtype=pl.String))


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n:,} {word if n == 1 else many or word + 's'}"


def _median_by(df: pl.DataFrame, key: str, value: str) -> list[tuple[str, float]]:
    """(key, median of value) sorted from the smallest median (presentation)."""
    g = df.group_by(key).agg(pl.col(value).median()).sort(value, key)
    return list(zip(g[key].to_list(), g[value].to_list()))


def trace_section(searches: pl.DataFrame, trials: pl.DataFrame | None) -> Section:
    """Shivam et al., "Cutting Corners" (USENIX ATC 2008), Figure 7: per search, each
    trial's load factor λ/λ* (the trial's load over the search's final λ*) against its
    number, with a verdict and the table of every search."""
    found = searches.filter(pl.col("lambda_star").is_not_null())
    blocks: list[Block] = [Notice(_trace_verdict(searches, found, trials))]
    drawn = found.sort("started_at").group_by("policy", "seeding", maintain_order=True).head(
        TRACE_SEARCHES)
    keys = ["campaign", "hardware_type", "search"]
    if trials is not None and trials.height and drawn.height:
        points = trials.join(drawn.select(*keys, "policy", "seeding", "label", "lambda_star",
                                          "unit"), on=keys, how="inner").with_columns(
            load_factor=pl.col("load") / pl.col("lambda_star"),
            outcome=pl.when(pl.col("status") == "ok").then(pl.lit(load_charts.OUTCOMES[0]))
            .otherwise(pl.lit(load_charts.OUTCOMES[1])))
        blocks.append(Figure(load_charts.search_trace(
            points.sort("policy", "seeding", "search", "trial_number"),
            title="Search trace: the load factor λ/λ* of every trial"), "workbench-trace"))
        if drawn.height < found.height:
            blocks.append(Notice(f"The trace draws the first {TRACE_SEARCHES} searches of each "
                                 f"policy and seeding ({drawn.height:,} of {found.height:,}); "
                                 "the table lists every one."))
    blocks.append(capped_table(
        "Searches",
        "Every finished search: its sample, how it searched, how it ended (converged: the "
        "target accuracy was met; budget: a budget ran out, λ* is the best estimate) and "
        "what it cost.",
        (Column("campaign", "campaign", key=True), Column("label", "sample", key=True),
         Column("hardware_type", "hardware type"), Column("search", "search (run id prefix)"),
         Column("policy", "policy"), Column("seeding", "seeding"),
         Column("search_seeding", "seeding setting"), Column("status", "status"),
         Column("reason", "reason"), Column("lambda_star", "λ*", "float"),
         Column("unit", "λ* unit"), Column("trials", "trials", "int"),
         Column("generator_s", "load generator (s)", "float"),
         Column("loads", "loads visited", "int")),
        searches.sort("campaign", "started_at")))
    return Section(
        "Search trace of the peak-rate searches",
        "How each search of the workbench controller homed in on λ*: every trial at its load "
        "factor λ/λ*, the load it tried over the λ* the search ended with (Shivam et al., "
        "\"Cutting Corners\", USENIX ATC 2008, Figure 7). A good policy reaches load factor 1 "
        "in few trials and spends its trials there, where the target accuracy needs them.",
        tuple(blocks))


def _trace_verdict(searches: pl.DataFrame, found: pl.DataFrame,
                   trials: pl.DataFrame | None) -> str:
    policies = ", ".join(sorted(searches["policy"].unique().to_list()))
    text = f"{_plural(searches.height, 'search', 'searches')} ({policies}): "
    if found.height:
        lo, hi = int(found["trials"].min()), int(found["trials"].max())  # type: ignore[arg-type]
        text += f"λ* found within {lo}–{hi} trials" if lo != hi else f"λ* found in {lo} trials"
    else:
        text += "no search found an estimate of λ*"
    budget = searches.filter(pl.col("status") != "converged")
    if budget.height:
        reasons = ", ".join(sorted(budget["reason"].fill_null("?").unique().to_list()))
        text += (f" ({searches.height - budget.height:,} met the target, "
                 f"{budget.height:,} ran out of budget: {reasons})")
    if found.height < searches.height:
        text += f"; {searches.height - found.height:,} without an estimate of λ* (not drawn)"
    medians = _median_by(searches, "policy", "trials")
    if len(medians) > 1:
        best = [p for p, m in medians if m == medians[0][1]]
        text += (f"; the {' and '.join(best)} polic{'y' if len(best) == 1 else 'ies'} "
                 f"needed the fewest trials (median {medians[0][1]:g}, against "
                 f"{medians[-1][1]:g} for {medians[-1][0]})")
    if trials is not None and trials.height:
        known = searches.select("campaign", "hardware_type", "search")
        unfinished = trials.select("campaign", "hardware_type", "search").unique().join(
            known, on=["campaign", "hardware_type", "search"], how="anti").height
        if unfinished:
            text += (f"; {_plural(unfinished, 'unfinished search', 'unfinished searches')} "
                     "(no result yet) not drawn")
    return text + "."


def cost_section(searches: pl.DataFrame) -> Section:
    """Shivam et al., "Cutting Corners" (USENIX ATC 2008), Figure 8: the cost of a search
    per policy, with and without seeding (medians over the searches, and totals)."""
    costs = (searches.group_by("policy", "seeding").agg(
        searches=pl.len(), met=(pl.col("status") == "converged").sum(),
        trials=pl.col("trials").median(), generator_s=pl.col("generator_s").median(),
        loads=pl.col("loads").median(), total_trials=pl.col("trials").sum(),
        total_generator_s=pl.col("generator_s").sum(), total_loads=pl.col("loads").sum())
        .sort("policy", "seeding", descending=[False, True])
        .with_columns(group=pl.format("{}, {}", "policy", "seeding")))
    cheap = costs.sort("trials", "generator_s", "group").row(0, named=True)
    text = (f"Cheapest per search: {cheap['group']} (median {cheap['trials']:g} trials, "
            f"{_fmt(cheap['generator_s'], 3)} s of load generator, {cheap['loads']:g} loads; "
            f"{_plural(cheap['searches'], 'search', 'searches')})")
    if costs.height > 1:
        dear = costs.sort("trials", "generator_s", "group").row(-1, named=True)
        text += f"; costliest: {dear['group']} (median {dear['trials']:g} trials)"
    by_seeding = dict(_median_by(searches, "seeding", "trials"))
    if len(by_seeding) == 2:
        text += (f"; a search took a median of {by_seeding[load_charts.SEEDING[1]]:g} trials "
                 f"with seeding, {by_seeding[load_charts.SEEDING[0]]:g} without")
    return Section(
        "Cost of the policies",
        "What a search cost with each policy, with and without seeding from a neighbouring "
        "sample's λ* (Shivam et al., \"Cutting Corners\", USENIX ATC 2008, Figure 8, section "
        "5.4): trials, seconds of load generator and loads visited per search, as the "
        "controller recorded them in its result run (metrics search_trials, "
        "search_generator_s, search_loads).",
        (Notice(text + "."),
         Figure(load_charts.policy_costs(costs, title="Cost of a search per policy"),
                "workbench-cost"),
         capped_table(
             "Cost per policy and seeding",
             "Medians and totals over the searches of each policy, with and without seeding; "
             "target met: searches that reached the target accuracy at the target confidence.",
             (Column("policy", "policy", key=True), Column("seeding", "seeding", key=True),
              Column("searches", "searches", "int"), Column("met", "target met", "int"),
              Column("trials", "trials (median)", "float"),
              Column("generator_s", "load generator (s, median)", "float"),
              Column("loads", "loads (median)", "float"),
              Column("total_trials", "trials (total)", "int"),
              Column("total_generator_s", "load generator (s, total)", "float"),
              Column("total_loads", "loads (total)", "int")),
             costs)))


def surface_section(rows: pl.DataFrame) -> Section:
    """Shivam et al., "Cutting Corners" (USENIX ATC 2008), section 5.5: per fitted
    surface, the predicted λ* over two factors (heatmap, the K measured samples marked,
    the leave-one-out MAPE in the caption), and the coefficients with their CIs."""
    keys = ["campaign", "hardware_type", "benchmark", "fixed_settings", "factors"]
    groups = rows.select(keys).unique(maintain_order=True)
    names = config_labels([f"{c} {b} on {h}" for c, b, h in zip(
        groups["campaign"], groups["benchmark"], groups["hardware_type"])],
        groups["fixed_settings"].to_list())
    units = ["clients" if json.loads(f or "{}").get("loop") == "closed" else "req/s"
             for f in groups["fixed_settings"].to_list()]  # λ* in clients in a closed loop
    groups = groups.with_columns(surface=pl.Series(names, dtype=pl.String),
                                 unit=pl.Series(units, dtype=pl.String))
    df = rows.join(groups, on=keys, how="left")
    sentences: list[str] = []
    figures: list[Block] = []
    for i, key in enumerate(groups.head(MAX_SURFACES).iter_rows(named=True)):
        part = df.filter(*(pl.col(k) == key[k] for k in keys))
        first = part.row(0, named=True)
        factors, unit = first["factors"].split(","), key["unit"]
        pred = part.filter(pl.col("kind") == "prediction")
        mape = (f"{100 * first['loo_mape']:.1f} %" if first["loo_mape"] is not None
                else "undefined (too few samples)")
        r2 = f", R² {first['r_squared']:.3f}" if first["r_squared"] is not None else ""
        budget = f", {first['n_budget']} of them best estimates" if first["n_budget"] else ""
        sentences.append(
            f"{key['surface']}: λ* over {' and '.join(factors)} from {first['n_samples']} "
            f"samples{budget}: leave-one-out MAPE {mape}{r2}; predicted λ* "
            f"{_fmt(pred['estimate'].min(), 3)}–{_fmt(pred['estimate'].max(), 3)} {unit} "  # type: ignore[arg-type]
            f"over {_plural(pred.height, 'combination')} of the levels")
        if len(factors) != 2:
            figures.append(Notice(f"{key['surface']}: the heatmap needs two factors, this "
                                  f"surface has {len(factors)}; its predictions are in the "
                                  "table below."))
            continue
        figures.append(Figure(load_charts.surface_heatmap(
            _heatmap_cells(pred, factors), title=f"Predicted λ* over {factors[0]} and "
            f"{factors[1]}: {key['surface']}", x_title=factors[0], y_title=factors[1],
            unit=unit, n_samples=first["n_samples"], loo_mape=first["loo_mape"],
            r_squared=first["r_squared"]), f"workbench-surface-{i + 1}"))
    if groups.height > MAX_SURFACES:
        sentences.append(f"{_plural(groups.height - MAX_SURFACES, 'more surface')} in the tables")
        figures.append(Notice(f"The first {MAX_SURFACES} of {groups.height} surfaces are drawn; "
                              "the tables list every one."))
    coefficients = df.filter(pl.col("kind") == "coefficient").with_columns(
        confidence_pct=pl.col("confidence") * 100, loo_mape_pct=pl.col("loo_mape") * 100)
    predictions = df.filter(pl.col("kind") == "prediction")
    predictions = predictions.with_columns(
        error_pct=(pl.col("estimate") / pl.col("measured") - 1) * 100,
        levels=pl.Series([" ".join(f"{k}={v:g}" for k, v in json.loads(p).items())
                          for p in predictions["point"].to_list()], dtype=pl.String))
    return Section(
        "Response surface of the peak rate",
        "λ* as a full quadratic in the factors (λ* = β0 + Σ βi Fi + Σ βij Fi Fj + Σ βii Fi²), "
        "fitted by least squares to the λ* of K samples a D-optimal design picked, so the "
        "surface is mapped without searching every combination (Shivam et al., \"Cutting "
        "Corners\", USENIX ATC 2008, section 5.5); the leave-one-out MAPE says how well it "
        "predicts a sample it was not fitted to.",
        (Notice("; ".join(sentences) + "."), *figures,
         capped_table(
             "Coefficients of the response surface",
             "Each term's least-squares estimate (in λ*'s unit per unit of the term: req/s per "
             "a·b for the term a*b) with its Student's t interval (n − p degrees of freedom; "
             "empty when the design has none left).",
             (Column("surface", "surface", key=True), Column("term", "term", key=True),
              Column("estimate", "estimate", "float"), Column("ci_low", "CI low", "float"),
              Column("ci_high", "CI high", "float"),
              Column("confidence_pct", "confidence (%)", "pct"),
              Column("n_samples", "samples", "int"), Column("dof", "dof", "int"),
              Column("r_squared", "R²", "float"),
              Column("loo_mape_pct", "leave-one-out MAPE (%)", "pct")),
             coefficients),
         capped_table(
             "Predicted peak rates",
             "The λ* the surface predicts at every combination of the factor levels, and the "
             "one measured there where a search ran.",
             (Column("surface", "surface", key=True),
              Column("levels", "factors", key=True),
              Column("estimate", "predicted λ*", "float"),
              Column("measured", "measured λ*", "float"), Column("unit", "λ* unit"),
              Column("error_pct", "predicted − measured (%)", "pct")),
             predictions)))


def _heatmap_cells(pred: pl.DataFrame, factors: list[str]) -> pl.DataFrame:
    """The heatmap's cells: the two factors' levels, the predicted and measured λ* and
    the text written in the cell."""
    points = [json.loads(p) for p in pred["point"].to_list()]
    measured = pred["measured"].to_list()
    labels = [_fmt(e, 3) + (f"\nmeas. {_fmt(m, 3)}" if m is not None else "")
              for e, m in zip(pred["estimate"].to_list(), measured)]
    return pl.DataFrame({
        "x": [float(p[factors[0]]) for p in points], "y": [float(p[factors[1]]) for p in points],
        "estimate": pred["estimate"], "measured": pred["measured"], "label": labels,
        "sample": ["measured sample" if m is not None else None for m in measured]},
        schema_overrides={"sample": pl.String})


REPORT = Report(
    "load",
    "Load tests: verdict, throughput against N with the law line, latency against the offered "
    "load with the knee and R_sat, per-trial law consistency, peak table.",
    build)
