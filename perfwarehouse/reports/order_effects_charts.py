"""Charts of the order-effects page (Duplyakin et al. (OrderSage, USENIX ATC 2023)):
p-values and effect sizes, the Δ% curve, CI cases, polluters.

Pure functions like every chart builder (a pre-aggregated table in, an ``alt.Chart``
out); the shared helpers are in :mod:`perfwarehouse.reports.charts`.
"""

from __future__ import annotations

from typing import cast

import altair as alt
import polars as pl

from perfwarehouse.reports.charts import (
    BLUE,
    GREY,
    HEIGHT,
    ORANGE,
    VERMILLION,
    WIDTH,
    Frame,
    Layered,
    _color,
    _shape,
    _title,
    by_order,
    format_confidence,
    frame,
    long_label_axis,
    thin_sorted,
    unit_title,
    with_order,
)

P_FLOOR = 1e-30
"""p-values below this are drawn at it (Duplyakin et al. (OrderSage, USENIX ATC 2023), Figure 2 does the same)."""
CI_CASES = ("Case 1: CIs disjoint", "Case 2: a median inside the other CI",
            "Case 3: CIs overlap, medians outside", "no CI (too few trials)")
CASE_COLORS = (VERMILLION, BLUE, ORANGE, GREY)
DECISION = ("order matters (p < α/m)", "no evidence (p ≥ α/m)")
DECISION_COLORS = (VERMILLION, GREY)
DECISION_SHAPES = ("triangle-up", "circle")


def order_pvalues_effects(data: Frame, *, alpha_family: float, title: str,
                          max_points: int = 1500) -> alt.HConcatChart:
    """Duplyakin et al. (OrderSage, USENIX ATC 2023) Figures 2-3: Kruskal-Wallis p-values (left) and η²_H (right), both
    against the configurations sorted by increasing η²_H.

    ``data``: one row per configuration with ``config``, ``hardware_type``, ``kw_p``,
    ``eta2`` and ``significant`` (the job's decision at the family-wise level);
    ``alpha_family`` is α/m, drawn as a horizontal rule.
    """
    df = frame(data, ["config", "hardware_type", "kw_p", "eta2", "significant"])
    df = df.filter(pl.col("kw_p").is_not_null() & pl.col("eta2").is_not_null())
    df = df.sort(["eta2", "kw_p"], descending=[False, True]).with_columns(
        rank=pl.int_range(1, pl.len() + 1),
        p_shown=pl.col("kw_p").clip(lower_bound=P_FLOOR),
        decision=pl.when(pl.col("significant")).then(pl.lit(DECISION[0]))
        .otherwise(pl.lit(DECISION[1])),
    )
    df = thin_sorted(df, max_points).drop("significant")
    x = alt.X("rank:Q", title="configurations sorted by increasing η²_H (rank)",
              scale=alt.Scale(domainMin=1, nice=False),
              axis=alt.Axis(tickMinStep=1, format="d"))  # a rank: whole numbers only
    color = _color("decision", "Kruskal-Wallis", DECISION, DECISION_COLORS)
    shape = _shape("decision", "Kruskal-Wallis", DECISION, DECISION_SHAPES)
    tooltip = ["config:N", "hardware_type:N", alt.Tooltip("kw_p:Q", format=".3g", title="p"),
               alt.Tooltip("eta2:Q", format=".4f", title="η²_H")]
    base = alt.Chart(df).properties(width=WIDTH // 2 - 20, height=HEIGHT)
    pvals = base.mark_point(filled=True, size=14).encode(
        x=x, y=alt.Y("p_shown:Q", scale=alt.Scale(type="log"),
                     title=f"Kruskal-Wallis p-value (probability, log; < {P_FLOOR:g} drawn at it)"),
        color=color, shape=shape, tooltip=tooltip)
    rule = alt.Chart(pl.DataFrame({"alpha_family": [alpha_family]})).mark_rule(
        strokeDash=[5, 3], color="#333").encode(y="alpha_family:Q")
    effects = base.mark_point(filled=True, size=14).encode(
        x=x, y=alt.Y("eta2:Q", title="effect size η²_H (fraction of rank variance, 0-1)"),
        color=color, shape=shape, tooltip=tooltip)
    return alt.hconcat(
        alt.layer(pvals, rule).properties(title="p-values (dashed: α/m)"),
        effects.properties(title="effect sizes"),
    ).properties(
        title=_title(title),
        description=("Each point is one configuration, sorted left to right by its effect size "
                     "η²_H; points below the dashed line (α/m, Bonferroni) are vermillion "
                     "triangles: for them the fixed and random orders give different distributions, and the right panel "
                     "shows how large that difference is."),
    )


def order_delta_curve(data: Frame, *, title: str, max_points: int = 800) -> Layered:
    """Duplyakin et al. (OrderSage, USENIX ATC 2023) Figure 4: Δ% = (mean fixed − mean random)/mean fixed × 100, sorted,
    one curve per ``group`` (x: the configuration's position as % of its group)."""
    df = frame(data, ["group", "config", "hardware_type", "delta_pct"])
    df = df.filter(pl.col("delta_pct").is_not_null()).sort(["group", "delta_pct"])
    df = df.with_columns(
        position_pct=(pl.int_range(0, pl.len()).over("group") + 0.5)
        / pl.len().over("group") * 100)
    df = pl.concat([thin_sorted(g, max_points) for _, g in df.group_by("group",
                                                                    maintain_order=True)]) \
        if df.height else df
    line = alt.Chart(df).mark_line(point=alt.OverlayMarkDef(size=12, filled=True)).encode(
        x=alt.X("position_pct:Q", title="configurations sorted by Δ% (% of the group)",
                scale=alt.Scale(domain=[0, 100])),
        y=alt.Y("delta_pct:Q", title="Δ% = (mean fixed − mean random) / mean fixed (%)"),
        color=alt.Color("group:N", title="campaign (· family)"),
        tooltip=["group:N", "config:N", "hardware_type:N",
                 alt.Tooltip("delta_pct:Q", format=".2f", title="Δ%")],
    )
    zero = alt.Chart(pl.DataFrame({"zero": [0.0]})).mark_rule(color="#333").encode(y="zero:Q")
    return alt.layer(line, zero).properties(
        width=WIDTH, height=HEIGHT, title=_title(title),
        description=("Each curve is one campaign's configurations sorted by Δ%; above zero the "
                     "fixed order had the larger mean (better for throughput, worse for run "
                     "times), and the spread of the curve shows how big order effects are."),
    )


def ci_examples(data: Frame, *, title: str) -> alt.HConcatChart:
    """Duplyakin et al. (OrderSage, USENIX ATC 2023) Figure 5: one example configuration per CI case, with each order's
    median (diamond) and its distribution-free CI (bar, dashed limits across).

    ``data``: two rows (``fixed``, ``random``) per example with ``case_label``,
    ``config``, ``unit``, ``order_kind``, ``median``, ``low``, ``high``, ``confidence_pct``.
    """
    df = frame(data, ["case_label", "config", "unit", "order_kind", "median", "low", "high",
                      "confidence_pct"])
    panels = []
    for case in CI_CASES:
        part = df.filter(pl.col("case_label") == case)
        if part.height == 0:
            continue
        unit = part["unit"][0]
        conf = part["confidence_pct"][0]
        color = alt.Color("order_kind:N", title="order",
                          scale=alt.Scale(domain=["fixed", "random"], range=[BLUE, ORANGE]))
        base = alt.Chart(part).encode(
            x=alt.X("order_kind:N", title="order of the runs", sort=["fixed", "random"],
                    axis=alt.Axis(labelAngle=0)), color=color)
        yscale = alt.Scale(zero=False, padding=12)
        ytitle = unit_title(f"median and {format_confidence(conf)} % CI", unit)
        band = base.mark_bar(size=26, opacity=0.35).encode(
            y=alt.Y("low:Q", title=ytitle, scale=yscale), y2="high:Q")
        # the CI limits extended across the panel (no x: a rule spans the width)
        across = alt.Chart(part).mark_rule(strokeDash=[4, 3], size=1, opacity=0.8)
        limits_low = across.encode(y=alt.Y("low:Q"), color=color)
        limits_high = across.encode(y=alt.Y("high:Q"), color=color)
        median = base.mark_point(shape="diamond", filled=True, size=110).encode(
            y=alt.Y("median:Q"),
            tooltip=["config:N", "order_kind:N", alt.Tooltip("median:Q", format=".5g"),
                     alt.Tooltip("low:Q", format=".5g"), alt.Tooltip("high:Q", format=".5g")])
        panels.append(alt.layer(band, limits_low, limits_high, median).properties(
            width=150, height=HEIGHT,
            title=alt.Title(case, subtitle=str(part["config"][0]), anchor="start",
                            subtitleFontSize=10)))
    return alt.hconcat(*panels).resolve_scale(y="independent").properties(
        title=_title(title),
        description=("Each panel is one configuration: the bar is the distribution-free CI of the "
                     "median for fixed and for random order and the diamond the median; disjoint "
                     "bars (case 1) mean the order changes the conclusion, a median inside the "
                     "other bar (case 2) means it does not, case 3 is inconclusive."),
    )


def ci_case_counts(data: Frame, *, title: str) -> Layered:
    """Duplyakin et al. (OrderSage, USENIX ATC 2023) Figure 6: share of configurations in each CI case, one bar per ``group``,
    each part labelled with its case number (not only its colour).

    ``data``: ``group``, ``case_label`` (one of :data:`CI_CASES`), ``n``.
    """
    df = frame(data, ["group", "case_label", "n"])
    df = df.with_columns(share_pct=pl.col("n") / pl.col("n").sum().over("group") * 100,
                         case_order=pl.col("case_label").replace_strict(
                             list(CI_CASES), list(range(len(CI_CASES))), default=9))
    df = df.sort(["group", "case_order"]).with_columns(
        end_pct=pl.col("share_pct").cum_sum().over("group"))
    df = df.with_columns(start_pct=pl.col("end_pct") - pl.col("share_pct"),
                         mid_pct=pl.col("end_pct") - pl.col("share_pct") / 2,
                         case_text=pl.col("case_order").replace_strict(
                             [0, 1, 2, 3], ["1", "2", "3", "–"], default="?",
                             return_dtype=pl.String))
    y = alt.Y("group:N", title="campaign (· family of comparisons)", sort=None)
    bars = alt.Chart(df).mark_bar().encode(
        x=alt.X("start_pct:Q", title="share of configurations (%)",
                scale=alt.Scale(domain=[0, 100])), x2="end_pct:Q", y=y,
        color=_color("case_label", "CI case", CI_CASES, CASE_COLORS),
        tooltip=["group:N", "case_label:N", alt.Tooltip("n:Q", title="configurations"),
                 alt.Tooltip("share_pct:Q", format=".1f", title="share (%)")])
    labels = alt.Chart(df.filter(pl.col("share_pct") >= 4)).mark_text(
        color="white", fontWeight="bold").encode(x="mid_pct:Q", y=y, text="case_text:N")
    return alt.layer(bars, labels).properties(
        width=WIDTH, height=alt.Step(26), title=_title(title),
        description=("Each bar splits one group's configurations by how the CIs of the fixed- and "
                     "random-order medians relate (each part labelled with its case number); the "
                     "longer the case 1 part, the more "
                     "conclusions would change with the order of the runs."),
    )


def polluters(data: Frame, *, title: str) -> Layered:
    """The polluter leaderboard (beyond Duplyakin et al. (OrderSage, USENIX ATC 2023), its future work): per hardware type,
    the tests that are the significant worst predecessor of the most configurations.

    ``data``: ``hardware_type``, ``predecessor`` (the full name, never cut),
    ``victims``, ``median_worse_pct`` (how much worse the victims' median is after
    it, + = worse by the metric's direction).
    """
    df = frame(data, ["hardware_type", "predecessor", "victims", "median_worse_pct"])
    df = df.with_columns(label=pl.col("hardware_type") + pl.lit(" · ") + pl.col("predecessor"),
                         text=pl.col("victims").cast(pl.String)
                         + pl.when(pl.col("victims") == 1).then(pl.lit(" victim, "))
                         .otherwise(pl.lit(" victims, "))
                         + pl.col("median_worse_pct").round(1).cast(pl.String)
                         + pl.lit(" % worse"))
    # most victims first (issue 40: the bars were in the order of the hardware types)
    df = with_order(df.sort(["victims", "median_worse_pct"], descending=True,
                            maintain_order=True), "label")
    y = alt.Y("label:N", sort=by_order(), title="hardware type · test that ran just before",
              axis=long_label_axis())
    most = cast("int | None", df["victims"].max())  # a count column: an int, None if empty
    bars = alt.Chart(df).mark_bar(color=VERMILLION, opacity=0.85).encode(
        y=y, x=alt.X("victims:Q", title="victims: configurations it makes significantly worse "
                     "(count)", axis=alt.Axis(tickMinStep=1, format="d",
                                            tickCount=int(min(max(most or 1, 1), 10)))),
        tooltip=["hardware_type:N", "predecessor:N", alt.Tooltip("victims:Q"),
                 alt.Tooltip("median_worse_pct:Q", format=".1f", title="median worse (%)")])
    text = alt.Chart(df).mark_text(align="left", dx=4, fontSize=11).encode(
        y=y, x="victims:Q", text="text:N")
    return alt.layer(bars, text).properties(
        width=WIDTH - 260, height=alt.Step(20), title=_title(title),
        description=("Each bar is a test on one hardware type and its length the number of "
                     "configurations whose median is significantly worse right after it (the "
                     "label gives the median slowdown): run such polluters last, in isolation, "
                     "or reset the machine after them."),
    )
