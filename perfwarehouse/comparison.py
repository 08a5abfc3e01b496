"""``perfwarehouse compare``'s work: is the contender slower than the baseline, by how
much, how sure; the result kept in the table ``comparisons`` and written for a terminal,
Markdown, CSV or JSON.

:func:`compare` reads the two sides' trials (:mod:`perfwarehouse.warehouse.sides`: one
query per side), runs the statistics (:mod:`perfwarehouse.compare`) and keeps the result
(:func:`perfwarehouse.warehouse.catalog.record_comparison`), returning a
:class:`Comparison`; :func:`render` writes it. The command line only parses the options
and prints (:mod:`perfwarehouse.cli.compare`).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from perfwarehouse.compare import compare_table, verdict_line
from perfwarehouse.compare.summary import geomean_rows, ratio_text, readable
from perfwarehouse.errors import UsageError
from perfwarehouse.output import (
    csv_cell,
    fit,
    format_settings,
    json_cell,
    markdown_table,
    terminal_width,
)
from perfwarehouse.warehouse.sides import Side, read_sides

if TYPE_CHECKING:
    import pyarrow as pa

    from perfwarehouse.warehouse.store import Warehouse

__all__ = ["KEYS", "Comparison", "Side", "compare", "render", "save",
           "terminal_table"]

KEYS = ("hardware_type", "config_id", "benchmark", "settings", "metric", "unit",
        "higher_is_better")


@dataclass(frozen=True)
class Comparison:
    """A comparison's result: ``table`` (one row per configuration and hardware type,
    largest change first), the verdict ``headline``, the geometric means per unit
    (``geo``) and the ``comparison_id`` it was kept under (None: not kept)."""

    table: pa.Table
    headline: str
    geo: list[dict[str, Any]]
    comparison_id: int | None

    def gated(self, fail_on: tuple[str, ...], single_invocation: bool = False) -> bool:
        """Whether a row has one of the ``fail_on`` verdicts; rows whose side is one
        invocation of the tool count only with ``single_invocation``."""
        rows = self.table.select(["verdict", "one_invocation"]).to_pylist()
        return any(r["verdict"] in fail_on for r in rows
                   if single_invocation or not r["one_invocation"])


def compare(warehouse: Warehouse, baseline: Side, contender: Side, *, confidence: float,
            threshold: float, correction: str, keep: bool = True) -> Comparison:
    """Compare ``contender`` with ``baseline`` per configuration and hardware type and keep
    the result in ``comparisons`` (unless not ``keep``). ``confidence``: of the change's
    interval (a fraction, 0.5 <= c < 1); ``threshold``: percent within which a change is
    no change; ``correction``: the p-values' adjustment (bh, holm, bonferroni, none)."""
    if (baseline.campaign, baseline.revision, baseline.where) == (
            contender.campaign, contender.revision, contender.where):
        raise UsageError("compare: both sides are the same trials; give --baseline/--contender "
                         "revisions, campaigns or --*-where filters that differ")
    trials = read_sides(warehouse, (baseline, contender))
    table = compare_table(trials, KEYS, confidence=confidence, threshold=threshold,
                          correction=correction)
    n_b = table.column("n_baseline").to_numpy()
    n_c = table.column("n_contender").to_numpy()
    if not ((n_b > 0) & (n_c > 0)).any():
        raise UsageError(
            f"nothing to compare: no configuration has trials on both sides ({int((n_b > 0).sum())} "
            f"configurations only in the baseline {baseline.describe()}, "
            f"{int((n_c > 0).sum())} only in the contender {contender.describe()}); "
            "check that both sides measure the same benchmarks, settings and hardware types")
    headline = (f"{verdict_line(table)} ({contender.describe()} vs {baseline.describe()}; "
                f"{100 * confidence:g} % CI, threshold +-{threshold:g} %, {correction}; "
                f"configurations: {what_was_compared(table)})")
    cid = (save(warehouse, table, baseline, contender, confidence, threshold, correction)
           if keep else None)
    if cid is not None:
        headline += f" [comparison_id {cid}]"
    return Comparison(table, headline, geomean_rows(table.to_pylist(), confidence), cid)


def save(warehouse: Warehouse, table: pa.Table, baseline: Side, contender: Side,
         confidence: float, threshold: float, correction: str) -> int:
    """Keep ``table`` in ``comparisons`` with how it was asked; returns the new comparison_id."""
    import pyarrow as pa

    from perfwarehouse.warehouse.catalog import record_comparison

    n = table.num_rows
    meta = {
        "baseline_campaign": [baseline.campaign] * n,
        "baseline_revision": pa.array([baseline.revision] * n, pa.string()),
        "baseline_where": pa.array([baseline.where] * n, pa.string()),
        "contender_campaign": [contender.campaign] * n,
        "contender_revision": pa.array([contender.revision] * n, pa.string()),
        "contender_where": pa.array([contender.where] * n, pa.string()),
        "confidence": [confidence] * n, "threshold_pct": [threshold] * n,
        "correction": [correction] * n,
    }
    full = table
    for name, values in reversed(list(meta.items())):
        full = full.add_column(0, name, values if isinstance(values, pa.Array)
                               else pa.array(values))
    with warehouse.writing("perfwarehouse compare") as session:
        return record_comparison(session, full)


def what_was_compared(table: pa.Table) -> str:
    """What the configurations are (issue 40: "72 configurations" were 36 benchmarks x 2
    metrics): '36 benchmark settings x 2 metrics (sec/op, B/op)', with the hardware types
    when several."""
    names = {(b, s) for b, s in zip(table.column("benchmark").to_pylist(),
                                     table.column("settings").to_pylist())}
    metrics = sorted({str(m) for m in table.column("metric").to_pylist()})
    types = {str(h) for h in table.column("hardware_type").to_pylist()}
    text = (f"{len(names):,} benchmark setting{'s' if len(names) != 1 else ''} x "
            f"{len(metrics)} metric{'s' if len(metrics) != 1 else ''} ({', '.join(metrics[:6])}"
            f"{' ...' if len(metrics) > 6 else ''})")
    return text + (f" on {len(types)} hardware types" if len(types) > 1 else "")


# ------------------------------------------------------------------ output
def signed(v: float | None, digits: int = 2) -> str:
    """A change with its sign (empty when missing; scientific beyond 1e9, never 100 digits)."""
    if v is None or (isinstance(v, float) and v != v):
        return ""
    return f"{v:+.{digits}f}" if abs(v) < 1e9 else f"{v:+.{digits}e}"


def _interval(low: float | None, high: float | None, digits: int = 2) -> str:
    return f"[{signed(low, digits)}, {signed(high, digits)}]" if low is not None else ""


def _display_rows(rows: list[dict[str, Any]], geo: list[dict[str, Any]]) -> list[list[Any]]:
    """The rows of the Markdown table (every column), then the geometric means."""
    out = [[r["hardware_type"], r["benchmark"], r["settings"], r["metric"],
            readable(r["median_baseline"], r["unit"]), readable(r["median_contender"], r["unit"]),
            signed(r["change_pct"]), ratio_text(r["change_pct"], r["higher_is_better"]),
            _interval(r["ci_low_pct"], r["ci_high_pct"]),
            f"{r['p_adjusted']:.2g}" if r["p_adjusted"] is not None else "",
            r["verdict"], "" if r["more_trials"] is None else str(r["more_trials"]),
            r["reason"] or ""] for r in rows]
    for g in geo:
        ci = _interval(g["ci_low_pct"], g["ci_high_pct"])
        n = g["configurations"]
        out.append([g["hardware_type"], f"geomean ({n} configuration{'' if n == 1 else 's'})",
                    "", g["metric"], readable(g["geomean_baseline"], g["unit"]),
                    readable(g["geomean_contender"], g["unit"]), signed(g["change_pct"]),
                    ratio_text(g["change_pct"], g.get("higher_is_better")), ci, "", "", "",
                    "interval over the configurations" if ci else ""])
    return out


MARKDOWN_COLUMNS = ("hardware_type", "benchmark", "settings", "metric", "baseline", "contender",
                    "change %", "ratio", "CI %", "p adj", "verdict", "more trials", "why")


def render(result: Comparison, fmt: str, width: int | None = None) -> str:
    """The output in ``fmt`` (table, markdown, csv or json); table and markdown start with the verdict line and end with
    the geometric mean per unit (json carries it as ``geomean``; csv holds the rows only).
    ``width``: the terminal's columns (default: ``COLUMNS``, else the terminal's)."""
    table, headline, geo = result.table, result.headline, result.geo
    if fmt == "json":
        import orjson

        records = [{k: json_cell(v) for k, v in r.items()} for r in table.to_pylist()]
        return orjson.dumps({"summary": headline, "comparisons": records,
                             "geomean": [{k: json_cell(v) for k, v in g.items()} for g in geo]},
                            option=orjson.OPT_INDENT_2).decode() + "\n"
    if fmt == "csv":
        import csv
        import io

        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(table.column_names)
        writer.writerows([csv_cell(v) for v in r.values()] for r in table.to_pylist())
        return buf.getvalue()
    if fmt == "markdown":
        body = markdown_table(MARKDOWN_COLUMNS, _display_rows(table.to_pylist(), geo))
        return f"**{headline}**\n\n" + body
    width = width or terminal_width()
    return (textwrap.fill(headline, width, break_on_hyphens=False) + "\n\n"
            + terminal_table(table.to_pylist(), geo, width))


def _short(benchmark: str) -> str:
    """A benchmark's name as benchstat shows it (Go's ``Benchmark`` prefix left out)."""
    return benchmark.removeprefix("Benchmark") or benchmark


def _layout(head: list[str], table: list[list[str]], width: int) -> list[str]:
    """Aligned lines of ``table`` within ``width``: the ratio column goes first when the
    benchmark names would be cut below 24 characters, then each name gets a line of its
    own above its numbers, then the verdict joins the name there (never a number cut)."""
    def widths_of(columns: list[int]) -> list[int]:
        return [max(len(head[i]), *(len(row[i]) for row in table)) for i in columns]

    right = {"baseline", "contender", "change [CI]", "p adj"}
    columns = list(range(len(head)))
    widths = widths_of(columns)
    if sum(widths) + 2 * (len(widths) - 1) > width and "ratio" in head:
        columns.remove(head.index("ratio"))
        widths = widths_of(columns)
    rest = sum(widths[1:]) + 2 * (len(widths) - 1)
    own_line = width - rest < min(24, widths[0])
    verdict_up = False  # the verdict beside the name, above the numbers
    if own_line:  # the name above, the numbers below, indented
        columns, widths = columns[1:], widths[1:]
        if 4 + sum(widths) + 2 * (len(widths) - 1) > width and head[-1] == "verdict":
            verdict_up = True
            columns, widths = columns[:-1], widths[:-1]
    else:
        widths[0] = min(widths[0], width - rest)

    def line(cells: list[str]) -> str:
        parts = [fit(cells[i], w).rjust(w) if head[i] in right else fit(cells[i], w).ljust(w)
                 for i, w in zip(columns, widths)]
        return ("    " if own_line else "") + "  ".join(parts).rstrip()

    lines = [line(head), line(["-" * len(h) for h in head])]
    for row in table:
        if own_line:
            name = f"{row[0]}: {row[-1]}" if verdict_up and row[-1] else row[0]
            lines.append(fit(name, width))
        lines.append(line(row))
    return lines


def terminal_table(rows: list[dict[str, Any]], geo: list[dict[str, Any]], width: int) -> str:
    """The comparison for a terminal of ``width`` columns (issue 40): one section per unit
    (as benchstat), each row a benchmark with its settings as ``k=v``, the hardware type
    and metric only where they vary, the medians in readable units, the change with its
    interval and ratio, the adjusted p-value and the verdict; the notes of a row as
    numbered lines under its section instead of a column wider than the screen; the
    geometric mean per unit last."""
    several_types = len({r["hardware_type"] for r in rows}) > 1
    out: list[str] = []
    units: dict[str | None, list[dict[str, Any]]] = {}
    for r in rows:
        units.setdefault(r["unit"], []).append(r)
    for unit, group in units.items():
        hib = group[0]["higher_is_better"]
        way = ("higher is better" if hib else "lower is better" if hib is not None
               else "direction unknown: read as lower is better")
        out.append(f"{unit or 'no unit'} ({way})")
        several_metrics = len({r["metric"] for r in group}) > 1
        notes: list[str] = []
        table: list[list[str]] = []
        for r in group:
            name = " ".join(x for x in (_short(r["benchmark"]), format_settings(r["settings"]))
                            if x)
            mark = ""
            if r["reason"]:
                if r["reason"] not in notes:
                    notes.append(r["reason"])
                mark = f" [{notes.index(r['reason']) + 1}]"
            ci = _interval(r["ci_low_pct"], r["ci_high_pct"], 1)
            table.append([name, *([r["hardware_type"]] if several_types else []),
                          *([r["metric"]] if several_metrics else []),
                          readable(r["median_baseline"], unit),
                          readable(r["median_contender"], unit),
                          f"{signed(r['change_pct'], 1)} %{' ' + ci if ci else ''}"
                          if r["change_pct"] is not None else "",
                          ratio_text(r["change_pct"], hib),
                          f"{r['p_adjusted']:.2g}" if r["p_adjusted"] is not None else "",
                          r["verdict"] + mark])
        for g in (g for g in geo if g["unit"] == unit):
            n = g["configurations"]
            table.append([f"geomean of {n} row{'' if n == 1 else 's'}",
                          *([g["hardware_type"]] if several_types else []),
                          *([g["metric"]] if several_metrics else []),
                          readable(g["geomean_baseline"], unit),
                          readable(g["geomean_contender"], unit),
                          f"{signed(g['change_pct'], 1)} %" if g["change_pct"] is not None
                          else "", ratio_text(g["change_pct"], g.get("higher_is_better")),
                          "", ""])
        head = ["benchmark", *(["hardware type"] if several_types else []),
                *(["metric"] if several_metrics else []), "baseline", "contender",
                "change [CI]", "ratio", "p adj", "verdict"]
        out += _layout(head, table, width)
        for i, note in enumerate(notes, 1):
            out.extend(textwrap.wrap(note, width, initial_indent=f"  [{i}] ",
                                     subsequent_indent="      "))
        out.append("")
    return "\n".join(out)
