"""What a report page is made of: sections of charts, tables and notices.

A page module (``order_effects.py``, ``variability.py`` ...) reads its tables and
builds a :class:`Page`; :mod:`perfwarehouse.reports.render` is the only code that
turns a page into HTML (and PNG). Nothing here touches a disk or a warehouse.

Every string a page carries is plain text: the renderer escapes all of it, so a
benchmark name taken from a log (``</script><script>alert(1)</script>``) stays text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import altair as alt
import polars as pl
import pyarrow as pa

from perfwarehouse.output import format_settings  # noqa: F401  (re-exported: pages import it here)


@dataclass(frozen=True)
class Figure:
    """One chart. Its title, axis titles and caption (the Vega-Lite ``description``)
    are set by the chart function in :mod:`perfwarehouse.reports.charts`."""

    chart: alt.TopLevelMixin
    name: str

    @property
    def caption(self) -> str:
        return str(self.spec().get("description", ""))

    def spec(self) -> dict[str, Any]:
        """The Vega-Lite spec, not validated against the Vega-Lite schema again: validation
        took 21 of the 108 s of ``report all`` on the demo (the chart builders are validated
        by their snapshot tests, ``tests/unit/reports/test_charts.py``, and every chart of a
        site by ``tests/integration/test_report_site.py``)."""
        return self.chart.to_dict(validate=False)


ColumnFormat = Literal["text", "int", "float", "pct", "pvalue", "bool", "json", "settings",
                       "link"]


@dataclass(frozen=True)
class Column:
    """A column of a :class:`Table`: the field in the data, its header (with the unit)
    and how to format it (``pct``: a number already in percent; ``settings``: canonical
    JSON settings shown as ``k=v k=v``, the one settings format of every page; ``link``:
    a relative file name, shown as a link whose text is the column's label).

    ``key`` columns name the row; the leading key columns of a table stay frozen on the
    left while the reader scrolls it sideways. ``description`` says what the column
    holds (the header's tooltip). Pages take their columns from the one table of
    :mod:`perfwarehouse.reports.columns`."""

    field: str
    label: str
    format: ColumnFormat = "text"
    key: bool = False
    description: str = ""


@dataclass(frozen=True)
class Table:
    """A sortable, searchable HTML table of pre-aggregated rows.

    ``omitted`` says how many rows of the full result were left out (the page shows
    the first ``data.num_rows``, in the order given, and says so).
    """

    title: str
    caption: str
    columns: tuple[Column, ...]
    data: pa.Table
    omitted: int = 0


MAX_TABLE_ROWS = 2000
"""Rows an HTML table shows at most (a 2.3M-trial campaign has 1,880 configurations)."""


def capped_table(title: str, caption: str, columns: tuple[Column, ...], rows: pl.DataFrame,
                 limit: int | None = None) -> Table:
    """A :class:`Table` of the first ``limit`` (default :data:`MAX_TABLE_ROWS`) of ``rows``
    (in their order), saying how many more there are."""
    limit = MAX_TABLE_ROWS if limit is None else limit
    return Table(title, caption, columns, rows.head(limit).to_arrow(),
                 omitted=max(rows.height - limit, 0))


@dataclass(frozen=True)
class Notice:
    """A sentence the reader must see: an analysis that has not been run, a cap."""

    text: str
    kind: Literal["missing", "note"] = "note"


Block = Figure | Table | Notice


@dataclass(frozen=True)
class Section:
    title: str
    intro: str = ""
    blocks: tuple[Block, ...] = ()


VerdictLevel = Literal["alarm", "ok", "info", "missing"]


@dataclass(frozen=True)
class Verdict:
    """The answer of a page in one or two sentences with its numbers, shown first.

    ``level``: ``alarm`` (something to act on), ``ok`` (nothing found), ``info``, or
    ``missing`` (the analyses have not been run); the box says it in words too
    (:data:`VERDICT_WORDS`), never by colour alone."""

    text: str
    level: VerdictLevel = "info"


VERDICT_WORDS = {"alarm": "Action needed", "ok": "Nothing found", "info": "Verdict",
                 "missing": "Not analysed yet"}


@dataclass(frozen=True)
class Page:
    """A whole report. ``verdict`` is shown first, ``provenance`` lines (which job runs
    and parameters the numbers come from) last, collapsed."""

    title: str
    intro: str
    sections: tuple[Section, ...]
    provenance: tuple[str, ...] = ()
    name: str = "report"
    verdict: Verdict | None = None
    links: tuple[tuple[str, str], ...] = ()
    """(text, relative address) of related pages, shown under the intro."""

    def shown(self) -> tuple[Verdict | None, tuple[Section, ...]]:
        """The verdict box and the sections as the page shows them.

        A page without a ``verdict`` whose first section is titled "Verdict" (pages that
        say their answer as notices) shows that section's leading notices as the verdict
        box (level ``missing`` if one of them names an analysis not run, else ``info``),
        so every page opens with its answer; the rest of the section follows as "Details of
        the verdict".
        """
        if self.verdict is not None or not self.sections or self.sections[0].title != "Verdict":
            return self.verdict, self.sections
        first = self.sections[0]
        lead = 0
        while lead < len(first.blocks) and isinstance(first.blocks[lead], Notice):
            lead += 1
        notices = [b for b in first.blocks[:lead] if isinstance(b, Notice)]
        if not notices:
            return None, self.sections
        level: VerdictLevel = "missing" if any(n.kind == "missing" for n in notices) else "info"
        verdict = Verdict(" ".join(n.text for n in notices), level)
        rest = first.blocks[lead:]
        sections = (((Section("Details of the verdict", first.intro, rest),) if rest else ())
                    + self.sections[1:])
        return verdict, sections

    def figures(self) -> list[Figure]:
        return [b for s in self.sections for b in s.blocks if isinstance(b, Figure)]

    def notices(self, kind: str | None = None) -> list[Notice]:
        return [b for s in self.sections for b in s.blocks
                if isinstance(b, Notice) and (kind is None or b.kind == kind)]


def section(title: str, intro: str, blocks: Sequence[Block | None]) -> Section:
    """A section without the blocks that came out as None (nothing to show)."""
    return Section(title, intro, tuple(b for b in blocks if b is not None))


@dataclass(frozen=True)
class Missing:
    """An analysis table a page needs that has no rows yet, and the command that fills it."""

    table: str
    command: str
    detail: str = field(default="")

    def notice(self) -> Notice:
        text = (f"The table {self.table} has no results{self.detail}: run "
                f"`{self.command}` first, then write this report again.")
        return Notice(text, "missing")
