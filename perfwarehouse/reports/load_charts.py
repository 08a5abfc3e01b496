"""Chart builders of the load-test report: a pre-aggregated table in, an ``alt.Chart`` out.

Pure functions, like :mod:`perfwarehouse.reports.charts` (same sizes, titles, captions).
The figures follow "On Performance Evaluation" (blog essay, 2019): throughput against
the number of clients with the operational law X = N/(R + Z) (its Figure 2), latency
against the offered load with the knee (its Figures 3 and 5), and the saturation
threshold R_sat of Shivam et al. (USENIX ATC 2008).
"""

from __future__ import annotations

import altair as alt
import polars as pl

from perfwarehouse.reports.charts import HEIGHT, WIDTH, Frame, _title, frame

CONSISTENCY = ("consistent", "inconsistent", "not checked")
CONSISTENCY_COLORS = ("#4c78a8", "#d62728", "#9e9e9e")
PERCENTILE_ORDER = ("mean", "p50", "p90", "p99", "p99.9")


def throughput_curve(curve: Frame, marks: Frame, *, title: str) -> alt.LayerChart:
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
    band = alt.Chart(df).mark_area(opacity=0.18).encode(
        x=x, y="throughput_low:Q", y2="throughput_high:Q", color=color)
    line = alt.Chart(df).mark_line(point=True).encode(
        x=x, y=alt.Y("throughput:Q", title="throughput X (req/s)"), color=color,
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
                  r_sat_ms: float | None, knees: Frame, log_x: bool) -> alt.LayerChart:
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
    return alt.layer(*layers).properties(
        width=WIDTH, height=HEIGHT + 40, title=_title(title),
        description=("Mean response time and pooled percentiles (from the trials' full latency "
                     "distributions where stored) with their CI bands; the red dashed line is "
                     "the saturation threshold R_sat, the black rules the knee: the peak rate "
                     "lambda* (open loop, the highest load whose response time stays <= R_sat) "
                     "or the knee in N (closed loop)."),
    )


def consistency_scatter(checks: Frame, *, title: str, tolerance_pct: float, x_title: str,
                        log_x: bool) -> alt.LayerChart:
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
        tooltip=["family_label:N", "run_id:N", alt.Tooltip("position:Q", title="position"),
                 alt.Tooltip("x:Q", title="load"), "law:N",
                 alt.Tooltip("residual_pct:Q", format="+.1f", title="residual (%)"), "reason:N"])
    return alt.layer(band, zero, points).properties(
        width=WIDTH, height=HEIGHT, title=_title(title),
        description=(f"One point per trial: the relative residual of its operational law "
                     f"(closed loop X(R+Z)/N - 1, open loop completions/arrivals - 1); the "
                     f"green band is the tolerance (±{tolerance_pct:g} %). Red points break "
                     "the law: a client bottleneck, a saturated open-loop run or a wrong "
                     "setting; they are left out of the curves and the peak."),
    )
