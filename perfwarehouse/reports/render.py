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

import json
import math
import os
import re
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, TextIO

import altair as alt
import vl_convert as vlc

from perfwarehouse.reports.formatting import P_SMALLEST as P_SMALLEST
from perfwarehouse.reports.formatting import format_number as format_number
from perfwarehouse.reports.formatting import format_pvalue as format_pvalue
from perfwarehouse.reports.formatting import format_value as format_value
from perfwarehouse.reports.formatting import p_statement as p_statement
from perfwarehouse.reports.page import (
    VERDICT_WORDS,
    Figure,
    Notice,
    Page,
    Section,
    Table,
    Verdict,
    VerdictLevel,
)
from perfwarehouse.reports.render_tables import PAGE_ROWS as PAGE_ROWS
from perfwarehouse.reports.render_tables import escape as _e
from perfwarehouse.reports.render_tables import file_slug as _slug
from perfwarehouse.reports.render_tables import relative_href as _relative_href
from perfwarehouse.reports.render_tables import table_html as _table

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; "
    "style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
)
SITE_CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self' 'unsafe-eval'; style-src 'self' 'unsafe-inline'; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)
"""A page of a site (:mod:`perfwarehouse.reports.site`) loads the site's one copy of the
JavaScript and CSS (``assets/``) and nothing else: no inline script, no other file, no
network (Vega compiles its expressions, hence ``'unsafe-eval'``; vega-embed adds a
``<style>`` element, hence ``'unsafe-inline'`` for styles only)."""

ASSETS = ("report.css", "draw.js", "tables.js", "viewer.js")
"""The page's own CSS and JavaScript, files of this package (``reports/assets``);
``viewer.js`` draws a site's configuration drill-downs (:mod:`perfwarehouse.reports.drilldown`)."""
VEGA_FILE = "vega.js"
"""The name of the Vega, Vega-Lite and vega-embed bundle in a site's ``assets/``."""


@cache
def asset(name: str) -> str:
    """The text of one of :data:`ASSETS` (shipped in the package, read once)."""
    from importlib.resources import files

    return files("perfwarehouse.reports").joinpath("assets", name).read_text(encoding="utf-8")


@dataclass(frozen=True)
class SiteLinks:
    """How a page of a site reaches the rest of it: ``assets`` (the relative directory
    of the shared CSS and JavaScript, ending in ``/``) and ``nav`` (text, relative
    address) shown at the top of the page, the site's index first."""

    assets: str
    nav: tuple[tuple[str, str], ...]

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
    """vega-embed, Vega-Lite and Vega as one classic script (made once per process, and
    kept in the user's cache: making it takes vl-convert 1.5 s wall, 1.9 CPU s, at each
    new site).

    The text must be safe inside ``<script>``: a ``</script`` in it (there is none in
    vl-convert 1.9) becomes ``<\\/script``, the same string or regular expression to
    JavaScript; a ``<!--`` (none either) cannot be rewritten safely, so it is refused.
    """
    cached = _bundle_cache_file()
    try:
        return cached.read_text(encoding="utf-8")
    except (OSError, UnicodeError):
        pass
    # the stub makes snippet required; vl-convert defaults it (the window globals)
    bundle = vlc.javascript_bundle(vl_version=vega_lite_version())  # type: ignore[call-arg]
    bundle = re.sub(r"</(script)", r"<\\/\1", bundle, flags=re.IGNORECASE)
    if "<!--" in bundle:
        raise RuntimeError("the vl-convert JavaScript bundle contains '<!--'; "
                           "it cannot be embedded in a <script> element as it is")
    try:  # a cache that cannot be written is no error
        write_text(cached, bundle)
    except OSError:
        pass
    return bundle


def _bundle_cache_file() -> Path:
    """Where :func:`javascript_bundle` keeps the bundle of this vl-convert and Vega-Lite
    version: ``$XDG_CACHE_HOME/perfwarehouse`` (``~/.cache/perfwarehouse``)."""
    from importlib.metadata import version

    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    name = f"vega-bundle-vl-convert-{version('vl-convert-python')}-vega-lite-{vega_lite_version()}.js"
    return root / "perfwarehouse" / name


def chart_spec(figure: Figure) -> dict[str, Any]:
    """The Vega-Lite spec embedded in the page: Altair's, minus the ``$schema`` URL
    (the page tells vega-embed the mode instead, so the page names no URL)."""
    spec = figure.spec()
    spec.pop("$schema", None)
    return spec


# --------------------------------------------------------------------- HTML




def head(title: str, site: SiteLinks | None, extra_style: str = "") -> list[str]:
    """The document's start up to ``<body>``: the policy, the title and the style (the
    site's shared file, or inline for a stand-alone page)."""
    policy = SITE_CONTENT_SECURITY_POLICY if site else CONTENT_SECURITY_POLICY
    style = (f'<link rel="stylesheet" href="{_e(site.assets)}report.css">' if site
             else f"<style>{asset('report.css')}</style>")
    return ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{_e(policy)}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<meta name="generator" content="perfwarehouse">',
            f"<title>{_e(title)}</title>", style,
            *([f"<style>{extra_style}</style>"] if extra_style else []), "</head><body>"]


def nav_bar(site: SiteLinks | None) -> str:
    """The links to the site's index and the campaign's page, at the top of every page."""
    if site is None or not site.nav:
        return ""
    return ('<nav class="site" aria-label="Site">' + " › ".join(
        f'<a href="{_e(_relative_href(href))}">{_e(text)}</a>' for text, href in site.nav)
        + "</nav>")


def scripts(site: SiteLinks | None) -> list[str]:
    """Vega and the page's scripts: the site's shared files, or inline."""
    if site:
        return [f'<script src="{_e(site.assets)}{name}"></script>'
                for name in (VEGA_FILE, "draw.js", "tables.js")]
    return [f"<script>{javascript_bundle()}</script>", f"<script>{asset('draw.js')}</script>",
            f"<script>{asset('tables.js')}</script>"]


def render_html(page: Page, site: SiteLinks | None = None) -> str:
    """The whole page as one HTML string (see the module docstring); with ``site``, a page
    of a site that shares its JavaScript and CSS and links its index."""
    out: list[str] = [
        *head(page.title, site),
        nav_bar(site),
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
    out.extend(scripts(site))
    out.append("</body></html>")
    return "\n".join(out)


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


# ------------------------------------------------------------------- writing
def write_report(page: Page, out: Path, png_dir: Path | None = None,
                 site: SiteLinks | None = None) -> Path:
    """Write ``page`` to ``out`` (atomically: a reader never sees half a page) and, with
    ``png_dir``, each chart as ``<png_dir>/<page>-<nn>-<chart>.png``; ``site``: as a page
    of a site (:func:`render_html`)."""
    out = Path(out)
    write_text(out, render_html(page, site))
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


def write_text(out: Path, text: str) -> Path:
    """Write ``text`` to ``out`` atomically (:func:`atomic_writer`)."""
    with atomic_writer(out) as f:
        f.write(text)
    return out


@contextmanager
def atomic_writer(out: Path) -> Iterator[TextIO]:
    """A UTF-8 text file that becomes ``out`` when the block ends without an error (a
    reader never sees half a file; each writer, process or thread, writes a temporary
    file of its own, removed if the block fails)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with tmp.open("w", encoding="utf-8") as f:
            yield f
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)


def write_assets(directory: Path) -> Path:
    """The shared JavaScript and CSS of a site, once, into ``directory``."""
    write_text(directory / VEGA_FILE, javascript_bundle())
    for name in ASSETS:
        write_text(directory / name, asset(name))
    return directory


INDEX_STYLE = "ul.index{list-style:none;padding:0}ul.index h2{margin-top:1.6rem}"


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
        *head("perfwarehouse reports", None, INDEX_STYLE),
        "<header><h1>perfwarehouse reports</h1></header><main>",
        _verdict(index_verdict([p for _, p in entries])),
        '<ul class="index">', *items, "</ul></main></body></html>"])
    return write_text(out, text)
