"""A report table in HTML (:mod:`perfwarehouse.reports.render` writes the rest of the
page): headers with the column's description as tooltip, the leading key columns frozen,
cells formatted by :mod:`perfwarehouse.reports.formatting`, a filter whose placeholder
names a column the table has, paging by :data:`PAGE_ROWS` and a CSV download."""

from __future__ import annotations

import html
import math
import re
from typing import Any

from perfwarehouse.reports.formatting import format_value
from perfwarehouse.reports.page import Column, Table


def escape(text: Any) -> str:
    """Text made safe in HTML (and in a quoted attribute)."""
    return html.escape(str(text), quote=True)


def relative_href(href: str) -> str:
    """Only plain relative file names are linked (never a scheme such as javascript:)."""
    if ":" in href or href.startswith(("/", "\\")):
        raise ValueError(f"links must be relative file names, got {href!r}")
    return href


def file_slug(text: str) -> str:
    """A file-name part from a title: lower-case letters, digits and ``-``."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "chart"


_NUMERIC = {"int", "float", "pct", "pvalue"}


def _filter_example(table: Table) -> str:
    """The filter box's placeholder, with a condition on a column this table has (issue 40:
    it suggested p<0.01 on tables without a p column)."""
    shown = [c for c in table.columns if c.field in table.data.column_names]
    numeric = next((c for c in shown if c.format in ("pvalue", "pct", "float", "int")), None)
    text = next((c for c in shown if c.format == "text" and c is not numeric), None)
    examples = ["words"]
    if numeric is not None:
        name = re.sub(r"\s*\([^)]*\)\s*$", "", numeric.label).strip()
        if re.search(r"[,<>=!]", name):  # "change, + = worse": an "=" reads as a condition
            name = numeric.field  # the filter takes a column's field name as well
        examples.append(f"{name} < 0.01" if numeric.format == "pvalue" else f"{name} > 5")
    if text is not None:
        value = next((str(v) for v in table.data.column(text.field).to_pylist() if v), None)
        if value and len(value) <= 20:
            examples.append(f"{text.label}={value}")
    return "Filter: " + ", or ".join(examples)


PAGE_ROWS = 100
"""Rows a table shows at a time. A longer table is paged: the rows after the first page
are written as the text of a ``<script type="text/html">`` data block inside the table's
body (the file holds every row as HTML, but the browser makes no element of them while
loading; every value in them is escaped, so no ``</script>`` can end the block early),
and ``tables.js`` turns them into rows when the reader first sorts, filters, pages or
downloads, then sorts and filters all rows and shows one page of them. The demo-sized
order-effects page (four tables, two of 1,880 rows) took 2.8 s of main-thread CPU time with
every row in the document, 0.7-0.8 s paged (``benchmarks/bench_page_main_thread.py``)."""


def table_html(table: Table, number: int, page: str = "report") -> str:
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
    csv_name = f"{file_slug(page)}-{file_slug(table.title)}.csv"
    count = f"{len(rows):,} row" + ("" if len(rows) == 1 else "s")
    parts = [f'<div class="table-block"><h3>{escape(table.title)}</h3>',
             f'<p class="intro">{escape(table.caption)}</p>',
             '<div class="table-tools">',
             f'<input type="search" class="table-search" data-table="{tid}" '
             f'data-counter="{tid}-count" placeholder="{escape(_filter_example(table))}" '
             f'aria-label="Filter the rows of {escape(table.title)}">'
             f'<span class="table-count" id="{tid}-count">{count}</span>'
             f'<button type="button" class="csv" data-table="{tid}" data-file="{escape(csv_name)}">'
             "Download CSV</button></div>"]
    if table.omitted:
        parts.append(f'<p class="notice">{table.omitted:,} more rows are not shown; '
                     "query the warehouse for all of them.</p>")
    parts.append(f'<div class="table-scroll"><table class="sortable" id="{tid}" '
                 f'data-frozen="{frozen}"><thead><tr>')
    for i, col in enumerate(table.columns):
        kind = "num" if col.format in _NUMERIC else "text"
        tip = f' title="{escape(col.description)}"' if col.description else ""
        parts.append(f'<th data-type="{kind}" data-field="{escape(col.field)}" scope="col"'
                     f'{_key_class(i, frozen)}{tip}><button type="button">'
                     f"{escape(col.label)}</button></th>")
    parts.append("</tr></thead><tbody>")
    for n, row in enumerate(rows):
        if n == PAGE_ROWS:  # the other pages' rows: text until the reader needs them
            parts.append('<script type="text/html" class="more-rows">')
        parts.append("<tr>")
        for i, col in enumerate(table.columns):
            parts.append(_cell(col, row.get(col.field), _key_class(i, frozen)))
        parts.append("</tr>")
    if len(rows) > PAGE_ROWS:
        parts.append("</script>")
    parts.append("</tbody></table></div>")
    if len(rows) > PAGE_ROWS:
        parts.append(f'<div class="pager" data-table="{tid}" data-page-rows="{PAGE_ROWS}">'
                     '<button type="button" class="page-prev" disabled>\u2039 previous</button>'
                     f'<span class="page-shown" aria-live="polite">rows 1\u2013{PAGE_ROWS:,} of {len(rows):,}'
                     '</span><button type="button" class="page-next">next \u203a</button>'
                     '</div>')
    parts.append("</div>")
    return "".join(parts)


def _key_class(i: int, frozen: int) -> str:
    if i >= frozen:
        return ""
    return ' class="key last-key"' if i == frozen - 1 else ' class="key"'


def _cell(col: Column, value: Any, attrs: str = "") -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return f'<td data-v=""{attrs}></td>' if col.format in _NUMERIC else f"<td{attrs}></td>"
    if col.format == "link":  # a relative file name (data-v: what the CSV gets)
        href = escape(relative_href(str(value)))
        return f'<td data-v="{href}"{attrs}><a href="{href}">{escape(col.label)}</a></td>'
    if col.format in _NUMERIC:  # data-v: the number to sort by (and, in CSS, right-aligned)
        return (f'<td data-v="{float(value):.17g}"{attrs}>'
                f"{escape(format_value(col, value))}</td>")
    return f"<td{attrs}>{escape(format_value(col, value))}</td>"


