"""What every page's charts share: sizes, the palette, label and axis helpers.

The chart builders live next to their page (``order_effects_charts.py``,
``variability_charts.py``, ``triscale_charts.py``, ``fleet_charts.py``,
``load_charts.py``): a pre-aggregated table in, an ``alt.Chart`` out. Pure functions.

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
from typing import TypeAlias

import altair as alt
import numpy as np
import polars as pl
import pyarrow as pa

WIDTH = 780
HEIGHT = 280


# Colours: the Okabe-Ito palette (distinguishable with every common colour-vision
# deficiency); a meaning is never carried by colour alone (shape, text or a legend
# title in words as well).
VERMILLION, ORANGE, BLUE, SKY, GREEN, PURPLE, GREY = (
    "#D55E00", "#E69F00", "#0072B2", "#56B4E9", "#009E73", "#CC79A7", "#999999")
CATEGORY = (BLUE, ORANGE, GREEN, VERMILLION, PURPLE, SKY, "#F0E442", "#000000")


Frame: TypeAlias = pl.DataFrame | pa.Table

# what ``alt.layer`` returns: Altair 6 hoists a facet shared by every layer, so the
# result is a FacetChart when the layers are faceted and a LayerChart otherwise
Layered: TypeAlias = alt.LayerChart | alt.FacetChart

# a column of text: a Python sequence or a polars String column (nulls as None)
Texts: TypeAlias = Sequence[str | None] | pl.Series


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


def plus_is_worse(df: pl.DataFrame, value: str, low: str | None, high: str | None,
                  out: tuple[str, str, str], higher_is_better: pl.Expr | None = None
                  ) -> pl.DataFrame:
    """``df`` with a change (``value``) and its CI (``low``, ``high``) signed + = worse by
    the metric's direction (a longer time or a lower throughput): the one sign convention
    of every page (issue 40), in the columns ``out`` (value, low, high). The direction is
    the ``higher_is_better`` column unless an expression is given; unknown counts as
    lower is better (the value's own sign)."""
    hib = (higher_is_better if higher_is_better is not None
           else pl.col("higher_is_better")).fill_null(False)
    flip = {out[0]: pl.when(hib).then(-pl.col(value)).otherwise(pl.col(value))}
    if low is not None and high is not None:
        flip[out[1]] = pl.when(hib).then(-pl.col(high)).otherwise(pl.col(low))
        flip[out[2]] = pl.when(hib).then(-pl.col(low)).otherwise(pl.col(high))
    return df.with_columns(**flip)


def labelled(rows: pa.Table) -> pl.DataFrame:
    """An analysis table's rows as a DataFrame with a ``config`` column: the short name
    of each row's configuration (:func:`config_labels`)."""
    df = pl.from_arrow(rows)
    assert isinstance(df, pl.DataFrame)
    # labelled once per configuration, not per row: a configuration has a row per hardware
    # type, strategy and node count (5M rows for 10^6 configurations, issue 44), and a
    # label depends only on the set of configurations (the keys that vary among them)
    keys = ["benchmark", "settings", "metric"]
    unique = df.select(keys).unique(maintain_order=True)
    unique = unique.with_columns(config=pl.Series(
        config_labels(unique["benchmark"], unique["settings"], unique["metric"]),
        dtype=pl.String))
    return df.join(unique, on=keys, how="left", nulls_equal=True, maintain_order="left")


def config_labels(benchmarks: Texts, settings: Texts, metrics: Texts | None = None,
                  max_len: int = 80) -> list[str]:
    """Short human names of configurations: ``benchmark k=v … [metric]``.

    Only the settings keys whose values differ between the given configurations are
    shown (a key every configuration has with the same value says nothing), and the
    metric only when there is more than one. ``settings`` is canonical JSON text;
    text that is not a JSON object is shown as it is when it differs. Long names are
    cut with an ellipsis (tables show the full benchmark and settings).
    """
    # each distinct settings text parsed once (10^6 configurations may share a few)
    once: dict[object, dict[str, object] | str | None] = {}
    parsed = [once[s] if s in once else once.setdefault(s, _settings_dict(s))
              for s in settings]
    distinct = list({id(p): p for p in once.values()}.values())
    keys: dict[str, None] = {}
    for p in distinct:  # in the order of first appearance, as in the rows
        if isinstance(p, dict):
            keys.update(dict.fromkeys(p))
    def value(p: dict[str, object] | str | None, k: str) -> str:
        return json.dumps(p.get(k), sort_keys=True) if isinstance(p, dict) else "\0"
    varying = [k for k in keys if len({value(p, k) for p in distinct}) > 1]
    raw_varies = len({p for p in distinct if isinstance(p, str)}) > 1
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


#: Time units a chart can rescale, in seconds, and the names an axis shows.
_TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0,
               "sec": 1.0, "seconds": 1.0}
_TIME_STEPS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))


def readable_unit(values: Sequence[float | None] | pl.Series, unit: str | None
                  ) -> tuple[float, str | None]:
    """The factor to multiply a time series by, and the unit to name on its axis and in
    its tooltips, so that it reads 31.3 µs rather than 0.0000313 s (issue 40): the
    largest of s, ms, µs and ns in which the median magnitude is at least 1. A unit that
    is not a time (ops/s, MB/s, a score) stays as it is (factor 1)."""
    seconds = _TIME_UNITS.get((unit or "").strip())
    finite = [abs(float(v)) for v in values if v is not None and math.isfinite(float(v))]
    if seconds is None or not finite:
        return 1.0, unit
    typical = float(np.median(finite)) * seconds
    size, name = next(((size, name) for size, name in _TIME_STEPS if typical >= size),
                      _TIME_STEPS[-1])
    return float(f"{seconds / size:.12g}"), name


def time_axis() -> alt.Axis:
    """A time axis whose every label says the day and the time ("Jan 05, 12:00"), never
    only "12 PM" (Vega's default for ticks inside a day), and drops labels that would
    overlap."""
    return alt.Axis(format="%b %d, %H:%M", labelOverlap="greedy", labelSeparation=8)


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
