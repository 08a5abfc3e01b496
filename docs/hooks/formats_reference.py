"""MkDocs hook: one reference page per importer, generated from its format module.

The mapping of each tool's output to trials is written once, in the docstring of its
module (``perfwarehouse/ingest/formats/NAME.py``); this hook renders those docstrings as
``formats/NAME.md`` at build time (not kept in the repository), plus ``formats/index.md``
(every format with its one-line ``DESCRIPTION``, and the load-test vocabulary the load
generators share, from ``_loadtest.py``). The nav entry ``formats/index.md`` of
``mkdocs.yml`` is expanded into the section of these pages, so a new format appears by
being listed in ``perfwarehouse.ingest.formats.IMPORTERS``.

Docstrings are read from the source with :mod:`ast` (no import of the parsers) and
turned from reStructuredText conventions into Markdown: ``code`` literals, roles
(``:func:`x```), literal blocks after ``::`` and simple tables (``====`` borders).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
from pathlib import Path
from typing import Any

# the sibling hook (MkDocs loads a hook with its folder on sys.path)
from cli_reference import escape_html, expand_nav

INDEX = "formats/index.md"
SHARED = "perfwarehouse.ingest.formats._loadtest"


def _source(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise RuntimeError(f"cannot find the source of {module}")
    return Path(spec.origin)


def module_info(module: str) -> tuple[str, str]:
    """(docstring, DESCRIPTION) of a format module, read from its source. The docstring's
    first paragraph is the page's summary, the rest its body."""
    tree = ast.parse(_source(module).read_text(encoding="utf-8"))
    description = ""
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "DESCRIPTION" for t in stmt.targets):
            if isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
                description = stmt.value.value
    return ast.get_docstring(tree) or "", description


_ROLE = re.compile(r":(?:[a-z]+:)?[a-z]+:`~?([^`<]*?)(?:\s*<[^>]*>)?`")


def _inline(text: str) -> str:
    text = _ROLE.sub(lambda m: "`" + m.group(1).split(".")[-1] + "`"
                     if m.group(0).find("~") >= 0 else "`" + m.group(1) + "`", text)
    return escape_html(re.sub(r"``(.+?)``", r"`\1`", text, flags=re.S))


def _table(lines: list[str]) -> list[str]:
    """An RST simple table (``====`` borders) as a Markdown table; a row whose first
    column is empty continues the row above."""
    border = lines[0]
    cols = [(m.start(), m.end()) for m in re.finditer(r"=+", border)]
    bounds = [(start, cols[i + 1][0] if i + 1 < len(cols) else None)
              for i, (start, _) in enumerate(cols)]
    rows: list[list[str]] = []
    for line in lines[1:]:
        if set(line.strip()) <= {"=", " "}:
            continue
        cells = [line[a:b].strip() if b else line[a:].strip() for a, b in bounds]
        if rows and not cells[0]:
            rows[-1] = [(old + " " + new).strip() for old, new in zip(rows[-1], cells)]
        else:
            rows.append(cells)
    if not rows:
        return []

    def fmt(cells: list[str]) -> str:
        return "| " + " | ".join(_inline(c).replace("|", "\\|") for c in cells) + " |"

    return [fmt(rows[0]), "|" + "---|" * len(cols), *(fmt(r) for r in rows[1:])]


def to_markdown(doc: str) -> str:
    """A docstring's body (after its summary line) as Markdown. Literal blocks and tables
    are kept verbatim; the prose between them is converted as one text, so that a
    ``literal`` broken across lines is still one literal."""
    lines = doc.splitlines()
    chunks: list[tuple[bool, list[str]]] = []  # (is prose, lines)

    def emit(prose: bool, new: list[str]) -> None:
        if chunks and chunks[-1][0] == prose:
            chunks[-1][1].extend(new)
        else:
            chunks.append((prose, list(new)))

    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped and set(stripped) <= {"=", " "} and "=" in stripped:
            j, borders = i + 1, 1
            while j < len(lines) and lines[j].strip() and borders < 3:
                if set(lines[j].strip()) <= {"=", " "}:
                    borders += 1
                j += 1
            emit(False, ["", *_table(lines[i:j]), ""])
            i = j
            continue
        if stripped.endswith("::"):
            head = line.rstrip()[:-2].rstrip()
            if head:
                emit(True, [head + ":"])
            i += 1
            block: list[str] = []
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith(" ")):
                block.append(lines[i])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            indent = min((len(b) - len(b.lstrip()) for b in block if b.strip()), default=0)
            emit(False, ["", "```text", *(b[indent:] for b in block), "```", ""])
            continue
        prev = chunks[-1][1][-1] if chunks and chunks[-1][0] and chunks[-1][1] else ""
        if re.match(r"[*-] ", stripped) and prev.strip() and not re.match(r"\s*[*-] ", prev) \
                and not prev.startswith("  "):
            emit(True, [""])  # Markdown needs a blank line before a list
        emit(True, [line])
        i += 1
    text = "\n".join(_inline("\n".join(body)) if prose else "\n".join(body)
                     for prose, body in chunks)
    return text.strip() + "\n"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def pages() -> dict[str, str]:
    """Markdown of the per-format pages, by path under ``docs/``."""
    formats = importlib.import_module("perfwarehouse.ingest.formats")
    importers: dict[str, str] = formats.IMPORTERS
    out: dict[str, str] = {}
    rows = []
    for name, module in importers.items():
        doc, description = module_info(module)
        summary, _, body = doc.partition("\n\n")  # the first paragraph
        rows.append(f"| [`{name}`]({name}.md) | {_inline(description)} |")
        out[f"formats/{name}.md"] = (
            f"# `ingest {name}`\n\n{_inline(_one_line(summary))}\n\n"
            f"Command: [`perfwarehouse ingest {name}`](../cli/ingest.md"
            f"#perfwarehouse-ingest-{name}); how files become trials, generated from the "
            f"docstring of `{module}`:\n\n{to_markdown(body)}")
    shared_doc, _ = module_info(SHARED)
    shared_summary, _, shared_body = shared_doc.partition("\n\n")
    out[INDEX] = (
        "# Formats of other tools\n\n"
        "`perfwarehouse ingest FORMAT PATH...` reads the result files of these tools "
        "(`ingest auto` tells the format from each file's content). Each page below says "
        "how a file becomes trials; it is generated from the parser's own docstring, so "
        "it cannot drift from the code. How to bring such files in, with the options "
        "every importer shares: [Bring your own results](../bring-your-own-results.md).\n\n"
        "| format | reads |\n|---|---|\n" + "\n".join(rows) + "\n\n"
        "## What the load generators share\n\n"
        f"{_inline(_one_line(shared_summary))}\n\n{to_markdown(shared_body)}")
    return out


_cache: dict[str, str] = {}


def on_config(config: Any) -> Any:
    _cache.clear()
    _cache.update(pages())
    entries = [{f"ingest {p[8:-3]}": p} for p in _cache if p != INDEX]
    if config.nav is not None:
        config.nav = expand_nav(config.nav, INDEX, [INDEX, *entries])
    return config


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    for path, content in _cache.items():
        files.append(File.generated(config, path, content=content))
    return files
