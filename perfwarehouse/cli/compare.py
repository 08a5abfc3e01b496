"""``perfwarehouse compare``: is the contender slower than the baseline, by how much, how sure.

Attached to the main CLI by :mod:`perfwarehouse.cli.main` (``cli.add_command(compare)``). The
statistics are :mod:`perfwarehouse.compare`; this module reads the two sides' trial values
(``sql/queries/compare_trials.sql``), prints the result and keeps it in the table
``comparisons`` (declared in ``perfwarehouse/warehouse/contracts.py``, written by
:func:`perfwarehouse.warehouse.catalog.record_comparison`). Heavy imports happen inside the
command, so ``perfwarehouse --help`` stays fast.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from perfwarehouse.cli.context import CONTEXT

if TYPE_CHECKING:
    from collections.abc import Sequence

    import duckdb
    import pyarrow as pa

    from perfwarehouse.warehouse.store import DataFile, Warehouse

KEYS = ("hardware_type", "config_id", "benchmark", "settings", "metric", "unit",
        "higher_is_better")
FORMATS = ("table", "markdown", "csv", "json")


@dataclass(frozen=True)
class Side:
    """One side of a comparison: a campaign, a revision (None = all) and a filter."""

    name: str
    campaign: str
    revision: str | None
    where: str | None

    def describe(self) -> str:
        text = self.campaign + (f"@{self.revision}" if self.revision else "")
        return text + (f" where {self.where}" if self.where else "")


def parse_where(name: str, where: str | None) -> str:
    """The --NAME-where filter as one SQL expression, re-rendered by DuckDB's parser.

    The text is parsed alone as a single expression (``duckdb.SQLExpression``): a filter
    that closes the query's parentheses (``1=1) OR (1=1``), holds several expressions or
    statements, or a modifier (ORDER BY, LIMIT), is refused in one line; comments are
    dropped by the re-rendering. What goes into the query is DuckDB's rendering of the
    parsed expression, inside parentheses and ANDed with the campaign filter, so it can
    narrow a side's trials but never reach past its campaign and revision.
    """
    import duckdb

    from perfwarehouse.errors import UsageError

    if where is None:
        return "TRUE"
    if not where.strip():
        raise UsageError(f"{name}: --{name}-where is empty; give a SQL condition such as "
                         "\"node = 'c220g2-000001'\" or leave the option out")
    try:
        expression = str(duckdb.SQLExpression(where))
    except duckdb.Error as exc:
        first = str(exc).strip().splitlines()[0]
        raise UsageError(f"{name}: --{name}-where {where!r} is not one SQL condition: "
                         f"{first}") from None
    return f"({expression})"


def side_trials(warehouse: Warehouse, side: Side, files: Sequence[DataFile] | None = None,
                con: duckdb.DuckDBPyConnection | None = None) -> pa.Table:
    """The side's trial values (one row per successful trial), with ``side`` added: one
    query. ``files`` are the warehouse's data files of (at least) the side's campaign
    (read from the catalog when not given); ``con`` a reader over them (opened and closed
    here when not given)."""
    import duckdb
    import pyarrow as pa

    from perfwarehouse.errors import UsageError
    from perfwarehouse.warehouse import sqlfiles
    from perfwarehouse.warehouse.store import fetch_arrow

    where = parse_where(side.name, side.where)
    if files is None:
        files = warehouse.data_files([side.campaign])
    if not any(f.campaign == side.campaign for f in files):
        raise UsageError(f"{side.name}: campaign {side.campaign!r} has no measurements in "
                         f"{warehouse.root} (see `perfwarehouse sql \"SELECT * FROM campaigns\"`)")
    query = sqlfiles.load("queries/compare_trials").replace("{where}", where)
    own = con is None
    reader = warehouse.reader(files) if con is None else con
    try:
        try:
            table = fetch_arrow(reader, query, {"campaign": side.campaign,
                                                "revision": side.revision})
        except duckdb.Error as exc:
            first = str(exc).strip().splitlines()[0]
            raise UsageError(f"{side.name}: --{side.name}-where {side.where!r}: {first}") from None
        if table.num_rows == 0:
            revisions = [r[0] for r in reader.execute(
                "SELECT DISTINCT revision FROM measurements WHERE campaign = ? "
                "AND revision IS NOT NULL ORDER BY 1", [side.campaign]).fetchall()]
            known = (f"; its revisions: {', '.join(revisions[:20])}"
                     f"{' ...' if len(revisions) > 20 else ''}" if revisions
                     else "; it has no revisions recorded")
            raise UsageError(f"{side.name}: no successful trials of {side.describe()}{known}")
    finally:
        if own:
            reader.close()
    return table.append_column("side", pa.array([side.name] * table.num_rows, pa.string()))


def run_compare(warehouse: Warehouse, baseline: Side, contender: Side, *, confidence: float,
                threshold: float, correction: str) -> pa.Table:
    """The comparison table (sorted by |change|), not yet saved: one read of the catalog,
    one reader over both campaigns' files, one query per side."""
    import pyarrow as pa

    from perfwarehouse.compare import compare_table
    from perfwarehouse.errors import UsageError

    files = warehouse.data_files(sorted({baseline.campaign, contender.campaign}))
    con = warehouse.reader(files)
    try:
        trials = pa.concat_tables([side_trials(warehouse, baseline, files, con),
                                   side_trials(warehouse, contender, files, con)],
                                  promote_options="permissive")
    finally:
        con.close()
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
    return table


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


def _signed(v: float | None, digits: int = 2) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    return f"{v:+.{digits}f}" if abs(v) < 1e9 else f"{v:+.{digits}e}"  # not 100 digits


def _geomean_display(geo: list[dict[str, Any]]) -> list[list[Any]]:
    """The geometric-mean rows in the display's columns."""
    from perfwarehouse.compare.summary import ratio_text, readable

    rows = []
    for g in geo:
        ci = (f"[{_signed(g['ci_low_pct'])}, {_signed(g['ci_high_pct'])}]"
              if g["ci_low_pct"] is not None else "")
        n = g["configurations"]
        rows.append([g["hardware_type"], f"geomean ({n} configuration{'' if n == 1 else 's'})", "",
                     g["metric"], readable(g["geomean_baseline"], g["unit"]),
                     readable(g["geomean_contender"], g["unit"]), _signed(g["change_pct"]),
                     ratio_text(g["change_pct"], g.get("higher_is_better")), ci, "", "", "",
                     "interval over the configurations" if ci else ""])
    return rows


def _display_rows(table: pa.Table) -> tuple[list[str], list[list[Any]]]:
    from perfwarehouse.compare.summary import ratio_text, readable

    columns = ["hardware_type", "benchmark", "settings", "metric", "baseline", "contender",
               "change %", "ratio", "CI %", "p adj", "verdict", "more trials", "why"]
    rows = []
    for r in table.to_pylist():
        ci = (f"[{_signed(r['ci_low_pct'])}, {_signed(r['ci_high_pct'])}]"
              if r["ci_low_pct"] is not None else "")
        rows.append([
            r["hardware_type"], r["benchmark"], r["settings"], r["metric"],
            readable(r["median_baseline"], r["unit"]),
            readable(r["median_contender"], r["unit"]),
            _signed(r["change_pct"]), ratio_text(r["change_pct"], r["higher_is_better"]), ci,
            f"{r['p_adjusted']:.2g}" if r["p_adjusted"] is not None else "",
            r["verdict"], "" if r["more_trials"] is None else str(r["more_trials"]),
            r["reason"] or ""])
    return columns, rows


def render(table: pa.Table, fmt: str, headline: str,
           geo: list[dict[str, Any]] | None = None) -> str:
    """The output in ``fmt``; table and markdown start with the verdict line and end with
    the geometric mean per unit (``geo``, :func:`perfwarehouse.compare.summary.geomean_rows`;
    json carries it as ``geomean``; csv holds the rows only)."""
    geo = geo or []
    if fmt == "json":
        import orjson

        from perfwarehouse.cli.query import _json_cell

        records = [{k: _json_cell(v) for k, v in r.items()} for r in table.to_pylist()]
        return orjson.dumps({"summary": headline, "comparisons": records,
                             "geomean": [{k: _json_cell(v) for k, v in g.items()} for g in geo]},
                            option=orjson.OPT_INDENT_2).decode() + "\n"
    if fmt == "csv":
        import csv
        import io

        from perfwarehouse.cli.query import _csv_cell

        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(table.column_names)
        writer.writerows([_csv_cell(v) for v in r.values()] for r in table.to_pylist())
        return buf.getvalue()
    columns, rows = _display_rows(table)
    rows += _geomean_display(geo)
    if fmt == "markdown":
        def cell(v: Any) -> str:
            return str(v).replace("|", "\\|")
        lines = [f"**{headline}**", "", "| " + " | ".join(columns) + " |",
                 "|" + "|".join("---" for _ in columns) + "|"]
        lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
        return "\n".join(lines) + "\n"
    return headline + "\n\n" + terminal_table(table.to_pylist(), geo, _width())


def _short(benchmark: str) -> str:
    """A benchmark's name as benchstat shows it (Go's ``Benchmark`` prefix left out)."""
    return benchmark.removeprefix("Benchmark") or benchmark


def _width() -> int:
    """The terminal's width: ``COLUMNS`` when set, else the terminal's, else 100."""
    import shutil

    return max(60, shutil.get_terminal_size((100, 24)).columns)


def _layout(head: list[str], table: list[list[str]], width: int) -> list[str]:
    """Aligned lines of ``table`` within ``width``: the ratio column goes first when the
    benchmark names would be cut below 24 characters, then each name gets a line of its
    own above its numbers (never a number cut)."""
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
    if own_line:  # the name above, the numbers below, indented
        columns, widths = columns[1:], widths[1:]
    else:
        widths[0] = min(widths[0], width - rest)

    def line(cells: list[str]) -> str:
        parts = [_fit(cells[i], w).rjust(w) if head[i] in right else _fit(cells[i], w).ljust(w)
                 for i, w in zip(columns, widths)]
        return ("    " if own_line else "") + "  ".join(parts).rstrip()

    lines = [line(head), line(["-" * len(h) for h in head])]
    for row in table:
        if own_line:
            lines.append(_fit(row[0], width))
        lines.append(line(row))
    return lines


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[:max(1, width - 1)] + "…"


def terminal_table(rows: list[dict[str, Any]], geo: list[dict[str, Any]], width: int) -> str:
    """The comparison for a terminal of ``width`` columns (issue 40): one section per unit
    (as benchstat), each row a benchmark with its settings as ``k=v``, the hardware type
    and metric only where they vary, the medians in readable units, the change with its
    interval and ratio, the adjusted p-value and the verdict; the notes of a row as
    numbered lines under its section instead of a column wider than the screen; the
    geometric mean per unit last."""
    from perfwarehouse.compare.summary import ratio_text, readable
    from perfwarehouse.output import format_settings

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
            where = [r["hardware_type"]] if several_types else []
            what = [r["metric"]] if several_metrics else []
            ci = (f" [{_signed(r['ci_low_pct'], 1)}, {_signed(r['ci_high_pct'], 1)}]"
                  if r["ci_low_pct"] is not None else "")
            mark = ""
            if r["reason"]:
                if r["reason"] not in notes:
                    notes.append(r["reason"])
                mark = f" [{notes.index(r['reason']) + 1}]"
            p = f"{r['p_adjusted']:.2g}" if r["p_adjusted"] is not None else ""
            table.append([name, *where, *what, readable(r["median_baseline"], unit),
                          readable(r["median_contender"], unit),
                          f"{_signed(r['change_pct'], 1)} %{ci}" if r["change_pct"] is not None
                          else "", ratio_text(r["change_pct"], hib), p,
                          r["verdict"] + mark])
        for g in (g for g in geo if g["unit"] == unit):
            n = g["configurations"]
            table.append([f"geomean of {n} row{'' if n == 1 else 's'}",
                          *([g["hardware_type"]] if several_types else []),
                          *([g["metric"]] if several_metrics else []),
                          readable(g["geomean_baseline"], unit),
                          readable(g["geomean_contender"], unit),
                          f"{_signed(g['change_pct'], 1)} %" if g["change_pct"] is not None
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


def _finite(ctx: click.Context, param: click.Parameter, value: float) -> float:
    """A number option that must be finite (nan and inf are refused in one line)."""
    if not math.isfinite(value):
        raise click.BadParameter(f"must be a finite number, got {value}")
    return value


def _confidence(ctx: click.Context, param: click.Parameter, value: float) -> float:
    """--confidence read by the one fraction/percentage rule; a change's interval needs >= 0.5."""
    from perfwarehouse.stats.fractions import FractionError, confidence

    c = confidence(value, "--confidence")
    if c < 0.5:
        raise FractionError(f"--confidence must be at least 0.5 (50 %), got {value:g}")
    return c


@click.command("compare", context_settings=CONTEXT)
@click.option("--campaign", help="Campaign of both sides (unless --baseline-campaign / "
                                 "--contender-campaign say otherwise).")
@click.option("--baseline", "baseline_rev", metavar="REV",
              help="Revision of the baseline side (default: every revision of its campaign).")
@click.option("--contender", "contender_rev", metavar="REV",
              help="Revision of the contender side (default: every revision of its campaign).")
@click.option("--baseline-campaign", help="Campaign of the baseline side.")
@click.option("--contender-campaign", help="Campaign of the contender side.")
@click.option("--baseline-where", metavar="SQL",
              help="Filter of the baseline's measurements, e.g. \"node = 'c220g2-000001'\".")
@click.option("--contender-where", metavar="SQL", help="Filter of the contender's measurements.")
@click.option("--confidence", type=float, default=0.95, callback=_confidence,
              show_default=True, help="Confidence of the change's interval, 0.5 <= c < 1 (0.95 "
                                      "or 95); 1 - confidence is the level of the adjusted "
                                      "p-values (benchstat's 0.05 by default).")
@click.option("--threshold", type=click.FloatRange(min=0.0), default=1.0, show_default=True,
              callback=_finite, metavar="PCT",
              help="Changes within +-PCT percent count as no change: a verdict needs the whole "
                   "interval beyond it (1 %, as analyze change-points' --min-effect; 0: every "
                   "significant change counts, as in benchstat).")
@click.option("--correction", type=click.Choice(["bh", "holm", "bonferroni", "none"]),
              default="bh", show_default=True,
              help="Adjustment of the p-values over the configurations: bh keeps the share of "
                   "false verdicts among the verdicts at 1 - confidence (and the chance of any "
                   "false verdict in a comparison with no real change); holm/bonferroni the "
                   "chance of any false verdict always; none is benchstat's (each row alone). "
                   "Calibration table: docs/compare.md.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("--fail-on", "fail_on", type=click.Choice(["slower", "faster", "inconclusive"]),
              multiple=True, help="Exit with status 3 when any row has this verdict (repeatable; "
                                  "for CI gating: --fail-on slower). Rows whose sample is one "
                                  "invocation's repetitions on a side are noted, not gated, "
                                  "unless --gate-single-invocation. Errors exit 1, usage 2.")
@click.option("--gate-single-invocation", is_flag=True,
              help="Let --fail-on gate on rows whose side is one invocation of the tool (its "
                   "repetitions share one machine state, so the test overstates the evidence).")
@click.option("--no-save", is_flag=True, help="Do not keep the result in table comparisons.")
@click.pass_context
def compare(ctx: click.Context, campaign: str | None, baseline_rev: str | None,
            contender_rev: str | None, baseline_campaign: str | None,
            contender_campaign: str | None, baseline_where: str | None,
            contender_where: str | None, confidence: float, threshold: float, correction: str,
            fmt: str, fail_on: tuple[str, ...], gate_single_invocation: bool,
            no_save: bool) -> None:
    """Compare a contender with a baseline, per configuration and hardware type.

    Each side is a campaign, optionally one revision of it and a SQL filter. For every
    configuration: the medians of both sides (in readable units), the change in percent
    and as a ratio with its confidence interval (log-scale Hodges-Lehmann,
    distribution-free), the exact Mann-Whitney p-value adjusted over the configurations,
    and a verdict: slower, faster, no change (the interval lies inside +-threshold), no
    significant change (p above the level and the interval holds 0: benchstat's "~") or
    inconclusive (with how many more trials would give 80 % power). The sample is the
    trials, or each tool's repetitions where a side has fewer than 5 trials (hyperfine's
    runs; one invocation a side is noted and not gated). One section per unit, largest
    change first, then a geometric mean per unit; the table fits the terminal (COLUMNS).
    Exit status: 0, 1 user error (also: nothing to compare), 2 usage, 3 a --fail-on
    verdict.  Example:

      perfwarehouse compare --campaign nightly --baseline v1.2 --contender v1.3 --fail-on slower
    """
    from perfwarehouse.cli.context import VERDICT_EXIT
    from perfwarehouse.cli.context import warehouse as _warehouse
    from perfwarehouse.compare import verdict_line
    from perfwarehouse.errors import UsageError

    b_campaign = baseline_campaign or campaign
    c_campaign = contender_campaign or campaign
    if not b_campaign or not c_campaign:
        raise UsageError("compare: give --campaign (or --baseline-campaign and "
                         "--contender-campaign)")
    baseline = Side("baseline", b_campaign, baseline_rev, baseline_where)
    contender = Side("contender", c_campaign, contender_rev, contender_where)
    if (b_campaign, baseline_rev, baseline_where) == (c_campaign, contender_rev, contender_where):
        raise UsageError("compare: both sides are the same trials; give --baseline/--contender "
                         "revisions, campaigns or --*-where filters that differ")
    warehouse = _warehouse(ctx)
    table = run_compare(warehouse, baseline, contender, confidence=confidence,
                        threshold=threshold, correction=correction)
    headline = (f"{verdict_line(table)} ({contender.describe()} vs {baseline.describe()}; "
                f"{100 * confidence:g} % CI, threshold +-{threshold:g} %, {correction}; "
                f"configurations: {_what_was_compared(table)})")
    if not no_save:
        cid = save(warehouse, table, baseline, contender, confidence, threshold, correction)
        headline += f" [comparison_id {cid}]"
    if fmt in ("csv", "json"):
        click.echo(headline, err=True)
    from perfwarehouse.compare.summary import geomean_rows

    geo = geomean_rows(table.to_pylist(), confidence)
    click.echo(render(table, fmt, headline, geo), nl=False)
    gated = {r["verdict"] for r in table.select(["verdict", "one_invocation"]).to_pylist()
             if gate_single_invocation or not r["one_invocation"]}
    if any(v in gated for v in fail_on):
        ctx.exit(VERDICT_EXIT)


def _what_was_compared(table: pa.Table) -> str:
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
