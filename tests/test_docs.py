"""The documentation site builds with ``mkdocs build --strict`` and documents every command.

The build runs in this process (the command tree it imports is the one the checks below
walk, so the job modules are imported once): a dead link, a dead anchor, a page missing
from the nav or a broken hook fails it. The command tree is walked here independently of
the hook that writes the reference (``docs/hooks/cli_reference.py``), the way click
resolves a command line, and every command path must have its anchor on its verb's page.
"""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

REPO = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow


def _command_paths() -> list[tuple[str, ...]]:
    """Every command path under ``perfwarehouse``, walked with a click Context per level
    (lazy groups list and build their commands through it)."""
    import perfwarehouse.cli

    root = perfwarehouse.cli.main  # the entry point, when it is the click group itself
    if not isinstance(root, click.Command):  # else the module's group that no group holds
        groups = [g for g in vars(perfwarehouse.cli).values() if isinstance(g, click.Group)]
        held = {id(c) for g in groups for c in g.commands.values()}
        (root,) = [g for g in groups if id(g) not in held]
    out: list[tuple[str, ...]] = []

    def visit(cmd: click.Command, path: tuple[str, ...], ctx: click.Context) -> None:
        out.append(path)
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(ctx):
                sub = cmd.get_command(ctx, name)
                assert sub is not None, f"{' '.join(path)} lists {name} but cannot build it"
                if not sub.hidden:
                    visit(sub, path + (name,), click.Context(sub, info_name=name, parent=ctx))

    visit(root, ("perfwarehouse",), click.Context(root, info_name="perfwarehouse"))
    return out


def _build(site: Path, monkeypatch: pytest.MonkeyPatch, **overrides: object) -> None:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    monkeypatch.setenv("NO_MKDOCS_2_WARNING", "1")  # Material's notice about MkDocs 2
    config = load_config(str(REPO / "mkdocs.yml"), site_dir=str(site), **overrides)
    build(config)


def _ids(page: Path) -> set[str]:
    return set(re.findall(r'\sid="([^"]+)"', page.read_text(encoding="utf-8")))


def test_site_builds_strict_and_documents_every_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One build (about 5 CPU s) serves every check of the built site: pytest-xdist 3.8
    under pytest 9.2 does not keep an xdist_group on one worker here, so separate tests
    sharing a fixture could build it on each worker."""
    site = tmp_path / "site"
    _build(site, monkeypatch)
    _check_every_command_has_its_page_and_anchor(site)
    _check_every_importer_has_its_reference_page(site)
    _check_the_pages_are_in_the_site(site)
    _check_the_site_fetches_nothing_and_searches_offline(site)


def _check_every_command_has_its_page_and_anchor(site: Path) -> None:
    paths = _command_paths()
    assert len(paths) > 40  # the walk reached the lazy groups (analyze, report, ingest formats)
    missing = []
    for path in paths:
        page = site / "cli" / ("index.html" if len(path) == 1 else f"{path[1]}.html")
        anchor = "-".join(path)
        if not page.exists() or anchor not in _ids(page):
            missing.append(f"{' '.join(path)} (#{anchor} in {page.relative_to(site)})")
    assert not missing, "commands without their section in the reference: " + ", ".join(missing)


def _check_every_importer_has_its_reference_page(site: Path) -> None:
    from perfwarehouse.ingest.formats import IMPORTERS, load

    for name in IMPORTERS:
        page = site / "formats" / f"{name}.html"
        assert page.exists(), f"no reference page for ingest {name}"
        text = page.read_text(encoding="utf-8")
        # the page is the module's docstring: its first words are on it
        first = (load(name).__doc__ or "").split()[:3]
        words = [re.sub(r"[`:]", "", w) for w in first]
        assert all(w in text for w in words), (name, words)


def _check_the_pages_are_in_the_site(site: Path) -> None:
    for page in ("index", "getting-started", "concepts", "ingest", "sql", "compare",
                 "change-points", "bring-your-own-results", "reliability", "load-tests",
                 "reports", "scaling", "dask", "compaction", "architecture", "benchmarks",
                 "agents", "workbench", "analyses/order-effects", "analyses/variability",
                 "analyses/triscale"):
        assert (site / f"{page}.html").exists(), page


#: What makes a browser fetch: an element that loads its address (a stylesheet, a script,
#: a font preconnect, an image, a frame) and CSS url()/@import; plain <a href> links are not.
FETCHING = re.compile(r"<(?:link|script|img|iframe|source|video|audio)\b[^>]*?\b(?:href|src)="
                      r"[\"']?(?:https?:)?//", re.I)
CSS_FETCHING = re.compile(r"(?:url\(\s*[\"']?|@import\s+[\"']?)(?:https?:)?//", re.I)


def _check_the_site_fetches_nothing_and_searches_offline(site: Path) -> None:
    """Issue 40: no page asks the network for a font, a script or a stylesheet (Material's
    Google Fonts are off; the offline plugin's Web Worker shim is ours, not unpkg's), and
    the search index is a script, so search works from file:// (the offline plugin)."""
    pages = list(site.rglob("*.html"))
    assert len(pages) > 20
    fetching = [f"{p.relative_to(site)}: {m.group(0)}" for p in pages
                for m in FETCHING.finditer(p.read_text(encoding="utf-8"))]
    fetching += [f"{c.relative_to(site)}: {m.group(0)}" for c in site.rglob("*.css")
                 for m in CSS_FETCHING.finditer(c.read_text(encoding="utf-8"))]
    assert not fetching, fetching[:5]
    index = (site / "search" / "search_index.js").read_text(encoding="utf-8")
    assert index.startswith("var __index = {") and '"location":"compare.html' in index
    home = (site / "index.html").read_text(encoding="utf-8")
    assert '<script src="javascripts/iframe-worker-shim.js"' in home


NAV = [{"Home": "index.md"}, {"Other": "other.md"}]


def test_strict_build_fails_on_a_dead_link(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The site's own settings (strict, link and anchor validation) refuse a dead link and
    a dead anchor: a two-page site built with them."""
    from mkdocs.exceptions import Abort

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\n[there](other.md#no-such-anchor)\n")
    (docs / "other.md").write_text("# Other\n")
    with pytest.raises(Abort):
        _build(tmp_path / "site_anchor", monkeypatch, docs_dir=str(docs), hooks=[], nav=NAV)
    (docs / "index.md").write_text("# Home\n\n[there](missing.md)\n")
    with pytest.raises(Abort):
        _build(tmp_path / "site_link", monkeypatch, docs_dir=str(docs), hooks=[], nav=NAV)
    (docs / "index.md").write_text("# Home\n\n[there](other.md#other)\n")
    _build(tmp_path / "site_ok", monkeypatch, docs_dir=str(docs), hooks=[], nav=NAV)


def test_readme_links_resolve() -> None:
    """The README is the front door: every relative link it holds reaches a page (or a
    generated one: cli/ and formats/ pages come from the hooks)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    assert links
    for link in links:
        if re.match(r"[a-z]+://", link):
            continue
        if link.startswith(("docs/cli/", "docs/formats/")):
            continue  # generated at build time; their anchors are checked above
        assert (REPO / link).exists(), f"README links {link}, which does not exist"
    assert len(text.splitlines()) <= 300
