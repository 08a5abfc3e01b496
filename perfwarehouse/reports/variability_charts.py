"""Charts of the variability page (Laaber et al. (PeerJ Preprints 2018)): RSD
heatmaps and rankings, variance sources, detectable regressions, A/A tests.

Pure functions like every chart builder (a pre-aggregated table in, an ``alt.Chart``
out); the shared helpers are in :mod:`perfwarehouse.reports.charts`.
"""

from __future__ import annotations

import math

import altair as alt
import polars as pl

from perfwarehouse.reports.charts import (
    BLUE,
    CATEGORY,
    GREEN,
    HEIGHT,
    ORANGE,
    SKY,
    VERMILLION,
    WIDTH,
    Frame,
    Layered,
    _color,
    _first_number,
    _title,
    by_order,
    frame,
    long_label_axis,
    numeric_sort,
    with_order,
)


def rsd_heatmap(data: Frame, *, title: str) -> Layered:
    """Median total RSD per benchmark and hardware type (Laaber et al. (PeerJ Preprints 2018), §4.1, Table 3).

    ``data``: ``benchmark``, ``hardware_type``, ``rsd_pct`` (median over the
    benchmark's configurations), ``n_configs``.
    """
    df = frame(data, ["benchmark", "hardware_type", "rsd_pct", "n_configs"])
    base = alt.Chart(df).encode(
        x=alt.X("hardware_type:N", title="hardware type (environment)",
                axis=alt.Axis(labelAngle=-40)),
        y=alt.Y("benchmark:N", title="benchmark", axis=long_label_axis()))
    positive = df.filter(pl.col("rsd_pct") > 0)["rsd_pct"]
    # the colour scale spans the data (5th to 95th percentile, log), not a fixed range,
    # so the cells differ in colour whatever the campaign's typical RSD
    lo = float(positive.quantile(0.05) or 0.01) if positive.len() else 0.01
    hi = float(positive.quantile(0.95) or 1.0) if positive.len() else 1.0
    lo, hi = (lo, hi) if hi > lo * 1.5 else (lo / 2, lo * 4)
    middle = math.sqrt(lo * hi)
    cells = base.mark_rect().encode(
        color=alt.Color("rsd_pct:Q", title="median RSD (%, log)",
                        scale=alt.Scale(type="log", scheme="viridis", reverse=True,
                                        domain=[round(lo, 4), round(hi, 4)], clamp=True)),
        tooltip=["benchmark:N", "hardware_type:N",
                 alt.Tooltip("rsd_pct:Q", format=".3g", title="median RSD (%)"),
                 alt.Tooltip("n_configs:Q", title="configurations")])
    text = base.mark_text(fontSize=9).encode(
        text=alt.Text("rsd_pct:Q", format=".2g"),
        color=alt.condition(f"datum.rsd_pct > {middle:.4g}", alt.value("white"),
                            alt.value("black")))
    return alt.layer(cells, text).properties(
        width=alt.Step(44), height=alt.Step(16), title=_title(title),
        description=("Each cell is the median relative standard deviation (100·σ/μ, in %) of a "
                     "benchmark's configurations on one hardware type, also written in the "
                     "cell; darker cells vary more (the scale spans this campaign's values), so a "
                     "regression must be larger to be seen there."),
    )


def hardware_ranking(data: Frame, *, title: str) -> Layered:
    """Hardware types ranked by variability: the median total RSD of their
    configurations (bar) and the 90th percentile (tick), most variable on top.

    ``data``: ``hardware_type``, ``median_rsd_pct``, ``p90_rsd_pct``, ``configurations``.
    """
    df = frame(data, ["hardware_type", "median_rsd_pct", "p90_rsd_pct", "configurations"])
    df = with_order(df, "hardware_type", by="median_rsd_pct", descending=True)
    y = alt.Y("hardware_type:N", sort=by_order(), title="hardware type (most variable first)")
    marks = ["median (bar)", "90th percentile (tick)"]  # a legend, not colour unexplained
    color = alt.Color("mark:N", title="RSD of the configurations",
                      scale=alt.Scale(domain=marks, range=[BLUE, VERMILLION]))
    bars = alt.Chart(df).transform_calculate(mark=f"'{marks[0]}'").mark_bar().encode(
        y=y, x=alt.X("median_rsd_pct:Q", title="RSD of the configurations: median bar, "
                     "90th percentile tick (%)"), color=color,
        tooltip=["hardware_type:N",
                 alt.Tooltip("median_rsd_pct:Q", format=".3g", title="median RSD (%)"),
                 alt.Tooltip("p90_rsd_pct:Q", format=".3g", title="90th percentile RSD (%)"),
                 alt.Tooltip("configurations:Q")])
    ticks = alt.Chart(df).transform_calculate(mark=f"'{marks[1]}'").mark_tick(
        thickness=3, size=18).encode(y=y, x="p90_rsd_pct:Q", color=color)
    text = alt.Chart(df).mark_text(align="left", dx=4, fontSize=10).encode(
        y=y, x="median_rsd_pct:Q", text=alt.Text("median_rsd_pct:Q", format=".2g"))
    return alt.layer(bars, ticks, text).properties(
        width=WIDTH - 120, height=alt.Step(22), title=_title(title),
        description=("Each blue bar is the median relative standard deviation of one hardware "
                     "type's configurations (the number at its end) and the vermillion tick its "
                     "90th percentile; "
                     "the top rows are the noisiest machines, where a regression must be "
                     "largest to be seen."),
    )


def rsd_sources(data: Frame, *, title: str) -> alt.Chart:
    """Where the variance comes from: between nodes, between runs of a node, within
    runs (Laaber et al. (PeerJ Preprints 2018), §4.1), as the mean share per ``group``.

    ``data``: ``group``, ``source`` (``between nodes`` | ``between runs`` |
    ``within runs``), ``share_pct``, ``n_configs``.
    """
    df = frame(data, ["group", "source", "share_pct", "n_configs"])
    sources = ["between nodes", "between runs", "within runs"]
    df = df.with_columns(source_order=pl.col("source").replace_strict(
        sources, [0, 1, 2], default=9))
    return alt.Chart(df).mark_bar().encode(
        x=alt.X("share_pct:Q", title="mean share of the variance (%)", stack="zero",
                scale=alt.Scale(domain=[0, 100])),
        y=alt.Y("group:N", title="hardware type", sort=None),
        color=_color("source", "variance source", sources, [BLUE, ORANGE, GREEN]),
        order=alt.Order("source_order:Q"),
        tooltip=["group:N", "source:N", alt.Tooltip("share_pct:Q", format=".1f", title="share (%)"),
                 alt.Tooltip("n_configs:Q", title="configurations")],
    ).properties(
        width=WIDTH, height=alt.Step(22), title=_title(title),
        description=("Each bar splits the variance of a hardware type's configurations (mean over "
                     "them) into differences between nodes, between runs on a node and within a "
                     "run; a large blue part means results depend on the machine you get."),
    )


def rsd_components(data: Frame, *, title: str) -> Layered:
    """Total RSD and the mean per-node and per-run RSD (with ±1 sd across nodes/runs)
    of the most variable configurations (Laaber et al. (PeerJ Preprints 2018), §4.1, Figures 2-4).

    ``data``: ``config``, ``hardware_type``, ``component`` (``total`` | ``per node`` |
    ``per run``), ``rsd_pct``, ``low_pct``, ``high_pct``.
    """
    df = frame(data, ["config", "hardware_type", "component", "rsd_pct", "low_pct", "high_pct"])
    df = df.with_columns(label=pl.col("hardware_type") + pl.lit(" · ") + pl.col("config"))
    totals = df.filter(pl.col("component") == "total").select("label", total="rsd_pct")
    df = with_order(df.join(totals, on="label", how="left"), "label", by="total",
                    descending=True).drop("total")
    y = alt.Y("label:N", sort=by_order(), title="hardware type · configuration",
              axis=long_label_axis())
    # only the components drawn get a legend entry (no "per run" without marks: trials of
    # one value each have no RSD within a run)
    present = set(df["component"].to_list())
    drawn = [(c, k) for c, k in zip(["total", "per node", "per run"],
                                    ["#111111", BLUE, ORANGE]) if c in present]
    components = [c for c, _k in drawn]
    color = _color("component", "RSD of", components, [k for _c, k in drawn])
    spread = alt.Chart(df).mark_rule(strokeWidth=2, opacity=0.6).encode(
        y=y, yOffset=alt.YOffset("component:N", sort=components),
        x=alt.X("low_pct:Q", title="relative standard deviation RSD = 100·σ/μ (%)"),
        x2="high_pct:Q", color=color)
    points = alt.Chart(df).mark_point(filled=True, size=40).encode(
        y=y, yOffset=alt.YOffset("component:N", sort=components), x="rsd_pct:Q", color=color,
        tooltip=["label:N", "component:N", alt.Tooltip("rsd_pct:Q", format=".3g", title="RSD (%)"),
                 alt.Tooltip("low_pct:Q", format=".3g", title="mean − sd (%)"),
                 alt.Tooltip("high_pct:Q", format=".3g", title="mean + sd (%)")])
    return alt.layer(spread, points).properties(
        width=WIDTH - 240, height=alt.Step(9), title=_title(title),
        description=("For each configuration, black is the RSD over all values, blue the mean RSD "
                     "within one node and orange within one run (lines: ±1 sd across nodes or "
                     "runs); a total far above the per-run RSD means the variability comes from "
                     "nodes or runs, not from the benchmark itself."),
    )


def detectable_heatmap(data: Frame, *, title: str, strategy_text: str) -> Layered:
    """Laaber et al. (PeerJ Preprints 2018) Tables 6-7 as a heatmap: the minimal detectable regression per
    configuration and number of nodes (rows) and hardware type (columns).

    ``data``: ``row`` (configuration · k nodes), ``hardware_type``, ``detectable_pct``
    (null: none detectable), ``text`` (the number or ``no``), ``status``.
    """
    df = with_order(frame(data, ["row", "hardware_type", "detectable_pct", "text", "status"]),
                    "row")
    base = alt.Chart(df).encode(
        x=alt.X("hardware_type:N", title="hardware type (environment)",
                axis=alt.Axis(labelAngle=-40, orient="top")),
        y=alt.Y("row:N", sort=by_order(), title="configuration · nodes per group",
                axis=long_label_axis()))
    numbers = base.transform_filter("datum.detectable_pct != null").mark_rect().encode(
        color=alt.Color("detectable_pct:Q", title="detectable regression (%)",
                        scale=alt.Scale(type="log", domain=[1, 100], scheme="yellowgreenblue",
                                        reverse=True)),
        tooltip=["row:N", "hardware_type:N", alt.Tooltip("detectable_pct:Q", title="r (%)"),
                 "status:N"])
    none = base.transform_filter("datum.status == 'none'").mark_rect(
        color=VERMILLION, opacity=0.85).encode(tooltip=["row:N", "hardware_type:N", "status:N"])
    insufficient = base.transform_filter("datum.status == 'insufficient'").mark_rect(
        color="#e0e0e0").encode(tooltip=["row:N", "hardware_type:N", "status:N"])
    text = base.mark_text(fontSize=9).encode(
        text="text:N",
        color=alt.condition("datum.detectable_pct != null && datum.detectable_pct <= 3",
                            alt.value("white"), alt.value("black")))
    return alt.layer(numbers, none, insufficient, text).properties(
        width=alt.Step(46), height=alt.Step(15), title=_title(title),
        description=(f"Each cell is the smallest slowdown (in %) that {strategy_text} detects with "
                     "at most 5 % false and at least 95 % true positives; vermillion cells marked 'no' "
                     "cannot reliably detect even a 100 % regression, grey cells ('–') had too "
                     "few nodes to draw the groups."),
    )


def detectable_distribution(data: Frame, *, title: str, strategy_text: str) -> alt.Chart:
    """Laaber et al. (PeerJ Preprints 2018) Figures 8-9: how many configuration × hardware type combinations can
    detect each regression size, per number of nodes.

    ``data``: ``r_label`` (``1``, ``2`` … ``100``, ``no``), ``r_order``, ``nodes``
    (text), ``n``.
    """
    df = frame(data, ["r_label", "r_order", "nodes", "n"])
    return alt.Chart(df).mark_bar().encode(
        x=alt.X("r_label:N", sort=alt.EncodingSortField(field="r_order", op="min"),
                title="minimal detectable regression (%)",
                axis=alt.Axis(labelAngle=0)),
        xOffset=alt.XOffset("nodes:N", sort=numeric_sort(df["nodes"].to_list())),
        y=alt.Y("n:Q", title="configuration × hardware type combinations (count)",
                axis=alt.Axis(tickMinStep=1, format="d")),
        color=alt.Color("nodes:N", title="nodes per group",
                        sort=numeric_sort(df["nodes"].to_list()),
                        scale=alt.Scale(range=list(CATEGORY))),
        tooltip=["r_label:N", "nodes:N", alt.Tooltip("n:Q", title="combinations")],
    ).properties(
        width=WIDTH, height=HEIGHT, title=_title(title),
        description=("Bars count the combinations whose smallest detectable regression "
                     f"({strategy_text}) is the value on the x axis; more nodes shift the bars to "
                     "the left, towards smaller detectable regressions."),
    )


def aa_false_positives(data: Frame, *, title: str) -> Layered:
    """A/A false-positive rate of the rank-sum test (Laaber et al. (PeerJ Preprints 2018), §4.2.1) as a box
    per strategy and number of nodes, from pre-computed quantiles.

    ``data``: ``strategy``, ``nodes`` (text), ``q0``, ``q1``, ``q2``, ``q3``, ``q4``
    (min, quartiles, max of fp_rate in %), ``n``.
    """
    df = frame(data, ["strategy", "nodes", "q0", "q1", "q2", "q3", "q4", "n"])
    df = df.with_columns(group=pl.col("strategy") + pl.lit(" · ") + pl.col("nodes")
                         + pl.lit(" nodes"))
    y = alt.Y("group:N", title="sampling strategy · nodes per group", sort=None)
    whisker = alt.Chart(df).mark_rule().encode(
        y=y, x=alt.X("q0:Q", title="A/A false-positive rate of the rank-sum test (%)"),
        x2="q4:Q")
    box = alt.Chart(df).mark_bar(size=14, color=SKY).encode(y=y, x="q1:Q", x2="q3:Q")
    median = alt.Chart(df).mark_tick(color="#00314f", thickness=2, size=14).encode(
        y=y, x="q2:Q",
        tooltip=["group:N", alt.Tooltip("q2:Q", format=".1f", title="median FP rate (%)"),
                 alt.Tooltip("n:Q", title="combinations")])
    nominal = alt.Chart(pl.DataFrame({"alpha_pct": [5.0]})).mark_rule(
        strokeDash=[5, 3], color=VERMILLION).encode(x="alpha_pct:Q")
    return alt.layer(whisker, box, median, nominal).properties(
        width=WIDTH - 120, height=alt.Step(24), title=_title(title),
        description=("Each box shows, over all configurations and hardware types, how often two "
                     "samples of the same code were declared different (whiskers min-max, box "
                     "quartiles, dark tick median); the dashed line is the nominal 5 %."),
    )


def fp_tp_curves(data: Frame, *, title: str) -> Layered:
    """Mean false- and true-positive rate against the regression tested (Laaber et al. (PeerJ Preprints 2018)
    Figures 6-7), one line per strategy · nodes, FP dashed.

    ``data``: ``r_pct``, ``group``, ``rate`` (``false positives`` | ``true positives``),
    ``rate_pct``.
    """
    df = frame(data, ["r_pct", "group", "rate", "rate_pct"])
    lines = alt.Chart(df).mark_line(point=True).encode(
        x=alt.X("r_pct:Q", title="regression tested r (%, log)", scale=alt.Scale(type="log")),
        y=alt.Y("rate_pct:Q", title="mean rate over combinations (%)",
                scale=alt.Scale(domain=[0, 100])),
        color=alt.Color("group:N", title="strategy · nodes",
                        sort=sorted(set(df["group"].to_list()),
                                    key=lambda g: (g.split(" · ")[0], _first_number(g), g)),
                        scale=alt.Scale(range=list(CATEGORY))),
        strokeDash=alt.StrokeDash("rate:N", title="rate",
                                  scale=alt.Scale(domain=["true positives", "false positives"],
                                                  range=[[1, 0], [5, 3]]),
                                  # drawn as lines (solid, dashed), not as two black dots
                                  legend=alt.Legend(symbolType="stroke", symbolSize=500,
                                                    symbolStrokeWidth=2,
                                                    symbolStrokeColor="#333")),
        tooltip=["group:N", "rate:N", alt.Tooltip("r_pct:Q", title="r (%)"),
                 alt.Tooltip("rate_pct:Q", format=".1f", title="rate (%)")])
    limits = alt.Chart(pl.DataFrame({"limit": [5.0, 95.0]})).mark_rule(
        color="#999", strokeDash=[2, 2]).encode(y="limit:Q")
    return alt.layer(lines, limits).properties(
        width=WIDTH, height=HEIGHT, title=_title(title),
        description=("Solid lines are how often a slowdown of r % was caught, dashed lines how "
                     "often the threshold r/2 % flagged a change that was not there; r is "
                     "detectable where the solid line is above 95 % and the dashed below 5 % "
                     "(grey rules)."),
    )
