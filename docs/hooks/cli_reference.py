"""MkDocs hook: the command-line reference, generated from the click commands.

Every verb of ``perfwarehouse`` gets a page ``cli/VERB.md`` (written at build time, not
kept in the repository), and every sub-verb a section of its verb's page with the anchor
``#perfwarehouse-VERB-SUB`` (the command path, words joined by ``-``). ``cli/index.md`` is
the root: the global options and one line per verb. The nav entry ``cli/index.md`` of
``mkdocs.yml`` is expanded into the section of all these pages, so a new verb needs no
edit here or in ``mkdocs.yml``.

The tree is walked the way click itself resolves a command line: ``list_commands`` and
``get_command`` with a :class:`click.Context` per level, so lazy groups (commands built
from a catalog on first use) and groups that mix eager and lazy commands are listed in
full. Help texts that a command sets only when its help is shown are read by formatting
that help first.
"""

from __future__ import annotations

import importlib
import inspect
import re
from dataclasses import dataclass, field
from typing import Any

import click

ROOT_MODULE = "perfwarehouse.cli"
PROG = "perfwarehouse"
INDEX = "cli/index.md"


@dataclass
class Node:
    """One command of the tree: its path (``["perfwarehouse", "analyze", "kpi"]``)."""

    path: list[str]
    command: click.Command
    ctx: click.Context
    children: list["Node"] = field(default_factory=list)

    @property
    def anchor(self) -> str:
        return "-".join(self.path)

    @property
    def title(self) -> str:
        return " ".join(self.path)


def load_root() -> click.Command:
    """The click command behind the ``perfwarehouse`` entry point (``perfwarehouse.cli:main``:
    ``main`` itself when it is a click command, else ``cli``, else the module's one click
    group that no other group holds)."""
    module = importlib.import_module(ROOT_MODULE)
    for name in ("main", "cli"):
        obj = getattr(module, name, None)
        if isinstance(obj, click.Command):
            return obj
    groups = [obj for obj in vars(module).values() if isinstance(obj, click.Group)]
    held = {id(c) for g in groups for c in g.commands.values()}
    roots = [g for g in groups if id(g) not in held]  # the group no other group holds
    if len(roots) != 1:
        raise RuntimeError(f"cannot tell the root click group of {ROOT_MODULE}: {roots}")
    return roots[0]


def walk(command: click.Command | None = None) -> Node:
    """The whole command tree under ``command`` (default: the root), in click's order."""
    command = command or load_root()
    root = Node([PROG], command, click.Context(command, info_name=PROG))
    stack = [root]
    while stack:
        node = stack.pop()
        if not isinstance(node.command, click.Group):
            continue
        for name in node.command.list_commands(node.ctx):
            sub = node.command.get_command(node.ctx, name)
            if sub is None or getattr(sub, "hidden", False):
                continue
            child = Node(node.path + [name], sub, click.Context(sub, info_name=name,
                                                                   parent=node.ctx))
            node.children.append(child)
            stack.append(child)
    return root


def command_paths(root: Node | None = None) -> list[str]:
    """Every command path, ``"perfwarehouse analyze kpi"``, root first."""
    root = root or walk()
    out, stack = [], [root]
    while stack:
        node = stack.pop(0)
        out.append(node.title)
        stack[:0] = node.children
    return out


# ------------------------------------------------------------------ rendering
def _help_text(node: Node) -> str:
    """The command's help as Markdown: paragraphs kept, ``\\b`` blocks verbatim."""
    cmd = node.command
    cmd.format_help_text(node.ctx, click.HelpFormatter())  # lazy help texts set themselves
    text = inspect.cleandoc(cmd.help or cmd.short_help or "")
    text = text.split("\f", 1)[0]  # click: text after a form feed is not help
    out = []
    for para in text.split("\n\n"):
        if para.startswith("\b\n"):
            out.append("```text\n" + para[2:] + "\n```")
        elif all(line[:1].isspace() for line in para.splitlines()):  # an indented example
            out.append("```text\n" + inspect.cleandoc(para) + "\n```")
        else:
            out.append(escape_html(para))
    return "\n\n".join(out)


def escape_html(text: str) -> str:
    """``<`` and ``&`` outside code spans as entities: help texts say ``<name>_history``
    and ``A & B``, which Markdown would pass on as HTML."""
    parts = re.split(r"(`[^`]*`)", text)
    return "".join(p if p.startswith("`") else p.replace("&", "&amp;").replace("<", "&lt;")
                   for p in parts)


def _cell(text: str) -> str:
    return escape_html(" ".join(text.split())).replace("|", "\\|")


def _params_table(node: Node) -> str:
    rows_args, rows_opts = [], []
    for param in node.command.get_params(node.ctx):
        if isinstance(param, click.Argument):
            meta = param.make_metavar(node.ctx) if _takes_ctx(param.make_metavar) \
                else param.make_metavar()  # type: ignore[call-arg]
            rows_args.append(f"| `{_cell(meta)}` | {'required' if param.required else 'optional'}"
                             f"{', repeatable' if param.nargs == -1 else ''} |")
            continue
        if param.name == "help" or "--help" in getattr(param, "opts", ()):
            continue  # every command has it
        record = param.get_help_record(node.ctx)
        if record is None:
            continue
        opts, help_text = record
        rows_opts.append(f"| `{_cell(opts)}` | {_cell(help_text)} |")
    parts = []
    if rows_args:
        parts.append("| argument | |\n|---|---|\n" + "\n".join(rows_args))
    if rows_opts:
        parts.append("| option | meaning |\n|---|---|\n" + "\n".join(rows_opts))
    return "\n\n".join(parts)


def _takes_ctx(method: Any) -> bool:
    try:
        return "ctx" in inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False


def _usage(node: Node) -> str:
    pieces = node.command.collect_usage_pieces(node.ctx)
    return "```text\n" + " ".join([node.title, *pieces]) + "\n```"


def _section(node: Node, level: int, page_of: dict[str, str], here: str) -> str:
    label = node.path[-1] if level > 1 else node.title  # the table of contents: short names
    heading = "#" * level + f' `{node.title}` {{#{node.anchor} data-toc-label="{label}"}}'
    parts = [heading, _help_text(node), "**Usage**", _usage(node)]
    table = _params_table(node)
    if table:
        parts.append(table)
    if node.children:
        rows = []
        for child in node.children:
            short = _help_text(child).split("\n\n", 1)[0]  # its first paragraph
            rows.append(f"| [`{child.path[-1]}`]({_link(child, page_of, here)}) | {_cell(short)} |")
        parts.append("| command | what it does |\n|---|---|\n" + "\n".join(rows))
    return "\n\n".join(p for p in parts if p)


def _link(node: Node, page_of: dict[str, str], here: str) -> str:
    page = page_of[node.title]
    target = page.rsplit("/", 1)[-1] if page != here else ""
    return f"{target}#{node.anchor}"


def pages(root: Node | None = None) -> dict[str, str]:
    """Markdown of every reference page, by path under ``docs/``."""
    root = root or walk()
    page_of: dict[str, str] = {root.title: INDEX}
    for verb in root.children:
        stack = [verb]
        while stack:
            node = stack.pop()
            page_of[node.title] = f"cli/{verb.path[-1]}.md"
            stack.extend(node.children)
    out = {INDEX: "# Command-line reference\n\nGenerated from the click commands of "
                  "`perfwarehouse` at build time: every verb has its page, every sub-verb "
                  "its section. `--help` on any command prints the same text.\n\n"
                  + _section(root, 2, page_of, INDEX)}
    for verb in root.children:
        path = page_of[verb.title]
        sections, stack = [], [(verb, 1)]
        while stack:
            node, level = stack.pop(0)
            sections.append(_section(node, min(level, 6), page_of, path))
            stack[:0] = [(child, level + 1) for child in node.children]
        out[path] = "\n\n".join(sections) + "\n"
    return out


# ------------------------------------------------------------------ mkdocs events
_cache: dict[str, str] = {}


def expand_nav(nav: Any, placeholder: str, section: Any) -> Any:
    """``nav`` with the entry whose page is ``placeholder`` replaced by ``section``."""
    if isinstance(nav, list):
        return [expand_nav(item, placeholder, section) for item in nav]
    if isinstance(nav, dict):
        return {k: (section if v == placeholder else expand_nav(v, placeholder, section))
                for k, v in nav.items()}
    return nav


def on_config(config: Any) -> Any:
    _cache.clear()
    _cache.update(pages())
    verbs = [{f"{PROG} {p[4:-3]}": p} for p in _cache if p != INDEX]
    if config.nav is not None:
        config.nav = expand_nav(config.nav, INDEX, [INDEX, *verbs])
    return config


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    for path, content in _cache.items():
        files.append(File.generated(config, path, content=content))
    return files
