"""The only writer of reports: a :class:`~perfwarehouse.reports.page.Page` becomes one
self-contained HTML file (and, on request, one PNG per chart).

The page needs no network to open:

* the Vega, Vega-Lite and vega-embed JavaScript comes from vl-convert
  (``vl_convert.javascript_bundle``) and is embedded once, in one ``<script>``;
* every chart's Vega-Lite spec, data included, is embedded as JSON in a
  ``<script type="application/json">`` element whose text escapes ``<``, ``>``,
  ``&``, U+2028 and U+2029 (so no data string can close the element or start
  markup; ``JSON.parse`` gives back the same strings);
* a Content-Security-Policy ``default-src 'none'`` forbids every fetch, so a page
  that tried to load anything would fail visibly (the browser test checks that
  nothing was even attempted).

All other text (titles, captions, table cells, notices) is HTML-escaped. A small
script draws each chart with vega-embed (SVG renderer), one after the other, and
records per chart ``data-chart-status`` (``drawn``, ``empty`` or ``failed``), the
number of drawn mark items and any Vega warning; ``#report-status`` sums them up
(``data-state="done"`` when every chart has settled) together with the number of
resources the page fetched and of policy violations.
"""

from __future__ import annotations

import html
import json
import math
import os
import re
from collections.abc import Iterable
from datetime import date, datetime
from functools import cache
from pathlib import Path
from typing import Any

import altair as alt
import vl_convert as vlc

from perfwarehouse.reports.page import (
    VERDICT_WORDS,
    Column,
    Figure,
    Notice,
    Page,
    Section,
    Table,
    Verdict,
    VerdictLevel,
    format_settings,
)

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; "
    "style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
)

_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                 "\u2028": "\\u2028", "\u2029": "\\u2029"}
_JSON_UNSAFE = re.compile("[<>&\u2028\u2029]")


def script_json(value: Any) -> str:
    """JSON text that is safe as the content of a ``<script>`` element.

    ``<``, ``>``, ``&``, U+2028 and U+2029 become ``\\uXXXX`` escapes, which JSON
    (and JavaScript) read back as the same characters: data strings stay data.
    Non-finite numbers are refused (JSON has none; charts must not carry them: a chart's
    spec goes through :func:`finite_or_null` first).
    """
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return _JSON_UNSAFE.sub(lambda m: _JSON_ESCAPES[m.group(0)], text)


def finite_or_null(value: Any) -> Any:
    """``value`` with every non-finite float replaced by None (in dicts, lists, tuples),
    which Vega-Lite draws as a missing value: one series overflowing to ``inf`` must not
    stop every page (issue 31: ``Out of range float values are not JSON compliant``)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite_or_null(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_or_null(v) for v in value]
    return value


def vega_lite_version() -> str:
    """The Vega-Lite version (``major.minor``) that Altair writes, as vl-convert names it."""
    wanted = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
    known = vlc.get_vegalite_versions()
    return wanted if wanted in known else known[-1]


@cache
def javascript_bundle() -> str:
    """vega-embed, Vega-Lite and Vega as one classic script (made once per process).

    The text must be safe inside ``<script>``: a ``</script`` in it (there is none in
    vl-convert 1.9) becomes ``<\\/script``, the same string or regular expression to
    JavaScript; a ``<!--`` (none either) cannot be rewritten safely, so it is refused.
    """
    bundle = vlc.javascript_bundle(vl_version=vega_lite_version())
    bundle = re.sub(r"</(script)", r"<\\/\1", bundle, flags=re.IGNORECASE)
    if "<!--" in bundle:
        raise RuntimeError("the vl-convert JavaScript bundle contains '<!--'; "
                           "it cannot be embedded in a <script> element as it is")
    return bundle


def chart_spec(figure: Figure) -> dict[str, Any]:
    """The Vega-Lite spec embedded in the page: Altair's, minus the ``$schema`` URL
    (the page tells vega-embed the mode instead, so the page names no URL)."""
    spec = figure.spec()
    spec.pop("$schema", None)
    return spec


# --------------------------------------------------------------------- HTML
_STYLE = """
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d1d1f;
margin:0 auto;max-width:1180px;padding:1.5rem 2rem 4rem}
h1{font-size:1.7rem;margin:.2rem 0 .4rem}h2{font-size:1.3rem;margin-top:2.4rem;
border-bottom:1px solid #ddd;padding-bottom:.2rem}h3{font-size:1.05rem;margin:1.4rem 0 .3rem}
.intro{max-width:75ch}.provenance{font-size:.85rem;color:#555;margin-top:3rem}
.provenance ul{padding-left:1.1rem}.provenance summary{cursor:pointer;font-weight:600}
.verdict{border:2px solid #555;border-left-width:10px;border-radius:4px;padding:.7rem 1rem;
margin:.6rem 0 1rem;max-width:90ch;font-size:1.05rem;background:#f7f7f7}
.verdict .verdict-level{display:block;font-size:.8rem;font-weight:700;letter-spacing:.05em;
text-transform:uppercase;margin-bottom:.2rem}
.verdict.alarm{border-color:#d55e00;background:#fff3eb}
.verdict.ok{border-color:#009e73;background:#ecf8f4}
.verdict.missing{border-color:#e69f00;background:#fff8e6}
nav ol{columns:2;font-size:.9rem}
figure{margin:1.2rem 0 1.8rem}figcaption{max-width:80ch;font-size:.9rem;color:#333;
margin-top:.3rem}.chart-failed{color:#a40000;font-weight:600}
.notice{border-left:4px solid #888;background:#f5f5f5;padding:.5rem .9rem;max-width:80ch}
.notice.missing{border-color:#c77c00;background:#fff6e5}
.table-block{margin:1.2rem 0 2rem}.table-scroll{max-height:32rem;overflow:auto;
border:1px solid #ddd}table{border-collapse:collapse;font-size:.82rem;width:max-content;
min-width:100%}
th,td{padding:.2rem .45rem;border-bottom:1px solid #eee;text-align:left;vertical-align:top;
max-width:22rem;overflow-wrap:break-word}
td[data-v]{text-align:right;font-variant-numeric:tabular-nums}td[data-v]:has(a){text-align:left}
th{position:sticky;top:0;background:#fafafa;z-index:1}
th.key,td.key{position:sticky;left:0;z-index:2;min-width:5rem;max-width:14rem}
td.key{background:#fff}th.key{z-index:3}td.key.last-key,th.key.last-key{
box-shadow:inset -2px 0 0 #bbb}
.table-tools{display:flex;flex-wrap:wrap;align-items:center;gap:.6rem}
button.csv{font:inherit;font-size:.85rem;padding:.15rem .5rem;cursor:pointer}
th button{all:unset;cursor:pointer;font-weight:600}
th[aria-sort=ascending] button::after{content:" \\25B2"}
th[aria-sort=descending] button::after{content:" \\25BC"}
input.table-search{margin:.3rem 0;padding:.25rem .4rem;width:26rem;max-width:100%}
.table-count{font-size:.85rem;color:#555;margin-left:.6rem}
"""

_DRAW_SCRIPT = """
(function () {
  "use strict";
  var status = document.getElementById("report-status");
  var violations = [];
  document.addEventListener("securitypolicyviolation", function (e) {
    violations.push(String(e.blockedURI || e.violatedDirective));
    status.setAttribute("data-violations", String(violations.length));
    status.setAttribute("data-violation-list", violations.join(" "));
  });
  var charts = Array.prototype.slice.call(document.querySelectorAll("[data-chart-id]"));
  var counts = {drawn: 0, empty: 0, failed: 0};
  var warnings = null;
  var consoleWarn = console.warn;
  console.warn = function () {
    if (warnings) { warnings.push(Array.prototype.join.call(arguments, " ")); }
    return consoleWarn.apply(console, arguments);
  };
  function settle(el, state, message) {
    counts[state] += 1;
    el.setAttribute("data-chart-status", state);
    if (warnings && warnings.length) {
      el.setAttribute("data-chart-warnings", warnings.join(" | "));
    }
    if (state !== "drawn") {
      var p = document.createElement("p");
      p.className = "chart-failed";
      p.textContent = "This chart could not be drawn: " + message;
      el.parentNode.insertBefore(p, el.nextSibling);
    }
  }
  function draw(el) {
    warnings = [];
    var id = el.getAttribute("data-chart-id");
    var spec;
    try {
      spec = JSON.parse(document.getElementById("spec-" + id).textContent);
      if (typeof vegaEmbed !== "function") { throw new Error("vega-embed is missing"); }
    } catch (err) {
      settle(el, "failed", String(err));
      return Promise.resolve();
    }
    return vegaEmbed(el, spec, {renderer: "svg", actions: false, mode: "vega-lite"}).then(
      function () {
        var items = el.querySelectorAll("g.role-mark > *").length;
        el.setAttribute("data-chart-items", String(items));
        settle(el, items > 0 ? "drawn" : "empty", "no marks to draw");
      },
      function (err) { settle(el, "failed", String(err)); });
  }
  charts.reduce(function (done, el) {
    return done.then(function () { return draw(el); });
  }, Promise.resolve()).then(function () {
    warnings = null;
    status.setAttribute("data-charts", String(charts.length));
    status.setAttribute("data-drawn", String(counts.drawn));
    status.setAttribute("data-empty", String(counts.empty));
    status.setAttribute("data-failed", String(counts.failed));
    status.setAttribute("data-resources",
      String(performance.getEntriesByType("resource").length));
    status.setAttribute("data-violations", String(violations.length));
    status.setAttribute("data-state", "done");
  });
})();
"""

_TABLE_SCRIPT = """
(function () {
  "use strict";
  function key(cell, numeric) {
    var v = cell.getAttribute("data-v");
    if (numeric) { var x = parseFloat(v); return isNaN(x) ? null : x; }
    return (v === null ? cell.textContent : v).toLowerCase();
  }
  function norm(text) {
    return text.toLowerCase().replace(/\\s*\\([^)]*\\)\\s*$/, "").trim().replace(/\\s+/g, "_");
  }
  // A filter word "column<number" (<, <=, >, >=, =, !=) compares a numeric column;
  // the column is named by its header (spaces as _, the unit in brackets left out),
  // its field name, or a unique prefix of either.
  var CONDITION = /^([^<>=!]+?)(<=|>=|!=|<|>|=)(-?(?:\\d+\\.?\\d*|\\.\\d+)(?:e[-+]?\\d+)?)%?$/i;
  function column(table, name) {
    var heads = Array.prototype.slice.call(table.querySelectorAll("thead th"));
    var wanted = name.toLowerCase().replace(/\\s+/g, "_");
    var names = heads.map(function (h) {
      return [norm(h.textContent), (h.getAttribute("data-field") || "").toLowerCase(),
              h.textContent.toLowerCase().trim().replace(/\\s+/g, "_")];
    });
    for (var i = 0; i < names.length; i++) {
      if (names[i].indexOf(wanted) >= 0) { return i; }
    }
    var hits = [];
    names.forEach(function (n, i) {
      if (n.some(function (x) { return x.indexOf(wanted) === 0; })) { hits.push(i); }
    });
    return hits.length === 1 ? hits[0] : -1;
  }
  function test(x, op, y) {
    if (x === null) { return false; }
    switch (op) {
      case "<": return x < y; case "<=": return x <= y; case ">": return x > y;
      case ">=": return x >= y; case "=": return x === y; default: return x !== y;
    }
  }
  function matcher(table, words) {
    var parts = words.map(function (w) {
      var m = CONDITION.exec(w);
      if (m) {
        var col = column(table, m[1]);
        if (col >= 0) { return {col: col, op: m[2], value: parseFloat(m[3])}; }
      }
      return {text: w};
    });
    return function (row) {
      var text = row.textContent.toLowerCase();
      return parts.every(function (p) {
        if (p.text !== undefined) { return text.indexOf(p.text) >= 0; }
        return test(key(row.cells[p.col], true), p.op, p.value);
      });
    };
  }
  // The frozen key columns: their left offsets are measured once, on the header row
  // (every cell of a column has its width), then written to every cell; reading and
  // writing in turn would lay the whole table out again for each cell.
  function freeze(table) {
    var frozen = Number(table.getAttribute("data-frozen")) || 0;
    if (!frozen) { return; }
    var head = table.tHead.rows[0].cells;
    var offsets = [], left = 0;
    for (var i = 0; i < frozen; i++) {
      offsets.push(left + "px");
      left += head[i].getBoundingClientRect().width;
    }
    Array.prototype.forEach.call(table.rows, function (row) {
      for (var j = 0; j < frozen && j < row.cells.length; j++) {
        row.cells[j].style.left = offsets[j];
      }
    });
  }
  function csvCell(cell) {
    var v = cell.getAttribute("data-v");
    var text = v === null ? cell.textContent : v;
    return /[",\\n\\r]/.test(text) ? "\\"" + text.replace(/"/g, "\\"\\"") + "\\"" : text;
  }
  // The table as CSV (the rows the filter shows; numbers at full precision).
  window.perfwarehouseCsv = function (id) {
    var table = document.getElementById(id);
    var lines = [Array.prototype.map.call(table.querySelectorAll("thead th"), function (h) {
      return csvCell({getAttribute: function () { return null; }, textContent: h.textContent});
    }).join(",")];
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
      if (!row.hidden) { lines.push(Array.prototype.map.call(row.cells, csvCell).join(",")); }
    });
    return lines.join("\\r\\n") + "\\r\\n";
  };
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var body = table.tBodies[0];
    var heads = table.querySelectorAll("thead th");
    freeze(table);
    heads.forEach(function (th, col) {
      th.querySelector("button").addEventListener("click", function () {
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var numeric = th.getAttribute("data-type") === "num";
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = key(a.cells[col], numeric), y = key(b.cells[col], numeric);
          if (x === y) { return 0; }
          if (x === null) { return 1; }
          if (y === null) { return -1; }
          return (x < y ? -1 : 1) * (ascending ? 1 : -1);
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  document.querySelectorAll("button.csv").forEach(function (button) {
    button.addEventListener("click", function () {
      var id = button.getAttribute("data-table");
      var blob = new Blob([window.perfwarehouseCsv(id)], {type: "text/csv"});
      var a = document.createElement("a");
      a.href = URL.createObjectURL(blob);
      a.download = button.getAttribute("data-file");
      document.body.appendChild(a);
      a.click();
      a.remove();
    });
  });
  document.querySelectorAll("input.table-search").forEach(function (input) {
    var table = document.getElementById(input.getAttribute("data-table"));
    var counter = document.getElementById(input.getAttribute("data-counter"));
    input.addEventListener("input", function () {
      var words = input.value.toLowerCase().split(/\\s+/).filter(Boolean);
      var hit = matcher(table, words);
      var shown = 0;
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        var ok = hit(row);
        row.hidden = !ok;
        shown += ok ? 1 : 0;
      });
      counter.textContent = shown + " of " + table.tBodies[0].rows.length + " rows";
    });
  });
})();
"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def render_html(page: Page) -> str:
    """The whole page as one HTML string (see the module docstring)."""
    out: list[str] = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_e(CONTENT_SECURITY_POLICY)}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="generator" content="perfwarehouse">',
        f"<title>{_e(page.title)}</title>",
        f"<style>{_STYLE}</style>",
        "</head><body>",
        f"<header><h1>{_e(page.title)}</h1></header>",
        "<main>",
    ]
    verdict, sections = page.shown()
    if verdict is not None:
        out.append(_verdict(verdict))
    out.append(f'<p class="intro">{_e(page.intro)}</p>')
    if page.links:
        out.append('<p class="links">See also: ' + " · ".join(
            f'<a href="{_e(_relative_href(href))}">{_e(text)}</a>' for text, href in page.links)
            + "</p>")
    if len(sections) > 1:
        out.append("<nav><ol>")
        out.extend(f'<li><a href="#s{i}">{_e(s.title)}</a></li>'
                   for i, s in enumerate(sections))
        out.append("</ol></nav>")
    ids = _Ids(page.name)
    for i, sec in enumerate(sections):
        out.extend(_section(sec, f"s{i}", ids))
    if page.provenance:
        out.append('<details class="provenance"><summary>Provenance: the job runs, parameters '
                   "and rules these numbers come from</summary><ul>")
        out.extend(f"<li>{_e(line)}</li>" for line in page.provenance)
        out.append("</ul></details>")
    out.append("</main>")
    out.append('<div id="report-status" hidden data-state="drawing"></div>')
    out.append(f"<script>{javascript_bundle()}</script>")
    out.append(f"<script>{_DRAW_SCRIPT}</script>")
    out.append(f"<script>{_TABLE_SCRIPT}</script>")
    out.append("</body></html>")
    return "\n".join(out)


def _relative_href(href: str) -> str:
    """Only plain relative file names are linked (never a scheme such as javascript:)."""
    if ":" in href or href.startswith(("/", "\\")):
        raise ValueError(f"links must be relative file names, got {href!r}")
    return href


class _Ids:
    def __init__(self, page: str = "report") -> None:
        self.page = page
        self.charts = 0
        self.tables = 0


def _verdict(verdict: Verdict, anchor: str | None = "verdict") -> str:
    """The verdict box: the level in words (not only its colour), then the answer."""
    ident = f' id="{_e(anchor)}"' if anchor else ""
    return (f'<section class="verdict {_e(verdict.level)}"{ident} role="status" '
            f'aria-label="Verdict"><strong class="verdict-level">'
            f"{_e(VERDICT_WORDS[verdict.level])}</strong>"
            f'<span class="verdict-text">{_e(verdict.text)}</span></section>')


def _section(sec: Section, anchor: str, ids: _Ids) -> Iterable[str]:
    yield f'<section id="{anchor}"><h2>{_e(sec.title)}</h2>'
    if sec.intro:
        yield f'<p class="intro">{_e(sec.intro)}</p>'
    for block in sec.blocks:
        if isinstance(block, Figure):
            yield _figure(block, ids.charts)
            ids.charts += 1
        elif isinstance(block, Table):
            yield _table(block, ids.tables, ids.page)
            ids.tables += 1
        elif isinstance(block, Notice):
            yield f'<p class="notice {_e(block.kind)}">{_e(block.text)}</p>'
        else:  # pragma: no cover - the Block union is closed
            raise TypeError(f"not a page block: {block!r}")
    yield "</section>"


def _figure(figure: Figure, number: int) -> str:
    spec = chart_spec(figure)
    return (
        f'<figure><div class="chart" data-chart-id="{number}" data-chart-name="{_e(figure.name)}"'
        f' data-chart-status="pending"></div>'
        f'<script type="application/json" id="spec-{number}">'
        f"{script_json(finite_or_null(spec))}</script>"
        f"<figcaption>{_e(spec.get('description', ''))}</figcaption></figure>"
    )


_NUMERIC = {"int", "float", "pct", "pvalue"}


def _table(table: Table, number: int, page: str = "report") -> str:
    tid = f"table-{number}"
    rows = table.data.to_pylist()
    # the leading key columns stay frozen on the left (sticky) when the table scrolls
    frozen = 0
    for col in table.columns:
        if not col.key:
            break
        frozen += 1
    if frozen == 0 and len(table.columns) > 1:
        frozen = 1  # no key declared: the first column names the row, it stays in view
    csv_name = f"{_slug(page)}-{_slug(table.title)}.csv"
    parts = [f'<div class="table-block"><h3>{_e(table.title)}</h3>',
             f'<p class="intro">{_e(table.caption)}</p>',
             '<div class="table-tools">',
             f'<input type="search" class="table-search" data-table="{tid}" '
             f'data-counter="{tid}-count" placeholder="Filter: words, or p<0.01, '
             f'rsd_total>5" aria-label="Filter the rows of {_e(table.title)}">'
             f'<span class="table-count" id="{tid}-count">{len(rows):,} rows</span>'
             f'<button type="button" class="csv" data-table="{tid}" data-file="{_e(csv_name)}">'
             "Download CSV</button></div>"]
    if table.omitted:
        parts.append(f'<p class="notice">{table.omitted:,} more rows are not shown; '
                     "query the warehouse for all of them.</p>")
    parts.append(f'<div class="table-scroll"><table class="sortable" id="{tid}" '
                 f'data-frozen="{frozen}"><thead><tr>')
    for i, col in enumerate(table.columns):
        kind = "num" if col.format in _NUMERIC else "text"
        parts.append(f'<th data-type="{kind}" data-field="{_e(col.field)}" scope="col"'
                     f'{_key_class(i, frozen)}><button type="button">'
                     f"{_e(col.label)}</button></th>")
    parts.append("</tr></thead><tbody>")
    for row in rows:
        parts.append("<tr>")
        for i, col in enumerate(table.columns):
            parts.append(_cell(col, row.get(col.field), _key_class(i, frozen)))
        parts.append("</tr>")
    parts.append("</tbody></table></div></div>")
    return "".join(parts)


def _key_class(i: int, frozen: int) -> str:
    if i >= frozen:
        return ""
    return ' class="key last-key"' if i == frozen - 1 else ' class="key"'


def _cell(col: Column, value: Any, attrs: str = "") -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return f'<td data-v=""{attrs}></td>' if col.format in _NUMERIC else f"<td{attrs}></td>"
    if col.format == "link":  # a relative file name (data-v: what the CSV gets)
        href = _e(_relative_href(str(value)))
        return f'<td data-v="{href}"{attrs}><a href="{href}">{_e(col.label)}</a></td>'
    if col.format in _NUMERIC:  # data-v: the number to sort by (and, in CSS, right-aligned)
        return (f'<td data-v="{float(value):.17g}"{attrs}>'
                f"{_e(format_value(col, value))}</td>")
    return f"<td{attrs}>{_e(format_value(col, value))}</td>"


P_SMALLEST = 1e-300
"""p-values below this (0 included: a float underflow, not a certainty) print as
``< 1e-300``."""


def format_number(v: float) -> str:
    """A number by its magnitude: thousands separated, about four significant digits,
    scientific notation only for the very small or very large."""
    if math.isinf(v):
        return "∞" if v > 0 else "−∞"
    a = abs(v)
    if a == 0:
        return "0"
    if a >= 1e9 or a < 1e-4:
        return f"{v:.3e}"
    if a >= 1e4:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:,.1f}"
    return f"{v:.4g}"


def format_pvalue(v: float) -> str:
    """A p-value: never ``0.00e+00`` (below 1e-300 it is printed as such)."""
    if v < P_SMALLEST:
        return "< 1e-300"
    if v < 1e-4:
        return f"{v:.2e}"
    return f"{v:.4f}" if v < 0.1 else f"{v:.3f}"


def format_value(col: Column, value: Any) -> str:
    """How a table cell shows ``value`` (units are in the column header)."""
    if col.format == "int":
        return f"{int(value):,}"
    if col.format in ("float", "pct"):
        return format_number(float(value))
    if col.format == "pvalue":
        return format_pvalue(float(value))
    if col.format == "settings":
        return format_settings(value)
    if col.format == "bool":
        return "yes" if value else "no"
    if isinstance(value, (datetime, date)):
        return value.isoformat(sep=" ") if isinstance(value, datetime) else value.isoformat()
    return str(value)


# ------------------------------------------------------------------- writing
def write_report(page: Page, out: Path, png_dir: Path | None = None) -> Path:
    """Write ``page`` to ``out`` (atomically: a reader never sees half a page) and, with
    ``png_dir``, each chart as ``<png_dir>/<page>-<nn>-<chart>.png``."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    text = render_html(page)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, out)
    if png_dir is not None:
        write_pngs(page, Path(png_dir))
    return out


def write_pngs(page: Page, png_dir: Path, scale: float = 1.5) -> list[Path]:
    """Each chart of ``page`` as a PNG, rendered by vl-convert (no browser needed)."""
    png_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for i, figure in enumerate(page.figures()):
        path = png_dir / f"{_slug(page.name)}-{i:02d}-{_slug(figure.name)}.png"
        png = vlc.vegalite_to_png(chart_spec(figure), vl_version=vega_lite_version(), scale=scale)
        path.write_bytes(png)
        written.append(path)
    return written


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "chart"


def index_verdict(pages: list[Page]) -> Verdict:
    """The index's own verdict: how many pages need action (and which), found nothing,
    or wait for their analyses."""
    levels: dict[str, list[str]] = {"alarm": [], "ok": [], "info": [], "missing": []}
    for page in pages:
        verdict = page.shown()[0]
        levels[verdict.level if verdict is not None else "info"].append(page.name)
    alarm, missing = levels["alarm"], levels["missing"]
    parts = [f"{len(pages)} report{'s' if len(pages) != 1 else ''}"]
    if alarm:
        parts.append(f"{len(alarm)} need{'s' if len(alarm) == 1 else ''} action "
                     f"({', '.join(alarm)})")
    if levels["ok"]:
        parts.append(f"{len(levels['ok'])} found nothing to act on")
    if missing:
        parts.append(f"{len(missing)} wait{'s' if len(missing) == 1 else ''} for analyses "
                     f"({', '.join(missing)}: see `perfwarehouse status`)")
    if levels["info"]:
        parts.append(f"{len(levels['info'])} report{'s' if len(levels['info']) != 1 else ''} "
                     "without a yes/no answer")
    level: VerdictLevel = "alarm" if alarm else "missing" if missing else "ok" if levels["ok"] \
        else "info"
    return Verdict(": ".join([parts[0], "; ".join(parts[1:])]) + "." if len(parts) > 1
                   else parts[0] + ".", level)


def write_index(entries: list[tuple[str, Page]], out: Path) -> Path:
    """``index.html`` next to the reports: each page's title, linked, with its verdict
    (``entries``: the file name of each page, relative to ``out``, and the page)."""
    items = []
    for href, page in entries:
        verdict = page.shown()[0]
        box = _verdict(verdict, None) if verdict is not None else ""
        items.append(f'<li><h2><a href="{_e(href)}">{_e(page.title)}</a></h2>{box}</li>')
    text = "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_e(CONTENT_SECURITY_POLICY)}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>perfwarehouse reports</title>",
        "<style>" + _STYLE + "ul.index{list-style:none;padding:0}"
        "ul.index h2{margin-top:1.6rem}</style>", "</head><body>",
        "<header><h1>perfwarehouse reports</h1></header><main>",
        _verdict(index_verdict([p for _, p in entries])),
        '<ul class="index">', *items, "</ul></main></body></html>"])
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, out)
    return out
