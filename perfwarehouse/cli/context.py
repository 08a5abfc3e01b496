"""What every command of the command line shares: the click settings, the global options'
values (:class:`~perfwarehouse.config.Settings`), the warehouse and progress reporter built
from them, and the lazy group whose commands come from a catalog.

Only click and the light configuration modules are imported here; a command imports what
it needs when it runs, so ``perfwarehouse --help`` starts fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from perfwarehouse.config import Settings

if TYPE_CHECKING:
    from datetime import datetime

    from perfwarehouse.options import Option
    from perfwarehouse.progress import Reporter
    from perfwarehouse.warehouse.store import Warehouse

CONTEXT: dict[str, Any] = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
"""click's context settings of every command (``-h`` as ``--help``, 100 columns)."""

VERDICT_EXIT = 3
"""Exit code when a verdict that ``--fail-on`` asked about is found (1 and 2 are errors)."""


def settings(ctx: click.Context) -> Settings:
    """The global options (``--warehouse``, ``-q``, ``--lock-timeout``, ``--scheduler``)."""
    found = ctx.find_object(Settings)
    if found is None:  # a command invoked without the root group (tests, mkdocs-click)
        from perfwarehouse.config import resolve_warehouse_path

        found = Settings(resolve_warehouse_path(None))
    return found


def reporter(ctx: click.Context) -> Reporter:
    """The progress reporter: bars and notes on a terminal, nothing with ``-q``."""
    from perfwarehouse.progress import default_reporter

    return default_reporter(settings(ctx).quiet)


def warehouse(ctx: click.Context) -> Warehouse:
    """The warehouse the global options name (opened lazily by its commands)."""
    from perfwarehouse.warehouse.store import Warehouse

    current = settings(ctx)

    def on_wait(text: str) -> None:  # the progress display is built only when it speaks
        reporter(ctx).note(text)

    return Warehouse(current.warehouse, lock_timeout_s=current.lock_timeout_s,
                     on_wait=on_wait)


def echo(message: str = "", *, err: bool = False) -> None:
    """One line to standard output (or standard error)."""
    click.echo(message, err=err)


def click_option(spec: Option) -> click.Option:
    """The click option of an option a verb declares as data (:mod:`perfwarehouse.options`)."""
    from pathlib import Path

    from perfwarehouse.options import DATE_FORMATS

    kinds: dict[str, Any] = {
        "text": None, "int": int,
        "file": click.Path(path_type=Path, dir_okay=False),
        "dir": click.Path(path_type=Path, file_okay=False),
        "utc": click.DateTime(list(DATE_FORMATS)),
    }
    return click.Option(list(spec.decls), type=kinds[spec.kind], default=spec.default,
                        multiple=spec.multiple, required=spec.required, metavar=spec.metavar,
                        help=spec.help, callback=_utc if spec.kind == "utc" else None)


def _utc(_ctx: click.Context, _param: click.Parameter, value: datetime | None) -> datetime | None:
    """A time given without a zone is in UTC."""
    from datetime import timezone

    if value is None:
        return None
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value


class Formats(click.Choice):
    """The choices of a ``--format`` option, each also accepted under its other spelling
    (:data:`perfwarehouse.output.FORMAT_ALIASES`: ``md`` is ``markdown``); the command
    receives the one spelling its choices show."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from perfwarehouse.output import FORMAT_ALIASES

        if isinstance(value, str):
            alias = FORMAT_ALIASES.get(value.lower())
            if alias in self.choices:
                value = alias
        return super().convert(value, param, ctx)


class LazyGroup(click.Group):
    """A group whose commands are built from a lazy catalog (:mod:`perfwarehouse.registry`)
    on first use: listing them (``--help``, shell completion) imports nothing heavy."""

    def __init__(self, *args: Any, catalog: str, build: Any, all_command: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._catalog_module = catalog
        self._build = build
        self._all = all_command  # builds the "all" command (every entry), when given

    def _catalog(self) -> Any:
        from importlib import import_module

        return import_module(self._catalog_module).CATALOG

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [e.name for e in self._catalog()] + (["all"] if self._all else [])

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name == "all" and self._all is not None:
            return self._all()
        entry = next((e for e in self._catalog() if e.name == name), None)
        if entry is None:
            return None
        if ctx.resilient_parsing:  # shell completion: the name and summary are enough
            return click.Command(name, short_help=entry.summary)
        return self._build(entry.load())

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(e.name, e.summary) for e in self._catalog()]
        if self._all is not None:
            rows.append(("all", "Every one of the above, in this order."))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


class VerbGroup(click.Group):
    """A group whose verbs live in other modules of :mod:`perfwarehouse.cli`, imported when
    a command line names one (``verbs``: name -> (module, attribute)); ``attach``: the
    commands (module, attribute) each verb group receives from another module, added when
    the group is built. Listing the verbs (``--help``) builds them all."""

    def __init__(self, *args: Any, verbs: dict[str, tuple[str, str]] | None = None,
                 attach: dict[str, list[tuple[str, str]]] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.verbs = dict(verbs or {})
        self.attach = dict(attach or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self.commands) | set(self.verbs))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        command = self.commands.get(name)
        if command is None and name in self.verbs:
            command = _load(*self.verbs[name])
            self.add_command(command, name)
        if command is not None and isinstance(command, click.Group):
            for module, attribute in self.attach.pop(name, []):
                command.add_command(_load(module, attribute))
        return command


def _load(module: str, attribute: str) -> Any:
    """``attribute`` of the module ``perfwarehouse.cli.<module>``."""
    from importlib import import_module

    return getattr(import_module(f"perfwarehouse.cli.{module}"), attribute)
