"""Chart builders of the load-test report: a pre-aggregated table in, an ``alt.Chart`` out.

Pure functions, like :mod:`perfwarehouse.reports.charts` (same sizes, titles, captions).
The figures follow "On Performance Evaluation" (blog essay, 2019): throughput against
the number of clients with the operational law X = N/(R + Z) (its Figure 2), latency
against the offered load with the knee (its Figures 3 and 5), and the saturation
threshold R_sat of Shivam et al. (USENIX ATC 2008). The workbench controller's charts
follow Shivam et al., "Cutting Corners: Workbench Automation for Server Benchmarking"
(USENIX ATC 2008): the search trace (its Figure 7), the cost of the policies (its
Figure 8) and the response surface of the peak rate (its section 5.5).
"""

from __future__ import annotations

from typing import cast

import altair as alt
import polars as pl

from perfwarehouse.reports.charts import (
    BLUE,
    HEIGHT,
    ORANGE,
    WIDTH,
    Frame,
    Layered,
    _color,
    _shape,
    _title,
    by_order,
    frame,
)

CONSISTENCY = ("consistent", "inconsistent", "not checked")
CONSISTENCY_COLORS = ("#4c78a8", "#d62728", "#9e9e9e")
CONSISTENCY_SHAPES = ("circle", "cross", "square")
"""The trials' marks also differ in shape (the legend shows them): never colour alone."""
PERCENTILE_ORDER = ("mean", "p50", "p90", "p99", "p99.9")
SEEDING = ("without seeding", "with seeding")
SEEDING_COLORS = (BLUE, ORANGE)
SEEDING_DASHES = ((1, 0), (6, 3))
OUTCOMES = ("measured", "failed")
OUTCOME_SHAPES = ("circle", "cross")
COSTS = (("trials", "trials per search (median)"),
         ("generator_s", "load-generator time per search (s, median)"),
         ("loads", "loads visited per search (median)"))


#: Throughputs of the families this many times apart are drawn on a log axis (on it, a
#: CI band that reaches zero is cut at a tenth of its level).
LOG_Y_SPREAD = 100.0


def throughput_curve(curve: Frame, marks: Frame, *, title: str) -> Layered:
    """Throughput against N per closed-loop family: the mean over trials with its CI band,
    the law line X = N/(R + Z) at the measured R, the peak and the knee.

    ``curve``: ``family_label``, ``clients``, ``throughput``, ``throughput_low``,
    ``throughput_high``, ``throughput_law``, ``consistent``; ``marks``: ``family_label``,
    ``clients``, ``throughput``, ``mark`` (``peak`` | ``knee``).
    """
    df = frame(curve, ["family_label", "clients", "throughput", "throughput_low",
                       "throughput_high", "throughput_law", "consistent"])
    x = alt.X("clients:Q", title="clients N (log scale)", scale=alt.Scale(type="log", base=2))
    color = alt.Color("family_label:N", title="family")
    positive = df.filter(pl.col("throughput") > 0)["throughput"].to_numpy()
    log_y = positive.size > 0 and float(positive.max()) > LOG_Y_SPREAD * float(positive.min())
    y_title = "throughput X (req/s" + (", log scale)" if log_y else ")")
    if log_y:  # families 100x apart: a linear axis flattens all but the largest
        df = df.with_columns(throughput_low=pl.max_horizontal(
            "throughput_low", pl.col("throughput") / 10))
    y_scale = alt.Scale(type="log") if log_y else alt.Undefined
    band = alt.Chart(df).mark_area(opacity=0.18).encode(
        x=x, y=alt.Y("throughput_low:Q", scale=y_scale), y2="throughput_high:Q", color=color)
    line = alt.Chart(df).mark_line(point=True).encode(
        x=x, y=alt.Y("throughput:Q", title=y_title, scale=y_scale), color=color,
        tooltip=["family_label:N", alt.Tooltip("clients:Q", title="N"),
                 alt.Tooltip("throughput:Q", format=",.1f", title="X (req/s)"),
                 alt.Tooltip("throughput_low:Q", format=",.1f", title="CI low"),
                 alt.Tooltip("throughput_high:Q", format=",.1f", title="CI high"),
                 alt.Tooltip("throughput_law:Q", format=",.1f", title="N/(R+Z)"),
                 "consistent:N"])
    law = alt.Chart(df).mark_line(strokeDash=[5, 3], strokeWidth=1.5).encode(
        x=x, y="throughput_law:Q", color=color)
    layers = [line, band, law]  # the line first: the legend takes the first layer's symbols
    inconsistent = df.filter(~pl.col("consistent"))
    if inconsistent.height:  # (an empty layer would warn of an infinite extent)
        layers.append(alt.Chart(inconsistent).mark_point(
            shape="cross", size=120, color="#d62728", filled=True).encode(x=x, y="throughput:Q"))
    m = frame(marks, ["family_label", "clients", "throughput", "mark"])
    if m.height:
        layers.append(alt.Chart(m).mark_point(size=170, filled=False, strokeWidth=2).encode(
            x=x, y="throughput:Q", color=color,
            shape=alt.Shape("mark:N", title="marked", scale=alt.Scale(
                domain=["peak", "knee"], range=["diamond", "triangle-up"])),
            tooltip=["family_label:N", "mark:N", alt.Tooltip("clients:Q", title="N"),
                     alt.Tooltip("throughput:Q", format=",.1f", title="X (req/s)")]))
    return alt.layer(*layers).properties(
        width=WIDTH, height=HEIGHT + 40, title=_title(title),
        description=("Solid: measured throughput (mean over the consistent trials) with its "
                     "CI band; dashed: the interactive response time law X = N/(R+Z) at the "
                     "measured response time, which the solid line must follow (they part "
                     "where measurements are inconsistent); diamond: the peak, triangle: the "
                     "knee (the smallest N reaching 95 % of the peak); red crosses: levels "
                     "without a consistent trial."),
    )


def latency_curve(curve: Frame, *, title: str, x_field: str, x_title: str,
                  r_sat_ms: float | None, knees: Frame, log_x: bool) -> Layered:
    """Latency (mean and percentiles) against the load with CI bands, R_sat and the knee.

    ``curve`` (long): ``family_label``, ``x``, ``stat`` (mean, p50, ...), ``ms``,
    ``low_ms``, ``high_ms``; ``knees``: ``family_label``, ``x``, ``label``.
    """
    df = frame(curve, ["family_label", "x", "stat", "ms", "low_ms", "high_ms"])
    scale = alt.Scale(type="log", base=2) if log_x else alt.Scale(zero=False)
    x = alt.X("x:Q", title=x_title, scale=scale)
    y_scale = alt.Scale(type="log")
    color = alt.Color("stat:N", title="latency", sort=list(PERCENTILE_ORDER))
    dash = alt.StrokeDash("family_label:N", title="family",
                          legend=alt.Legend(symbolType="stroke", symbolStrokeColor="#333"))
    band = alt.Chart(df).mark_area(opacity=0.15).encode(
        x=x, y=alt.Y("low_ms:Q", scale=y_scale), y2="high_ms:Q", color=color,
        detail="family_label:N")
    line = alt.Chart(df).mark_line(point=True).encode(
        x=x, y=alt.Y("ms:Q", title="response time (ms, log scale)", scale=y_scale), color=color,
        strokeDash=dash,
        tooltip=["family_label:N", "stat:N", alt.Tooltip("x:Q", title=x_field),
                 alt.Tooltip("ms:Q", format=".3g", title="ms"),
                 alt.Tooltip("low_ms:Q", format=".3g", title="CI low"),
                 alt.Tooltip("high_ms:Q", format=".3g", title="CI high")])
    layers: list[alt.Chart] = [line, band]  # the legend takes the first layer's symbols
    k = frame(knees, ["family_label", "x", "label"])
    if k.height:
        layers.append(alt.Chart(k).mark_rule(color="#333", strokeDash=[4, 2]).encode(
            x=x, tooltip=["family_label:N", "label:N", alt.Tooltip("x:Q", title=x_field)]))
        layers.append(alt.Chart(k).mark_text(align="left", dx=4, dy=-6, fontSize=11,
                                             color="#333").encode(
            x=x, y=alt.value(12), text="label:N"))
    if r_sat_ms is not None:
        sat = pl.DataFrame({"r_sat": [r_sat_ms], "label": [f"R_sat = {r_sat_ms:g} ms"]})
        layers.append(alt.Chart(sat).mark_rule(color="#d62728", strokeDash=[6, 3]).encode(
            y="r_sat:Q"))
        layers.append(alt.Chart(sat).mark_text(align="left", x=4, dy=-7, color="#d62728",
                                               fontSize=11).encode(y="r_sat:Q", text="label:N"))
    said = ["Mean response time and pooled percentiles (from the trials' full latency "
            "distributions where stored) with their CI bands"]
    if r_sat_ms is not None:  # the caption names only the marks the chart has
        said.append("the red dashed line is the saturation threshold R_sat")
    if k.height:
        said.append("the dark dashed rules mark the knee: the peak rate λ* (open loop, the "
                    "highest load whose response time stays ≤ R_sat) or the knee in N "
                    "(closed loop)")
    return alt.layer(*layers).properties(
        width=WIDTH, height=HEIGHT + 40, title=_title(title),
        description="; ".join(said) + ".",
    )


def consistency_scatter(checks: Frame, *, title: str, tolerance_pct: float, x_title: str,
                        log_x: bool) -> Layered:
    """Each trial's operational-law residual (%) against its load, coloured by the verdict.

    ``checks``: ``x``, ``residual_pct``, ``status`` (consistent | inconsistent | not checked),
    ``family_label``, ``run_id``, ``position``, ``law``, ``reason``.
    """
    df = frame(checks, ["x", "residual_pct", "status", "family_label", "run_id", "position",
                        "law", "reason", "loop"])
    x = alt.X("x:Q", title=x_title, scale=alt.Scale(type="log", base=2) if log_x
              else alt.Scale(zero=False))
    band = alt.Chart(pl.DataFrame({"low": [-tolerance_pct], "high": [tolerance_pct]})).mark_rect(
        color="#2ca02c", opacity=0.08).encode(y="low:Q", y2="high:Q")
    zero = alt.Chart(pl.DataFrame({"y": [0.0]})).mark_rule(color="#999").encode(y="y:Q")
    points = alt.Chart(df).mark_point(filled=True, size=45, opacity=0.8).encode(
        x=x, y=alt.Y("residual_pct:Q", title="law residual (%)"),
        color=alt.Color("status:N", title="trial", scale=alt.Scale(
            domain=list(CONSISTENCY), range=list(CONSISTENCY_COLORS))),
        shape=alt.Shape("status:N", title="trial", scale=alt.Scale(
            domain=list(CONSISTENCY), range=list(CONSISTENCY_SHAPES))),
        tooltip=["family_label:N", "run_id:N", alt.Tooltip("position:Q", title="position"),
                 alt.Tooltip("x:Q", title="load"), "law:N",
                 alt.Tooltip("residual_pct:Q", format="+.1f", title="residual (%)"), "reason:N"])
    return alt.layer(band, zero, points).properties(
        width=WIDTH, height=HEIGHT, title=_title(title),
        description=(f"One point per trial: the relative residual of its operational law "
                     f"(closed loop X(R+Z)/N - 1, open loop completions/arrivals - 1); the "
                     f"green band is the tolerance (±{tolerance_pct:g} %); blue circles keep "
                     "the law; red crosses break it (a client bottleneck, a saturated "
                     "open-loop run or a wrong setting: they are left out of the curves and "
                     "the peak); grey squares were not checked."),
    )


# ------------------------------------------------------------- workbench
def search_trace(trials: Frame, *, title: str) -> alt.FacetChart:
    """Shivam et al., "Cutting Corners" (USENIX ATC 2008), Figure 7: the load factor
    λ/λ* of every trial of each peak-rate search against the trial's number, one panel
    per policy, one line per search; λ* is the search's own final estimate, so a search
    that converged at a candidate load ends at load factor 1 (one that converged on a step
    knee ends at its bracket, whose lower end is λ*).

    ``trials``: ``policy``, ``seeding`` (:data:`SEEDING`), ``search``, ``label`` (the
    sample), ``trial_number`` (1 = the search's first), ``load_factor``, ``load`` (req/s
    or clients, ``unit``), ``step``, ``picked_by``, ``outcome`` (:data:`OUTCOMES`).
    """
    df = frame(trials, ["policy", "seeding", "search", "label", "trial_number", "load_factor",
                        "load", "unit", "step", "picked_by", "outcome"])
    x = alt.X("trial_number:Q", title="trial number in the search (1 = first)",
              scale=alt.Scale(domainMin=1), axis=alt.Axis(tickMinStep=1, format="d"))
    y = alt.Y("load_factor:Q", title="load factor λ/λ* (ratio, log scale)",
              scale=alt.Scale(type="log", base=2))
    color = _color("seeding", "seeding", SEEDING, SEEDING_COLORS)
    line = alt.Chart().mark_line(opacity=0.7).encode(
        x=x, y=y, color=color, detail="search:N",
        strokeDash=alt.StrokeDash("seeding:N", title="seeding", scale=alt.Scale(
            domain=list(SEEDING), range=[list(d) for d in SEEDING_DASHES])))
    points = alt.Chart().mark_point(size=45, filled=True, opacity=0.9).encode(
        x=x, y=y, color=color, shape=_shape("outcome", "trial", OUTCOMES, OUTCOME_SHAPES),
        tooltip=["label:N", "search:N", "seeding:N",
                 alt.Tooltip("trial_number:Q", title="trial"),
                 alt.Tooltip("load:Q", format=",.4g", title="load"), "unit:N",
                 alt.Tooltip("load_factor:Q", format=".3f", title="λ/λ*"),
                 "step:Q", alt.Tooltip("picked_by:N", title="load picked by"), "outcome:N"])
    one = alt.Chart().mark_rule(color="#333", strokeDash=[2, 2]).encode(y=alt.datum(1))
    panel = min(300, max(180, (WIDTH + 120) // max(df["policy"].n_unique(), 1) - 40))
    return alt.layer(one, line, points, data=df).properties(
        width=panel, height=HEIGHT,
    ).facet(column=alt.Column("policy:N", title="policy", sort="ascending")).properties(
        title=_title(title),
        description=("Each point is one trial and each line one search, drawn at the load it "
                     "tried divided by the λ* the search found (dotted rule: load factor 1), "
                     "so a good policy reaches 1 in few trials and spends its trials there; "
                     "dashed orange lines are searches seeded from a neighbour's λ*, crosses "
                     "failed trials."),
    )


def policy_costs(costs: Frame, *, title: str) -> alt.HConcatChart:
    """Shivam et al., "Cutting Corners" (USENIX ATC 2008), Figure 8: what a search cost
    with each policy, with and without seeding: the median trials, load-generator seconds
    and loads visited per search, each bar labelled with its value and the number of
    searches.

    ``costs``: ``group`` (policy and seeding in words), ``seeding`` (:data:`SEEDING`),
    ``searches``, and the medians ``trials``, ``generator_s`` (s), ``loads``.
    """
    df = frame(costs, ["group", "seeding", "searches", "trials", "generator_s", "loads"])
    df = df.with_columns(pl.int_range(0, df.height).alias("order"))
    panels = []
    for i, (field, x_title) in enumerate(COSTS):
        values = df[field].to_list()
        part = df.with_columns(text=pl.Series(
            [f"{v:.3g} (n={n})" if v is not None else "" for v, n in
             zip(values, df["searches"].to_list())], dtype=pl.String))
        top = max((v for v in values if v is not None), default=1.0) or 1.0
        base = alt.Chart(part).encode(
            y=alt.Y("group:N", title="policy, seeding" if i == 0 else None, sort=by_order(),
                    axis=alt.Axis() if i == 0 else None),
            # room on the right for the labels
            x=alt.X(f"{field}:Q", title=x_title, scale=alt.Scale(domain=[0, 1.6 * top],
                                                                  nice=False)))
        bars = base.mark_bar(opacity=0.85).encode(
            color=_color("seeding", "seeding", SEEDING, SEEDING_COLORS),
            tooltip=["group:N", alt.Tooltip("searches:Q", title="searches"),
                     alt.Tooltip(f"{field}:Q", format=",.4g", title=x_title)])
        text = base.mark_text(align="left", dx=3, fontSize=10).encode(text="text:N")
        panels.append(alt.layer(bars, text).properties(width=170, height=alt.Step(22)))
    return alt.hconcat(*panels).properties(
        title=_title(title),
        description=("Each bar is the median cost of one search with a policy, with or "
                     "without seeding (in the label on the left, and coloured), with the "
                     "number of searches n: fewer trials, seconds and loads mean the policy "
                     "homed in on λ* faster."),
    )


def surface_heatmap(predictions: Frame, *, title: str, x_title: str, y_title: str,
                    unit: str, n_samples: int, loo_mape: float | None,
                    r_squared: float | None) -> Layered:
    """Shivam et al., "Cutting Corners" (USENIX ATC 2008), section 5.5: the peak rate λ*
    the fitted quadratic response surface predicts at every combination of two factors'
    levels, written in each cell; the K samples whose λ* was measured are outlined and
    carry the measured value too. The caption gives the leave-one-out MAPE (%).

    ``predictions``: ``x``, ``y`` (the two factors' levels), ``estimate`` (predicted λ*,
    ``unit``), ``measured`` (null where no search ran), ``label`` (the cell's text),
    ``sample`` (``"measured sample"`` or null).
    """
    df = frame(predictions, ["x", "y", "estimate", "measured", "label", "sample"])
    base = alt.Chart(df).encode(
        x=alt.X("x:O", title=x_title, axis=alt.Axis(labelAngle=0)),
        y=alt.Y("y:O", title=y_title, sort="descending"))
    values = df["estimate"].drop_nulls()
    middle = 0.0
    if values.len():  # then min and max are numbers (polars types them as any value)
        middle = (float(cast(float, values.min())) + float(cast(float, values.max()))) / 2
    cells = base.mark_rect().encode(
        color=alt.Color("estimate:Q", title=f"predicted λ* ({unit})",
                        scale=alt.Scale(scheme="viridis")),
        tooltip=[alt.Tooltip("x:O", title=x_title), alt.Tooltip("y:O", title=y_title),
                 alt.Tooltip("estimate:Q", format=",.4g", title=f"predicted λ* ({unit})"),
                 alt.Tooltip("measured:Q", format=",.4g", title=f"measured λ* ({unit})")])
    text = base.mark_text(fontSize=11, lineBreak="\n").encode(
        text="label:N",
        color=alt.condition(f"datum.estimate < {middle:.6g}", alt.value("white"),
                            alt.value("black")))
    layers = [cells, text]
    measured = df.filter(pl.col("sample").is_not_null())
    if measured.height:
        layers.append(alt.Chart(measured).mark_rect(fillOpacity=0, strokeWidth=3).encode(
            x="x:O", y=alt.Y("y:O", sort="descending"),
            stroke=alt.Stroke("sample:N", title="", scale=alt.Scale(
                domain=["measured sample"], range=["#d62728"]),
                legend=alt.Legend(symbolType="square", symbolFillColor="white"))))
    mape = f"{100 * loo_mape:.1f} %" if loo_mape is not None else "undefined"
    fit = f", R² {r_squared:.3f}" if r_squared is not None else ""
    n_x, n_y = df["x"].n_unique(), df["y"].n_unique()
    return alt.layer(*layers).properties(
        width=min(WIDTH, 96 * n_x), height=min(HEIGHT + 80, 52 * n_y), title=_title(title),
        description=(f"Each cell is the λ* ({unit}) the quadratic model fitted to the "
                     f"{n_samples} outlined samples predicts there (the value is written in "
                     f"the cell, with the measured λ* under it where a search ran); "
                     f"leave-one-out MAPE {mape}{fit}."),
    )
