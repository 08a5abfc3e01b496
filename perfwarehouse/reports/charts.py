"""Chart builders: a pre-aggregated table in, an ``alt.Chart`` out. Pure functions.

Every chart carries a title, axis titles with units, and a one-sentence caption on
how to read it (the Vega-Lite ``description``, which the page shows under the
chart). Inputs are small tables that the page modules aggregate first; curves of
thousands of configurations are thinned to at most ``max_points`` evenly spaced
ranks (:func:`thin_sorted`), so a page stays a few MB whatever the campaign size.

Strings from the data (benchmark names come from logs) go into the chart data only,
never into markup; :mod:`perfwarehouse.reports.render` embeds the specs safely.
Tests snapshot ``chart.to_dict()`` (``tests/snapshots/reports/``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence

import altair as alt
import polars as pl
import pyarrow as pa

WIDTH = 620
HEIGHT = 280
P_FLOOR = 1e-30
"""p-values below this are drawn at it (Duplyakin et al. (OrderSage, USENIX ATC 2023), Figure 2 does the same)."""

# Colours: the Okabe-Ito palette (distinguishable with every common colour-vision
# deficiency); a meaning is never carried by colour alone (shape, text or a legend
# title in words as well).
VERMILLION, ORANGE, BLUE, SKY, GREEN, PURPLE, GREY = (
    "#D55E00", "#E69F00", "#0072B2", "#56B4E9", "#009E73", "#CC79A7", "#999999")
CATEGORY = (BLUE, ORANGE, GREEN, VERMILLION, PURPLE, SKY, "#F0E442", "#000000")
CI_CASES = ("Case 1: CIs disjoint", "Case 2: a median inside the other CI",
            "Case 3: CIs overlap, medians outside", "no CI (too few trials)")
CASE_COLORS = (VERMILLION, BLUE, ORANGE, GREY)
DECISION = ("order matters (p < α/m)", "no evidence (p ≥ α/m)")
DECISION_COLORS = (VERMILLION, GREY)
DECISION_SHAPES = ("triangle-up", "circle")
CHANGE = ("new", "persisting", "resolved")
CHANGE_COLORS = (VERMILLION, ORANGE, BLUE)

Frame = pl.DataFrame | pa.Table


# ------------------------------------------------------------------ helpers
def frame(data: Frame, columns: Sequence[str]) -> pl.DataFrame:
    """The columns a chart uses, NaN as null and floats to 5 significant digits
    (enough for any axis, and half the bytes)."""
    df = data if isinstance(data, pl.DataFrame) else pl.from_arrow(data)
    assert isinstance(df, pl.DataFrame)
    df = df.select(list(columns))
    floats = [c for c, t in df.schema.items() if t.is_float()]
    return df.with_columns(pl.col(c).fill_nan(None).round_sig_figs(5) for c in floats)


def thin_sorted(df: pl.DataFrame, max_points: int) -> pl.DataFrame:
    """At most ``max_points`` rows of an already sorted frame, evenly spaced by rank
    (first and last kept), so a sorted curve keeps its shape."""
    n = df.height
    if n <= max_points:
        return df
    keep = sorted({round(i * (n - 1) / (max_points - 1)) for i in range(max_points)})
    return df[keep]


def labelled(rows: pa.Table) -> pl.DataFrame:
    """An analysis table's rows as a DataFrame with a ``config`` column: the short name
    of each row's configuration (:func:`config_labels`)."""
    df = pl.from_arrow(rows)
    assert isinstance(df, pl.DataFrame)
    return df.with_columns(config=pl.Series(
        config_labels(df["benchmark"], df["settings"], df["metric"]), dtype=pl.String))


def config_labels(benchmarks: Sequence[str | None], settings: Sequence[str | None],
                  metrics: Sequence[str | None] | None = None, max_len: int = 80) -> list[str]:
    """Short human names of configurations: ``benchmark k=v … [metric]``.

    Only the settings keys whose values differ between the given configurations are
    shown (a key every configuration has with the same value says nothing), and the
    metric only when there is more than one. ``settings`` is canonical JSON text;
    text that is not a JSON object is shown as it is when it differs. Long names are
    cut with an ellipsis (tables show the full benchmark and settings).
    """
    parsed = [_settings_dict(s) for s in settings]
    keys: dict[str, None] = {}
    for p in parsed:
        if isinstance(p, dict):
            keys.update(dict.fromkeys(p))
    def value(p: dict[str, object] | str | None, k: str) -> str:
        return json.dumps(p.get(k), sort_keys=True) if isinstance(p, dict) else "\0"
    varying = [k for k in keys if len({value(p, k) for p in parsed}) > 1]
    raw_varies = len({p for p in parsed if isinstance(p, str)}) > 1
    show_metric = metrics is not None and len(set(metrics)) > 1
    labels = []
    for i, bench in enumerate(benchmarks):
        parts = [str(bench)]
        p = parsed[i]
        if isinstance(p, dict):
            parts.extend(f"{k}={_plain(p[k])}" for k in varying if k in p)
        elif isinstance(p, str) and raw_varies:
            parts.append(p)
        if show_metric and metrics is not None and metrics[i] is not None:
            parts.append(f"[{metrics[i]}]")
        label = " ".join(parts)
        labels.append(label if len(label) <= max_len else label[: max_len - 1] + "…")
    return labels


def _settings_dict(text: str | None) -> dict[str, object] | str | None:
    if not text:
        return None
    try:
        parsed = json.loads(text)
    except ValueError:
        return text
    return parsed if isinstance(parsed, dict) else (None if parsed in ({}, [], None) else text)


def _plain(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def unit_title(quantity: str, unit: str | None) -> str:
    """An axis title with its unit, saying so when the unit is unknown."""
    return f"{quantity} ({unit})" if unit else f"{quantity} (unit not recorded)"


def long_label_axis(limit: int = 0) -> alt.Axis:
    """A y axis for long category names: labels never cut (``labelLimit`` 0; names are
    already at most 80 characters, :func:`config_labels`) unless a ``limit`` in pixels is
    given, the axis title set horizontally above the labels (where it cannot overlap them)."""
    return alt.Axis(labelLimit=limit, titleAngle=0, titleAlign="right", titleAnchor="start",
                    titleBaseline="bottom", titleX=0, titleY=-8)


def _title(text: str, subtitle: str | None = None) -> alt.Title:
    if subtitle:
        return alt.Title(text, subtitle=subtitle, anchor="start")
    return alt.Title(text, anchor="start")


def with_order(df: pl.DataFrame, label: str, by: str | None = None,
               descending: bool = False) -> pl.DataFrame:
    """Add ``order`` = the rank of each ``label`` (by its first row after sorting by
    ``by``, else in the given order), for sorting a category axis.

    Charts sort categories by this number, never by a list of the labels: Vega-Lite
    compiles such a list into an expression, and a data string (a benchmark name with
    U+2028 in it) must not be able to break an expression.
    """
    ordered = (df.sort(by, descending=descending, nulls_last=True) if by else df)[label]
    names = ordered.unique(maintain_order=True)
    ranks = pl.DataFrame({label: names, "order": pl.int_range(0, names.len(), eager=True)})
    return df.join(ranks, on=label, how="left", nulls_equal=True)


def by_order() -> alt.EncodingSortField:
    return alt.EncodingSortField(field="order", op="min", order="ascending")


def _color(field: str, title: str, domain: Sequence[str], colors: Sequence[str]) -> alt.Color:
    return alt.Color(f"{field}:N", title=title,
                     scale=alt.Scale(domain=list(domain), range=list(colors)))


def _shape(field: str, title: str, domain: Sequence[str], shapes: Sequence[str]) -> alt.Shape:
    return alt.Shape(f"{field}:N", title=title,
                     scale=alt.Scale(domain=list(domain), range=list(shapes)))


def numeric_sort(values: Sequence[str]) -> list[str]:
    """Category names in the order of the first number in each ("1", "5", "20"; not the
    text order "1", "20", "5"), then as text."""
    return sorted(set(values), key=lambda v: (_first_number(v), v))


def _first_number(text: str) -> float:
    m = re.search(r"-?\d+(?:\.\d+)?", text)
    return float(m.group(0)) if m else math.inf


def format_confidence(pct: float) -> str:
    """A confidence in % with as many decimals as it takes not to round up to 100
    (99.997 % is "99.997", never "100"); 95 stays "95"."""
    if not math.isfinite(pct) or pct >= 100:
        return f"{pct:g}"
    if float(f"{pct:.4g}") < 100:
        return f"{pct:.4g}"
    gap = 100.0 - pct
    digits = max(0, math.ceil(-math.log10(gap)))
    while round(pct, digits) >= 100:
        digits += 1
    text = f"{pct:.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


# ------------------------------------------------------- order effects (Duplyakin et al. (OrderSage, USENIX ATC 2023))
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
              scale=alt.Scale(domainMin=1, nice=False))
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
                     "η²_H; points below the dashed line (α/m, Bonferroni) are orange "
                     "triangles: for them the fixed and random orders give different distributions, and the right panel "
                     "shows how large that difference is."),
    )


def order_delta_curve(data: Frame, *, title: str, max_points: int = 800) -> alt.Chart:
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


def ci_case_counts(data: Frame, *, title: str) -> alt.LayerChart:
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


def polluters(data: Frame, *, title: str) -> alt.LayerChart:
    """The polluter leaderboard (beyond Duplyakin et al. (OrderSage, USENIX ATC 2023), its future work): per hardware type,
    the tests that are the significant worst predecessor of the most configurations.

    ``data``: ``hardware_type``, ``predecessor`` (the full name, never cut),
    ``victims``, ``median_worse_pct`` (how much worse the victims' median is after
    it, + = worse by the metric's direction).
    """
    df = frame(data, ["hardware_type", "predecessor", "victims", "median_worse_pct"])
    df = df.with_columns(label=pl.col("hardware_type") + pl.lit(" · ") + pl.col("predecessor"),
                         text=pl.col("victims").cast(pl.String) + pl.lit(" victims, ")
                         + pl.col("median_worse_pct").round(1).cast(pl.String)
                         + pl.lit(" % worse"))
    df = with_order(df, "label")
    y = alt.Y("label:N", sort=by_order(), title="hardware type · test that ran just before",
              axis=long_label_axis())
    bars = alt.Chart(df).mark_bar(color=VERMILLION, opacity=0.85).encode(
        y=y, x=alt.X("victims:Q", title="victims: configurations it makes significantly worse "
                     "(count)", axis=alt.Axis(tickMinStep=1, format="d",
                                            tickCount=int(min(max(df["victims"].max() or 1, 1),
                                                              10)))),
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


# ------------------------------------------------------ variability (Laaber et al. (PeerJ Preprints 2018))
def rsd_heatmap(data: Frame, *, title: str) -> alt.Chart:
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


def hardware_ranking(data: Frame, *, title: str) -> alt.LayerChart:
    """Hardware types ranked by variability: the median total RSD of their
    configurations (bar) and the 90th percentile (tick), most variable on top.

    ``data``: ``hardware_type``, ``median_rsd_pct``, ``p90_rsd_pct``, ``configurations``.
    """
    df = frame(data, ["hardware_type", "median_rsd_pct", "p90_rsd_pct", "configurations"])
    df = with_order(df, "hardware_type", by="median_rsd_pct", descending=True)
    y = alt.Y("hardware_type:N", sort=by_order(), title="hardware type (most variable first)")
    bars = alt.Chart(df).mark_bar(color=BLUE).encode(
        y=y, x=alt.X("median_rsd_pct:Q", title="RSD of the configurations: median bar, "
                     "90th percentile tick (%)"),
        tooltip=["hardware_type:N",
                 alt.Tooltip("median_rsd_pct:Q", format=".3g", title="median RSD (%)"),
                 alt.Tooltip("p90_rsd_pct:Q", format=".3g", title="90th percentile RSD (%)"),
                 alt.Tooltip("configurations:Q")])
    ticks = alt.Chart(df).mark_tick(color=VERMILLION, thickness=3, size=18).encode(
        y=y, x="p90_rsd_pct:Q")
    text = alt.Chart(df).mark_text(align="left", dx=4, fontSize=10).encode(
        y=y, x="median_rsd_pct:Q", text=alt.Text("median_rsd_pct:Q", format=".2g"))
    return alt.layer(bars, ticks, text).properties(
        width=WIDTH - 120, height=alt.Step(22), title=_title(title),
        description=("Each bar is the median relative standard deviation of one hardware type's "
                     "configurations (the number at its end) and the tick its 90th percentile; "
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


def rsd_components(data: Frame, *, title: str) -> alt.Chart:
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
    components = ["total", "per node", "per run"]
    color = _color("component", "RSD of", components, ["#111111", BLUE, ORANGE])
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


def detectable_heatmap(data: Frame, *, title: str, strategy_text: str) -> alt.Chart:
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
        y=alt.Y("n:Q", title="configuration × hardware type combinations (count)"),
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


def aa_false_positives(data: Frame, *, title: str) -> alt.Chart:
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


def fp_tp_curves(data: Frame, *, title: str) -> alt.Chart:
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
                                                  range=[[1, 0], [5, 3]])),
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


# ------------------------------------------------------------- TriScale (Jacob et al. (TriScale, JSys 2021))
def convergence_run(points: Frame, windows: Frame, fit: Frame, *, title: str,
                    unit: str | None, measure: str,
                    x_title: str = "time since the start of the run (s)") -> alt.LayerChart:
    """Jacob et al. (TriScale, JSys 2021), Figure 3a: one run's raw values over time, the measure over sliding
    windows, the Theil-Sen line of the window measures and its CI, and the tolerance
    band, all on the raw scale (the test itself works on [-1, 1]).

    ``points``: ``x``, ``value``; ``windows``: ``x``, ``measure``; ``fit``: ``x``,
    ``fit``, ``low``, ``high``, ``tol_low``, ``tol_high`` at the two ends of the run.
    """
    p = frame(points, ["x", "value"])
    w = frame(windows, ["x", "measure"])
    f = frame(fit, ["x", "fit", "low", "high", "tol_low", "tol_high"])
    x = alt.X("x:Q", title=x_title)
    ytitle = unit_title("value", unit)
    raw = alt.Chart(p).mark_point(size=8, opacity=0.35, color="#7f7f7f").encode(
        x=x, y=alt.Y("value:Q", title=ytitle, scale=alt.Scale(zero=False)))
    win = alt.Chart(w).mark_line(color="#1f77b4", point=alt.OverlayMarkDef(size=10)).encode(
        x=x, y="measure:Q", tooltip=[alt.Tooltip("measure:Q", format=".5g", title=measure)])
    tol = alt.Chart(f).mark_area(opacity=0.12, color="#2ca02c").encode(
        x=x, y="tol_low:Q", y2="tol_high:Q")
    ci = alt.Chart(f).mark_area(opacity=0.3, color="#17becf").encode(x=x, y="low:Q", y2="high:Q")
    line = alt.Chart(f).mark_line(color="#8c564b", strokeWidth=2).encode(x=x, y="fit:Q")
    return alt.layer(raw, tol, ci, win, line).properties(
        width=WIDTH, height=HEIGHT, title=_title(title),
        description=(f"Grey points are the run's values, blue the {measure} over sliding windows, "
                     "brown the Theil-Sen trend of those window values with its CI (light blue); "
                     "the run has converged when the CI stays inside the green tolerance band."),
    )


def kpi_chart(data: Frame, *, title: str) -> alt.LayerChart:
    """KPIs (Jacob et al. (TriScale, JSys 2021), §4.3, Figure 3b): each series' one-sided percentile bound
    (diamond) and, when given, its run metrics (ticks).

    ``data``: ``label``, ``kind`` (``metric`` | ``KPI``), ``value_pct`` (relative to
    the series' median, in %), ``independent``.
    """
    df = with_order(frame(data, ["label", "kind", "value_pct", "independent"]), "label")
    y = alt.Y("label:N", sort=by_order(), title="series (hardware type · configuration · series)",
              axis=long_label_axis())
    x = alt.X("value_pct:Q", title="run metric relative to the series median (%)")
    kpi = alt.Chart(df.filter(pl.col("kind") == "KPI")).mark_point(
        filled=True, size=90).encode(
        y=y, x=x, color=alt.Color("independent:N", title="runs independent",
                                  scale=alt.Scale(domain=["yes", "no"],
                                                  range=[BLUE, VERMILLION])),
        shape=_shape("independent", "runs independent", ["yes", "no"], ["diamond", "cross"]),
        tooltip=["label:N", alt.Tooltip("value_pct:Q", format=".3g", title="KPI (% of median)"),
                 "independent:N"])
    layers = [kpi]
    runs = df.filter(pl.col("kind") == "metric")
    if runs.height:  # the run metrics, when the table has them
        layers.insert(0, alt.Chart(runs).mark_tick(color=GREY, thickness=1).encode(y=y, x=x))
        what = "Grey ticks are the run metrics of a series and the diamond its KPI"
    else:  # the caption says only what is drawn
        what = "Each diamond is a series' KPI relative to the series' median run metric"
    return alt.layer(*layers).properties(
        width=WIDTH - 220, height=alt.Step(18), title=_title(title),
        description=(f"{what}, a bound that the chosen percentile of the runs stays on one side "
                     "of with the stated confidence; an orange cross instead of a blue diamond "
                     "marks a KPI whose runs failed the independence test, to be read as "
                     "descriptive only."),
    )


def variability_scores(data: Frame, *, title: str) -> alt.Chart:
    """Variability scores across sequels (Jacob et al. (TriScale, JSys 2021), §4.4, Figure 3c): the
    interval covering the chosen percentile range of the KPIs, as % of its midpoint.

    ``data``: ``label``, ``low_pct``, ``high_pct`` (bounds relative to the midpoint, %),
    ``relative_pct``, ``independent``.
    """
    df = frame(data, ["label", "low_pct", "high_pct", "relative_pct", "independent"])
    df = df.with_columns(label=pl.when(pl.col("independent") == "no")
                         .then(pl.col("label") + pl.lit(" (not independent)"))
                         .otherwise(pl.col("label")))
    df = with_order(df, "label", by="relative_pct", descending=True)
    y = alt.Y("label:N", sort=by_order(), title="hardware type · configuration",
              axis=long_label_axis())
    bars = alt.Chart(df).mark_bar(size=10).encode(
        y=y, x=alt.X("low_pct:Q", title="variability interval around its midpoint (%)"),
        x2="high_pct:Q",
        color=alt.Color("independent:N", title="KPIs independent",
                        scale=alt.Scale(domain=["yes", "no"], range=[BLUE, VERMILLION])),
        tooltip=["label:N", alt.Tooltip("relative_pct:Q", format=".3g",
                                        title="relative score (%)"), "independent:N"])
    return bars.properties(
        width=WIDTH - 220, height=alt.Step(18), title=_title(title),
        description=("Each bar spans the interval that holds the chosen percentile range of the "
                     "KPIs of repeated series, relative to its midpoint: the wider the bar, the "
                     "less reproducible the result across time."),
    )


def autocorrelation(data: Frame, periods: Frame, *, title: str, lag_unit: str) -> alt.LayerChart:
    """Jacob et al. (TriScale, JSys 2021), Figure 5: sample autocorrelation against lag with its 95 % band; the
    lags reported as seasonal periods are marked.

    ``data``: ``lag`` (in ``lag_unit``), ``acf``, ``band``; ``periods``: ``lag``,
    ``label``.
    """
    df = frame(data, ["lag", "acf", "band"])
    per = frame(periods, ["lag", "label"])
    x = alt.X("lag:Q", title=f"lag ({lag_unit})", scale=alt.Scale(domainMin=0, nice=False))
    y = alt.Y("acf:Q", title="autocorrelation (-1 to 1)", scale=alt.Scale(domain=[-1, 1]))
    band = alt.Chart(df).transform_calculate(neg="-datum.band").mark_area(
        opacity=0.18, color="#1f77b4").encode(
        x=x, y=alt.Y("neg:Q", title="autocorrelation (-1 to 1)", scale=alt.Scale(domain=[-1, 1])),
        y2="band:Q")
    bars = alt.Chart(df).mark_bar(size=2, color="#333").encode(
        x=x, y=y,
        tooltip=[alt.Tooltip("lag:Q", format=".3g"), alt.Tooltip("acf:Q", format=".3f")])
    marks = alt.Chart(per).mark_rule(color="#d62728", strokeDash=[4, 3]).encode(
        x="lag:Q", tooltip=["label:N"])
    labels = alt.Chart(per).mark_text(color="#d62728", dy=-6, align="left", dx=3,
                                      fontSize=10).encode(
        x="lag:Q", y=alt.value(8), text="label:N")
    return alt.layer(band, bars, marks, labels).properties(
        width=WIDTH, height=HEIGHT - 60, title=_title(title),
        description=("Bars are the autocorrelation of the environment series at each lag and the "
                     "shaded band the 95 % range expected without any dependence; peaks above the "
                     "band (red) are candidate seasonal periods, and a series should span them."),
    )


# ------------------------------------------------------------------- fleet
def drift_overview(data: Frame, *, title: str) -> alt.Chart:
    """Every configuration's trend over the period, per hardware type; drifting ones
    (CI excludes 0 and the slope is above the threshold) highlighted.

    ``data``: ``hardware_type``, ``config``, ``slope_pct``, ``drifting`` (bool).
    """
    df = frame(data, ["hardware_type", "config", "slope_pct", "drifting"])
    df = df.with_columns(status=pl.when(pl.col("drifting")).then(pl.lit("drifting"))
                         .otherwise(pl.lit("stable")))
    return alt.Chart(df.drop("drifting")).mark_point(filled=True, size=18).encode(
        x=alt.X("slope_pct:Q",
                title="trend over the period, + = worse (% of the median per 30 days)"),
        y=alt.Y("hardware_type:N", title="hardware type"),
        yOffset=alt.YOffset("jitter:Q"),
        color=_color("status", "trend", ["drifting", "stable"], [VERMILLION, "#c7c7c7"]),
        shape=_shape("status", "trend", ["drifting", "stable"], ["triangle-up", "circle"]),
        tooltip=["config:N", "hardware_type:N",
                 alt.Tooltip("slope_pct:Q", format=".2f", title="trend (%/30 days)")],
    ).transform_calculate(jitter="random()").properties(
        width=WIDTH, height=alt.Step(26), title=_title(title),
        description=("Each point is one configuration on one hardware type, placed at its trend in "
                     "% of its median per 30 days (+ = worse by the metric's direction); "
                     "orange triangles drift (the CI of the trend excludes "
                     "zero and the trend exceeds the threshold), so their results depend on when "
                     "they were measured."),
    )


def drift_top(data: Frame, *, title: str) -> alt.LayerChart:
    """The configurations with the largest significant trends, with their CIs.

    ``data``: ``config``, ``hardware_type``, ``slope_pct``, ``low_pct``, ``high_pct``.
    """
    df = frame(data, ["config", "hardware_type", "slope_pct", "low_pct", "high_pct"])
    df = df.with_columns(label=pl.col("hardware_type") + pl.lit(" · ") + pl.col("config"))
    df = with_order(df, "label", by="slope_pct")
    y = alt.Y("label:N", sort=by_order(), title="hardware type · configuration",
              axis=long_label_axis())
    ci = alt.Chart(df).mark_rule(strokeWidth=2, color="#555").encode(
        y=y, x=alt.X("low_pct:Q", title="trend with its CI, + = worse (% of the median per 30 "
                     "days)"),
        x2="high_pct:Q")
    point = alt.Chart(df).mark_point(filled=True, size=50).encode(
        y=y, x="slope_pct:Q", color=alt.Color("hardware_type:N", title="hardware type",
                                              scale=alt.Scale(range=list(CATEGORY))),
        tooltip=["config:N", "hardware_type:N",
                 alt.Tooltip("slope_pct:Q", format=".2f", title="trend (%/30 days)"),
                 alt.Tooltip("low_pct:Q", format=".2f", title="CI low"),
                 alt.Tooltip("high_pct:Q", format=".2f", title="CI high")])
    zero = alt.Chart(pl.DataFrame({"zero": [0.0]})).mark_rule(color="#333").encode(x="zero:Q")
    return alt.layer(ci, zero, point).properties(
        width=WIDTH - 240, height=alt.Step(16), title=_title(title),
        description=("Each row is a drifting configuration with its trend and the CI of the "
                     "trend, signed by the metric's direction: right of zero the results got "
                     "worse (slower, or less throughput), left of it better."),
    )


def values_over_time(data: Frame, *, title: str) -> alt.LayerChart:
    """The trials of a few drifting configurations over the period, as % of each one's
    median (+ = worse by the metric's direction), with its trend line.

    ``data``: ``series`` (hardware type · configuration), ``day`` (days since the
    start of the period), ``value_pct``, ``trend_pct``.
    """
    df = frame(data, ["series", "day", "value_pct", "trend_pct"])
    color = alt.Color("series:N", title="hardware type · configuration",
                      scale=alt.Scale(range=list(CATEGORY)), legend=alt.Legend(
                          orient="bottom", direction="vertical", labelLimit=0))
    shape = alt.Shape("series:N", legend=None)  # a second carrier besides the colour
    x = alt.X("day:Q", title="time since the start of the period (days)")
    points = alt.Chart(df).mark_point(size=14, opacity=0.45).encode(
        x=x, y=alt.Y("value_pct:Q", title="trial value against the configuration's median, "
                     "+ = worse (%)"), color=color, shape=shape,
        tooltip=["series:N", alt.Tooltip("day:Q", format=".1f", title="day"),
                 alt.Tooltip("value_pct:Q", format=".2f", title="worse than median (%)")])
    trend = alt.Chart(df).mark_line(strokeWidth=2.5).encode(
        x=x, y="trend_pct:Q", color=color, detail="series:N")
    return alt.layer(points, trend).properties(
        width=WIDTH, height=HEIGHT, title=_title(title),
        description=("Each point is one trial of a drifting configuration, as % of its median "
                     "(up = worse, slower or less throughput) against the day it ran, and each "
                     "line the configuration's Theil-Sen trend drawn through its median at the "
                     "middle of the period."),
    )


def order_dependence_changes(data: Frame, *, title: str) -> alt.Chart:
    """Per hardware type, how many configurations became order-dependent in the
    period (new), stayed so (persisting) or stopped being so (resolved).

    ``data``: ``hardware_type``, ``change`` (one of :data:`CHANGE`), ``n``.
    """
    df = frame(data, ["hardware_type", "change", "n"])
    df = df.with_columns(change_order=pl.col("change").replace_strict(
        list(CHANGE), [0, 1, 2], default=9))
    return alt.Chart(df).mark_bar().encode(
        x=alt.X("n:Q", title="configurations (count)", stack="zero"),
        y=alt.Y("hardware_type:N", title="hardware type"),
        color=_color("change", "order dependence", CHANGE, CHANGE_COLORS),
        order=alt.Order("change_order:Q"),
        tooltip=["hardware_type:N", "change:N", alt.Tooltip("n:Q", title="configurations")],
    ).properties(
        width=WIDTH, height=alt.Step(24), title=_title(title),
        description=("Each bar counts a hardware type's configurations whose fixed- and random-"
                     "order results differ (Kruskal-Wallis at α/m), split as the legend names: "
                     "new (only in this period), persisting (in both), resolved (only before)."),
    )


def variability_change(data: Frame, *, title: str, max_points: int = 3000) -> alt.LayerChart:
    """RSD in the period against RSD in the previous period, one point per
    configuration (log-log, the diagonal = unchanged).

    ``data``: ``hardware_type``, ``config``, ``rsd_prev_pct``, ``rsd_now_pct``.
    """
    df = frame(data, ["hardware_type", "config", "rsd_prev_pct", "rsd_now_pct"])
    df = df.filter((pl.col("rsd_prev_pct") > 0) & (pl.col("rsd_now_pct") > 0))
    if df.height > max_points:  # keep the largest changes, they are what a reader looks for
        df = df.with_columns(change=(pl.col("rsd_now_pct") / pl.col("rsd_prev_pct")).log().abs()) \
            .sort("change", descending=True).head(max_points).drop("change")
    both = pl.concat([df["rsd_prev_pct"], df["rsd_now_pct"]])
    lo = float(both.min()) if both.len() else 0.01  # type: ignore[arg-type]
    hi = float(both.max()) if both.len() else 1.0  # type: ignore[arg-type]
    scale = alt.Scale(type="log", domain=[_floor_decade(lo), _ceil_decade(hi)])
    points = alt.Chart(df).mark_point(filled=True, size=16, opacity=0.6).encode(
        x=alt.X("rsd_prev_pct:Q", title="RSD in the previous period (%, log)", scale=scale),
        y=alt.Y("rsd_now_pct:Q", title="RSD in this period (%, log)", scale=scale),
        color=alt.Color("hardware_type:N", title="hardware type",
                        scale=alt.Scale(range=list(CATEGORY))),
        tooltip=["config:N", "hardware_type:N",
                 alt.Tooltip("rsd_prev_pct:Q", format=".3g", title="RSD before (%)"),
                 alt.Tooltip("rsd_now_pct:Q", format=".3g", title="RSD now (%)")])
    diag = alt.Chart(pl.DataFrame({"v": [_floor_decade(lo), _ceil_decade(hi)]})) \
        .mark_line(color="#333", strokeDash=[4, 3]).encode(x="v:Q", y="v:Q")
    return alt.layer(points, diag).properties(
        width=WIDTH - 140, height=WIDTH - 140, title=_title(title),
        description=("Each point is one configuration's relative standard deviation now (y) "
                     "against the previous period (x); points above the dashed diagonal became "
                     "noisier, below it steadier."),
    )


def variability_by_type(data: Frame, *, title: str) -> alt.Chart:
    """Median RSD per hardware type in the period and in the previous period.

    ``data``: ``hardware_type``, ``period`` (``previous`` | ``this``), ``rsd_pct``.
    """
    df = frame(data, ["hardware_type", "period", "rsd_pct"])
    return alt.Chart(df).mark_bar().encode(
        y=alt.Y("hardware_type:N", title="hardware type"),
        yOffset=alt.YOffset("period:N", sort=["previous", "this"]),
        x=alt.X("rsd_pct:Q", title="median RSD over the configurations (%)"),
        color=alt.Color("period:N", title="period", sort=["previous", "this"],
                        scale=alt.Scale(domain=["previous", "this"], range=[SKY, BLUE])),
        tooltip=["hardware_type:N", "period:N",
                 alt.Tooltip("rsd_pct:Q", format=".3g", title="median RSD (%)")],
    ).properties(
        width=WIDTH, height=alt.Step(14), title=_title(title),
        description=("For each hardware type the light bar is the median relative standard "
                     "deviation of its configurations in the previous period and the dark bar in "
                     "this one; a longer dark bar means the machines of that type became "
                     "noisier."),
    )


def _floor_decade(x: float) -> float:
    return 10.0 ** math.floor(math.log10(x)) if x > 0 else 0.01


def _ceil_decade(x: float) -> float:
    return 10.0 ** math.ceil(math.log10(x)) if x > 0 else 1.0
