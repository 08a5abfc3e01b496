"""Every configuration's drill-down in a report site: one viewer page and one data file per
campaign, instead of one HTML page per configuration.

A configuration page written alone (``report configuration``) is 0.25-0.9 MB and takes
about a second to build (two Altair charts, validated); the demo's long-term campaign has
446 configurations on 1,880 hardware-type series, so a page each would be a few hundred
MB and half an hour. The site writes instead, per campaign::

    <campaign>/configuration.html    the viewer: every configuration listed (id = its key),
                                     the one named after ``#`` drawn at the top
    <campaign>/configurations.js     the data of every configuration: a script that sets
                                     ``window.PW_CONFIGURATIONS`` (a ``<script src>`` works
                                     from file://, a fetch of JSON does not)

A page links a configuration as ``configuration.html#<key>``, where ``<key>`` is the name
the stand-alone page would have (:func:`~perfwarehouse.reports.configuration.page_name`).
What a configuration shows is what its stand-alone page shows, read for the whole campaign
at once (one query per analysis, one for the values, one for the trials, thinned in
DuckDB) and thinned harder: the verdict and the per-hardware-type table of the analyses (the same functions),
the ECDF of its values in fixed and random order (:data:`ECDF_POINTS` quantiles per
group) and its trials over time (:data:`TIME_POINTS` per hardware type, evenly spaced in
time) with the Theil-Sen line. The charts are the Vega-Lite templates of
:func:`~perfwarehouse.reports.configuration_charts.viewer_templates`, filled in the
browser by ``assets/viewer.js``.
"""

from __future__ import annotations

import dataclasses
import html
import json
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import polars as pl
import pyarrow as pa

from perfwarehouse.reports.base import ReportData, Request
from perfwarehouse.reports.columns import col
from perfwarehouse.reports.configuration import (
    ANALYSES,
    SUMMARY_COLUMNS,
    Frames,
    page_name,
    summary_rows,
    trend_lines,
)
from perfwarehouse.reports.configuration_charts import viewer_templates
from perfwarehouse.reports.configuration_verdict import verdict
from perfwarehouse.reports.formatting import settings_count, with_hardware
from perfwarehouse.reports.page import (
    VERDICT_WORDS,
    Missing,
    Page,
    Table,
    Verdict,
    format_settings,
)
from perfwarehouse.reports.render import (
    SiteLinks,
    _verdict,
    format_value,
    head,
    nav_bar,
    script_json,
)
from perfwarehouse.warehouse.lookup import Configuration
from perfwarehouse.warehouse.store import fetch_arrow

VIEWER = "configuration.html"
"""The viewer page of a campaign (relative to the campaign's directory)."""
DATA = "configurations.js"
"""The data file of a campaign's configurations."""
ECDF_POINTS = 25
"""Quantiles of each hardware type's and order kind's values kept for the ECDF (a step
curve 440 px wide; the stand-alone page keeps 250)."""
TIME_POINTS = 60
"""Trials per hardware type drawn over time at most (evenly spaced by time rank; the
stand-alone page keeps 800). With 25 and 60, the demo's long-term campaign (1,880 series)
takes 5 MB of data; 40 and 120 took 9.5 MB."""


def drilldown_links(df: pl.DataFrame, viewer: str) -> pl.Series:
    """Each row's drill-down in the site's configuration ``viewer`` (relative to this
    page): ``viewer#<the configuration page's name>``."""
    return pl.Series([f"{viewer}#{page_name(c, b, i)}" for c, b, i in
                      zip(df["campaign"], df["benchmark"], df["config_id"])], dtype=pl.String)


def with_drilldowns(page: Page, campaign: str, viewer: str) -> Page:
    """The page with every table that lists configurations (its rows carry ``campaign``,
    ``benchmark`` and ``config_id``) linking each row of ``campaign`` to its drill-down in
    the campaign's ``viewer``, in a column after the columns that name the row (issue 40:
    only the order-effects page linked them). A table that links them already stays as
    it is."""
    sections = []
    for section in page.sections:
        blocks = tuple(_linked(b, campaign, viewer) if isinstance(b, Table) else b
                       for b in section.blocks)
        sections.append(dataclasses.replace(section, blocks=blocks))
    return dataclasses.replace(page, sections=tuple(sections))


def _linked(table: Table, campaign: str, viewer: str) -> Table:
    names = table.data.column_names
    if ("drilldown" in names or not {"campaign", "benchmark", "config_id"} <= set(names)
            or table.data.num_rows == 0):
        return table
    rows = table.data.select(["campaign", "benchmark", "config_id"]).to_pylist()
    links = [None if r["config_id"] is None or r["benchmark"] is None
             or r["campaign"] != campaign else
             f"{viewer}#{page_name(r['campaign'], r['benchmark'], r['config_id'])}"
             for r in rows]
    keys = next((i for i, c in enumerate(table.columns) if not c.key), len(table.columns))
    columns = (*table.columns[:keys], col("drilldown"), *table.columns[keys:])
    data = table.data.append_column("drilldown", pa.array(links, pa.string()))
    return dataclasses.replace(table, columns=columns, data=data)


def link(campaign: str, benchmark: str, config_id: int) -> str:
    """The address of a configuration's drill-down, relative to its campaign's pages."""
    return f"{VIEWER}#{page_name(campaign, benchmark, config_id)}"


@dataclass(frozen=True)
class CampaignDrill:
    """The read step's result: the configurations of one campaign the viewer holds and the
    rows of each analysis, its values thinned for the ECDF (``report_drilldown_ecdf.sql``:
    value, rank, n) and its trials thinned in time (``report_drilldown_trials.sql``), each
    row with its ``config_id``; ``total``: the campaign's configurations (more than
    ``configurations`` when the viewer is capped, :data:`VIEWER_LIMIT`), ``linked``: how
    many of those held the site's pages link."""

    campaign: str
    configurations: list[Configuration]
    analyses: dict[str, pa.Table | None]
    values: pl.DataFrame
    trials: pl.DataFrame
    total: int = -1
    linked: int = 0

    def piece(self, configurations: list[Configuration]) -> CampaignDrill:
        """The same drill for ``configurations`` (some of this one's) only."""
        ids = pl.Series("config_id", [c.config_id for c in configurations], pl.UInt64)
        mask = pl.col("config_id").cast(pl.UInt64).is_in(ids.implode())
        analyses = {t: None if rows is None else _frame(rows).filter(mask).to_arrow()
                    for t, rows in self.analyses.items()}
        return dataclasses.replace(self, configurations=configurations, analyses=analyses,
                                   values=self.values.filter(mask),
                                   trials=self.trials.filter(mask))


VIEWER_LIMIT = 10_000
"""Configurations a campaign's viewer holds at most: every configuration the site's pages
link, then the first by name. A campaign of 10^6 one-trial configurations would make a
data file of about 1 GB that no browser opens, and held every configuration's record in
memory at once (issue 44: ``report all`` passed 8.7 GB at 10^5 configurations); the
viewer says how many it holds and how to draw any other one."""

_CONFIGURATIONS = """
SELECT c.config_id, c.benchmark, CAST(c.settings AS VARCHAR) AS settings, c.metric, c.unit,
       c.higher_is_better,
       list(DISTINCT m.hardware_type ORDER BY m.hardware_type) AS hardware_types
FROM (SELECT DISTINCT config_id, hardware_type FROM measurements WHERE campaign = $1) AS m
JOIN configurations AS c USING (config_id)
GROUP BY ALL ORDER BY c.benchmark, c.config_id
"""

_ORDER = {"drilldown_ecdf": "config_id, hardware_type, order_kind, rank",
          "drilldown_trials": "config_id, hardware_type, t",
          "configuration_change_points": "config_id, hardware_type, position"}
"""The ``ORDER BY`` of each query whose rows are read for some configurations only
(:meth:`ReportData.query_of`; the others: ``config_id, hardware_type``)."""


def held(configs: pl.DataFrame, linked: Collection[int], limit: int | None = None
         ) -> pl.DataFrame:
    """The configurations a viewer holds (in ``configs``' order): all of them up to
    ``limit`` (default :data:`VIEWER_LIMIT`); else those in ``linked`` and the first
    others, ``limit`` in all (or every linked one, if they are more)."""
    limit = VIEWER_LIMIT if limit is None else limit
    if configs.height <= limit:
        return configs
    is_linked = pl.col("config_id").is_in(pl.Series(list(linked), dtype=pl.UInt64).implode())
    room = max(limit - int(configs.select(is_linked.sum()).item()), 0)
    return configs.filter(is_linked | ((~is_linked).cum_sum() <= room))


def count(data: ReportData, campaign: str) -> int:
    """The configurations of ``campaign``."""
    return int(data.scalar("SELECT count(DISTINCT config_id) FROM measurements "
                           "WHERE campaign = $1", [campaign]))


def read(data: ReportData, campaign: str, linked: Collection[int] = ()) -> CampaignDrill:
    """Everything the campaign's drill-downs show, in one query per table, for the
    configurations the viewer holds (:func:`held`; ``linked``: the configurations the
    site's pages link)."""
    every = _frame(fetch_arrow(data.con, _CONFIGURATIONS, [campaign])).with_columns(
        pl.col("config_id").cast(pl.UInt64))
    kept = held(every, linked)
    configs = [Configuration(campaign, int(i), b, s, m, u, hib, tuple(types))
               for i, b, s, m, u, hib, types in kept.iter_rows()]
    capped = kept.height < every.height
    params = {"campaign": campaign, "config_id": None, "hardware_type": None}

    def query(name: str, **given: Any) -> pa.Table:
        if not capped:
            return data.query(name, **given)
        return data.query_of(name, kept["config_id"].to_arrow(),
                             _ORDER.get(name, "config_id, hardware_type"), **given)

    analyses: dict[str, pa.Table | None] = {
        table: query(name, **params) if data.has_table(table) else None
        for table, _job, name, _fill in ANALYSES}
    values = _frame(query("drilldown_ecdf", campaign=campaign, points=ECDF_POINTS))
    trials = _frame(query("drilldown_trials", campaign=campaign, points=TIME_POINTS))
    return CampaignDrill(campaign, configs, analyses, values, trials, every.height,
                         len(set(linked) & {c.config_id for c in configs}))


def _frame(table: pa.Table) -> pl.DataFrame:
    df = pl.from_arrow(table)
    assert isinstance(df, pl.DataFrame)
    return df


# ------------------------------------------------------------------ build
def _sig(x: Any) -> Any:
    """A float to 5 significant digits (None, NaN and inf as None: JSON has none)."""
    if x is None or not isinstance(x, float):
        return x
    if x != x or x in (float("inf"), float("-inf")):
        return None
    return float(f"{x:.5g}")


def records(drill: CampaignDrill) -> dict[str, dict[str, Any]]:
    """Each configuration's record in the data file, by its key (pure)."""
    by_table: dict[str, dict[int, pa.Table]] = {}
    for table, rows in drill.analyses.items():
        if rows is None:
            continue
        df = _frame(rows)
        by_table[table] = {int(k[0]): part.drop("config_id").to_arrow()
                           for k, part in df.partition_by("config_id", as_dict=True).items()}
    # each row's hardware type as its index in the configuration's list, its order kind
    # as 0 fixed, 1 random, 2 other, numbers to 5 significant digits (the file's format)
    pairs = [(c.config_id, h, i) for c in drill.configurations
             for i, h in enumerate(c.hardware_types)]
    index = pl.DataFrame({  # config ids are unsigned 64-bit (the catalog's UBIGINT)
        "config_id": pl.Series([p[0] for p in pairs], dtype=pl.UInt64),
        "hardware_type": pl.Series([p[1] for p in pairs], dtype=pl.String),
        "h": pl.Series([p[2] for p in pairs], dtype=pl.Int64)})
    kind = pl.col("order_kind").replace_strict({"fixed": 0, "random": 1}, default=2,
                                               return_dtype=pl.Int64).alias("k")

    def coded(df: pl.DataFrame, *columns: pl.Expr) -> dict[int, list[tuple[Any, ...]]]:
        if df.height == 0:
            return {}
        df = df.with_columns(pl.col("config_id").cast(pl.UInt64)).join(
            index, on=["config_id", "hardware_type"], how="left").select(
            "config_id", pl.col("h").fill_null(0), kind, *columns)
        return {int(k[0]): part.drop("config_id").rows()
                for k, part in df.partition_by("config_id", as_dict=True).items()}

    height = ((pl.col("rank") + 1) / pl.col("n")).cast(pl.Float64)  # the share at or below
    ecdf = coded(drill.values, pl.col("value").round_sig_figs(5), height.round_sig_figs(5))
    trials = coded(drill.trials,
                   (pl.col("t") / 60).round().cast(pl.Int64), pl.col("value").round_sig_figs(5))
    empty = pa.table({})
    out: dict[str, dict[str, Any]] = {}
    for c in drill.configurations:
        analyses: dict[str, pa.Table | Missing] = {}
        for table, _job, _query, fill in ANALYSES:
            got = by_table.get(table, {}).get(c.config_id) if table in by_table else None
            analyses[table] = got if got is not None and got.num_rows else Missing(
                table, fill, f" for this configuration in campaign {drill.campaign}")
        frames = Frames(c, analyses, empty, empty)
        said: Verdict = verdict(frames.config, frames.analyses)
        summary = summary_rows(frames)
        columns = [col for col in SUMMARY_COLUMNS if col.field in summary.columns]
        types = list(c.hardware_types)
        where = {h: i for i, h in enumerate(types)}
        trend_frame = analyses["trends"]
        lines = trend_lines(_frame(trend_frame) if isinstance(trend_frame, pa.Table) else None,
                            c.higher_is_better)
        label = " ".join(x for x in (c.benchmark, format_settings(c.settings)) if x)
        out[page_name(c.campaign, c.benchmark, c.config_id)] = {
            "title": f"{label} [{c.metric}]",
            "unit": f"{c.metric} ({c.unit})" if c.unit else c.metric,
            "verdict": said.text, "level": said.level,
            "about": (f"config_id {c.config_id}; metric {c.metric}"
                      f"{f' ({c.unit})' if c.unit else ''}; "
                      + ("higher is better" if c.higher_is_better else "lower is better"
                         if c.higher_is_better is not None else "direction not recorded")
                      + f"; hardware types {', '.join(types)}."),
            "hw": types,
            "columns": [col.label for col in columns],
            "rows": [[None if r[col.field] is None else format_value(col, r[col.field])
                      for col in columns] for r in summary.iter_rows(named=True)],
            # [hardware type index, order kind (0 fixed, 1 random, 2 other), value, ecdf]
            "ecdf": ecdf.get(c.config_id, []),
            # [hardware type index, order kind, start (minutes since the epoch), value]
            "trials": trials.get(c.config_id, []),
            # [hardware type index, ISO time, trend value, label] (two rows per line)
            "trend": [[where.get(r["hardware_type"], 0), r["time"], _sig(r["trend"]),
                       r["label"]] for r in lines.iter_rows(named=True)],
        }
    return out


def data_script(campaign: str, recs: dict[str, dict[str, Any]]) -> str:
    """The data file: a script that sets ``window.PW_CONFIGURATIONS``."""
    body = json.dumps({"campaign": campaign, "configurations": recs},  # no NaN: refused
                      ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return f"window.PW_CONFIGURATIONS = {body};\n"


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def viewer_html(campaign: str, recs: dict[str, dict[str, Any]], site: SiteLinks,
                links: list[tuple[str, str]], total: int = 0, linked: int = 0) -> str:
    """The viewer page of one campaign: every configuration listed (its ``id`` is its
    key, so ``configuration.html#key`` resolves), the chosen one drawn above by
    ``assets/viewer.js`` from :data:`DATA`. ``total``: the campaign's configurations,
    when the viewer holds fewer (:data:`VIEWER_LIMIT`; ``linked`` of them because the
    site's pages link them): the page says which it holds and how to see any other."""
    ordered = sorted(recs.items(), key=lambda kv: kv[1]["title"].lower())
    items = "".join(
        f'<li><a href="#{_e(key)}">{_e(r["title"])}</a> '
        f'<span class="level {_e(r["level"])}">{_e(VERDICT_WORDS[r["level"]].lower())}'
        "</span></li>" for key, r in ordered)
    # every configuration's key as an element id, so "configuration.html#key" names an
    # anchor of the page; hidden, so the browser stays at the top, where it is drawn
    anchors = "".join(f'<span id="{_e(key)}"></span>' for key, _r in ordered)
    see = " · ".join(f'<a href="{_e(href)}">{_e(text)}</a>' for text, href in links)
    body = [
        *head(f"Configurations — {campaign}", site), nav_bar(site),
        f"<header><h1>Configurations — {_e(campaign)}</h1></header><main>",
        f'<div id="viewer-verdict">{_verdict(Verdict(f"Campaign {campaign}: pick a configuration in the list below (or follow a drill-down link of a page).", "info"))}</div>',
        '<p class="intro">One configuration (a benchmark with its settings and metric) of '
        "this campaign, on every hardware type it ran on: what the warehouse's analyses say "
        "about it, its values in fixed and random order, and its trials over time with the "
        f"Theil-Sen trend. Drawn from {ECDF_POINTS} quantiles of the values per hardware "
        f"type and order, and at most {TIME_POINTS} trials per hardware type, evenly spaced "
        "in time; the page of one configuration with every value: "
        "<code>perfwarehouse report configuration</code>.</p>",
        f'<p class="links">See also: {see}</p>' if see else "",
        _capped_notice(campaign, len(recs), total, linked),
        f'<div hidden>{anchors}</div>',
        '<section id="viewer" hidden><h2 id="viewer-title"></h2>'
        '<p class="intro" id="viewer-about"></p>'
        '<div class="table-scroll"><table id="viewer-table"></table></div>'
        '<figure><div class="chart" id="viewer-ecdf"></div>'
        '<figcaption id="viewer-ecdf-caption"></figcaption></figure>'
        '<figure><div class="chart" id="viewer-trials"></div>'
        '<figcaption id="viewer-trials-caption"></figcaption></figure></section>',
        '<section id="configurations"><h2>'
        + (f"{len(recs):,} of the campaign's {total:,} configurations" if total > len(recs)
           else "Every configuration "
           f"({html.escape(settings_count(len(recs), with_hardware(recs)))})") + "</h2>"
        '<input type="search" id="viewer-filter" placeholder="Filter by name" '
        'aria-label="Filter the configurations">'
        f'<ul class="configurations">{items}</ul></section>',
        "</main>",
        '<div id="report-status" hidden data-state="drawing"></div>',
        f'<script type="application/json" id="viewer-templates">'
        f"{script_json(viewer_templates())}</script>",
        *(f'<script src="{_e(src)}"></script>'
          for src in (f"{site.assets}vega.js", DATA, f"{site.assets}viewer.js")),
        "</body></html>"]
    return "\n".join(body)


def _capped_notice(campaign: str, held: int, total: int, linked: int) -> str:
    command = (f"perfwarehouse report configuration --campaign {campaign} --benchmark NAME "
               "[--settings KEY=VALUE ...]")
    if total <= held:
        return ""
    which = (f"the {linked:,} its pages link and the first {held - linked:,} others by name "
             f"(at most {VIEWER_LIMIT:,} in all, so that a browser can open its data file)"
             if held > linked else
             f"the {linked:,} its pages link (a viewer holds at most {VIEWER_LIMIT:,}, so that "
             "a browser can open its data file, and always every one the pages link)")
    return (f'<p class="notice note" id="viewer-capped">This campaign has {total:,} '
            f"configurations; this viewer holds {held:,} of them: {which}. The other "
            f"{total - held:,} are left out here; the page of any one of them, with every "
            f"value: <code>{_e(command)}</code>; their analyses: <code>perfwarehouse sql</code>"
            " over the result tables.</p>")


def campaign_request(campaign: str) -> Request:
    """What the site passes to the pages of a campaign with a viewer: link every
    configuration to it."""
    return Request(campaign, options=(("drilldown", VIEWER),))
