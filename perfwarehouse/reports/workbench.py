"""The workbench controller's sections of the load-test page, after Shivam et al.,
"Cutting Corners: Workbench Automation for Server Benchmarking" (USENIX ATC 2008): the
search trace (load factor λ/λ* of every trial, its Figure 7), the cost of the policies
(trials, load-generator seconds and loads per search, its Figure 8) and the response
surface of λ* fitted by job ``surface`` (its section 5.5). Each section is drawn only
when the warehouse holds its rows (``agent peak-rate``, ``agent surface``, ``analyze
surface``)."""

from __future__ import annotations

import json

import polars as pl
import pyarrow as pa

from perfwarehouse.reports import load_charts
from perfwarehouse.reports.charts import config_labels
from perfwarehouse.reports.columns import col
from perfwarehouse.reports.load_labels import short_number
from perfwarehouse.reports.page import (
    Block,
    Figure,
    Notice,
    Section,
    capped_table,
    format_settings,
)

TRACE_SEARCHES = 12
"""Searches the trace draws at most per policy and seeding (the first ones started); the
searches table lists every one."""
MAX_SURFACES = 6
"""Response surfaces drawn at most (the tables list every one)."""



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
        (col("campaign", key=True), col("label", key=True),
         col("hardware_type"), col("search"),
         col("policy"), col("seeding"),
         col("search_seeding"), col("status"),
         col("reason"), col("lambda_star"),
         col("unit_lambda"), col("trials"),
         col("generator_s"),
         col("loads")),
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
            f"{short_number(cheap['generator_s'], 3)} s of load generator, {cheap['loads']:g} loads; "
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
             (col("policy", key=True), col("seeding", key=True),
              col("searches"), col("met"),
              col("trials_median"),
              col("generator_s_median"),
              col("loads_median"),
              col("total_trials"),
              col("total_generator_s"),
              col("total_loads")),
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
            f"{short_number(pred['estimate'].min(), 3)}–{short_number(pred['estimate'].max(), 3)} {unit} "  # type: ignore[arg-type]
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
             (col("surface", key=True), col("term", key=True),
              col("estimate"), col("ci_low"),
              col("ci_high"),
              col("confidence_pct"),
              col("n_samples"), col("dof"),
              col("r_squared"),
              col("loo_mape_pct")),
             coefficients),
         capped_table(
             "Predicted peak rates",
             "The λ* the surface predicts at every combination of the factor levels, and the "
             "one measured there where a search ran.",
             (col("surface", key=True),
              col("levels", key=True),
              col("estimate_lambda"),
              col("measured"), col("unit_lambda"),
              col("error_pct")),
             predictions)))


def _heatmap_cells(pred: pl.DataFrame, factors: list[str]) -> pl.DataFrame:
    """The heatmap's cells: the two factors' levels, the predicted and measured λ* and
    the text written in the cell."""
    points = [json.loads(p) for p in pred["point"].to_list()]
    measured = pred["measured"].to_list()
    labels = [short_number(e, 3) + (f"\nmeas. {short_number(m, 3)}" if m is not None else "")
              for e, m in zip(pred["estimate"].to_list(), measured)]
    return pl.DataFrame({
        "x": [float(p[factors[0]]) for p in points], "y": [float(p[factors[1]]) for p in points],
        "estimate": pred["estimate"], "measured": pred["measured"], "label": labels,
        "sample": ["measured sample" if m is not None else None for m in measured]},
        schema_overrides={"sample": pl.String})


