"""``perfwarehouse ingest``: the native trial logs (``jsonl``), OrderSage results directories,
tables through a mapping, ``ingest FORMAT PATH...`` for every other tool's format, and
``ingest auto``. (``ingest pull`` lives with the agent's verbs, :mod:`perfwarehouse.cli.agent`.)

Only click is imported at start; a format's module is imported when its command runs (or
its help is shown).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from perfwarehouse.cli.context import CONTEXT, echo, reporter, warehouse
from perfwarehouse.cli.context import settings as global_settings

_Command = Callable[..., Any]


@click.group(context_settings=CONTEXT)
def ingest() -> None:
    """Put trials into the warehouse (atomic, idempotent, validated).

    Each command is one batch: all its inputs land together or not at all. A
    record that breaks a rule stops the batch with one line naming the file,
    the line and the rule (exit code 1), unless --quarantine sets bad records
    aside in the quarantine table. Ingesting the same content again adds nothing.
    """


_quarantine = click.option(
    "--quarantine", is_flag=True,
    help="Land the good records and keep bad ones, with their reason, in the quarantine table.")


@ingest.command("ordersage", context_settings=CONTEXT)
@click.argument("directories", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--campaign", help="Campaign name.  [default: each directory's name]")
@click.option("--hardware-type", help="Hardware type of every node (else from the node id).")
@click.option("--hardware-map", type=click.Path(path_type=Path),
              help="Node-id prefix map.  [default: ./ingest/hardware_types.toml, else built in]")
@_quarantine
@click.pass_context
def ingest_ordersage(ctx: click.Context, directories: tuple[Path, ...], campaign: str | None,
                     hardware_type: str | None, hardware_map: Path | None,
                     quarantine: bool) -> None:
    """Ingest OrderSage results directories (2021 and 2022 layouts)."""
    from perfwarehouse.ingest.service import ingest_ordersage as run

    summary = run(warehouse(ctx), list(directories), campaign=campaign,
                  hardware_type=hardware_type, hardware_map=hardware_map, quarantine=quarantine,
                  reporter=reporter(ctx))
    print_summary(summary)


@ingest.command("jsonl", context_settings=CONTEXT)
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@_quarantine
@click.pass_context
def ingest_jsonl(ctx: click.Context, files: tuple[Path, ...], quarantine: bool) -> None:
    """Ingest native trial logs (JSON Lines, one trial per line; see docs/ingest.md)."""
    from perfwarehouse.ingest.service import ingest_jsonl as run

    summary = run(warehouse(ctx), list(files), quarantine=quarantine,
                  reporter=reporter(ctx))
    print_summary(summary)


_TABLE_HELP = """\
Ingest CSV or Parquet tables of trials or measurements through a mapping.

A mapping (TOML, see ingest/mappings/ and docs/bring-your-own-results.md) says which
column holds which trial field. All files are one batch (all land or none); a directory
stands for every .csv, .tsv and .parquet file below it, and a file there that cannot be
read through the mapping is listed on stderr and skipped (--strict: refused). --node
and --hardware-type fill in the machine of rows whose table names none (--force-node
replaces it); a start time is never invented: a table that holds none takes
--started-at, else the path's (--path-pattern), else is stored without one. --setting
adds KEY=VALUE to every row's settings. --dry-run parses and validates and says what
would land, changing nothing."""


@ingest.command("table", context_settings=CONTEXT, help=_TABLE_HELP)
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--mapping", type=click.Path(path_type=Path),
              help="TOML mapping of columns to trial fields (see ingest/mappings/).  "
                   "[default: the columns already have the native names]")
@click.option("--campaign", help="Campaign of every row.  [default: the mapping's]")
@click.option("--node", help="Machine of the rows whose table names none (an empty node "
                             "cell, or no node column).  [default: the mapping's]")
@click.option("--force-node", metavar="NODE",
              help="Machine of every row, over the table's node column.")
@click.option("--hardware-type", help="Hardware type of --node's or --force-node's machine, "
                                      "and where the table gives none.  [default: the "
                                      "mapping's, else the node name]")
@click.option("--revision", help="Revision of the software under test of every row.")
@click.option("--revision-time", metavar="RFC3339",
              help="Time of the revision, e.g. 2024-05-01T10:00:00Z.")
@click.option("--started-at", metavar="RFC3339|mtime",
              help="Start time of the rows whose table holds none (a time, or `mtime`: the "
                   "file's modification time).  [default: from --path-pattern, else none]")
@click.option("--path-pattern", metavar="PATTERN",
              help="Take keys from each file's path, matched against its end, e.g. "
                   "'{node}/{started_at:%Y%m%d}_{revision}.csv' (fields: node, hardware_type, "
                   "revision, revision_time, started_at, campaign). The command line's "
                   "options win.")
@click.option("--strict", is_flag=True,
              help="Refuse the batch when a file below a directory is skipped.")
@click.option("--setting", "settings", multiple=True, metavar="KEY=VALUE",
              callback=lambda ctx, param, value: _parse_setting(ctx, param, value),
              help="Add KEY to every row's settings (repeatable; VALUE is a number or "
                   "true/false when it reads as one, else text).")
@_quarantine
@click.option("--dry-run", is_flag=True,
              help="Parse and validate; print what would land; change nothing.")
@click.pass_context
def ingest_table(ctx: click.Context, paths: tuple[Path, ...], mapping: Path | None,
                 quarantine: bool, dry_run: bool, strict: bool,
                 settings: tuple[tuple[str, object], ...], path_pattern: str | None,
                 **keys: str | None) -> None:
    from perfwarehouse.ingest.formats.records import ImportOptions
    from perfwarehouse.ingest.formats.table_ingest import ingest_tables
    from perfwarehouse.ingest.inputs import Skipped

    check_key_options(keys, path_pattern)
    options = ImportOptions(settings=settings, path_pattern=path_pattern,  # type: ignore[arg-type]
                            **keys)  # type: ignore[arg-type]
    skipped: list[Skipped] = []
    try:
        files, result = ingest_tables(
            warehouse(ctx), list(paths), mapping, options, quarantine=quarantine,
            dry_run=dry_run, reporter=reporter(ctx), skipped=skipped, strict=strict)
    finally:
        for skip in skipped:
            click.echo(f"skipped {skip.path}: {skip.reason}", err=True)
    if any(p.is_dir() for p in paths):
        tail = f"; skipped {len(skipped):,} (listed above on stderr)" if skipped else \
            "; skipped 0"
        echo(f"files: {len(files):,} read{tail}")
    print_outcome(result, "tables")


def print_summary(summary: Any) -> None:
    """The ingest summary: what landed, what was skipped or quarantined."""
    if summary.outcome == "unchanged":
        echo(f"{summary.source}: already ingested as batch {summary.batch_id}; nothing added")
        return
    if summary.outcome == "nothing-new":
        echo(f"{summary.source}: all {summary.trials_skipped:,} trials are already in the "
             "warehouse; nothing added")
        return
    campaigns = ", ".join(summary.campaigns)
    echo(f"ingested {summary.trials_added:,} trials ({summary.values_added:,} values) into "
         f"{campaigns or 'the warehouse'} as batch {summary.batch_id} in {summary.seconds:.1f} s; "
         f"skipped {summary.trials_skipped:,} already present, "
         f"quarantined {summary.quarantined:,}")
    for problem in summary.problems[:5]:
        echo(f"  quarantined {problem}", err=True)
    if len(summary.problems) > 5:
        echo(f"  ... {len(summary.problems) - 5} more in the quarantine table", err=True)




class _FormatCommand(click.Command):
    """An ingest command whose help text comes from its format module, loaded lazily."""

    def __init__(self, fmt: str, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.format_name = fmt

    def _description(self) -> str:
        from perfwarehouse.ingest.formats import load

        return str(load(self.format_name).DESCRIPTION)

    def get_short_help_str(self, limit: int = 45) -> str:
        text = "Ingest " + self._description()
        return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self.help = (f"Ingest {self._description()}\n\n" + _COMMON_HELP).strip()
        super().format_help_text(ctx, formatter)


_COMMON_HELP = """\
All files of one command are one batch (all land or none). `.gz` files are read
transparently. The mapping of each format is in docs/bring-your-own-results.md. Where
the file does not name the machine, pass --node (and --hardware-type), or take it from
the path with --path-pattern; --force-node replaces the machine a file names. A start time is never invented: a run whose file holds
none takes --started-at, else the path's, else is stored without one (the summary says
how many). Load levels a load generator's output does not state (e.g. the
clients of hey) come from --setting (clients=8, rate_rps=500, loop=closed). --dry-run
parses and validates and says what would land, changing nothing."""

_AUTO_HELP = """\
Ingest results of other tools, detecting each file's format from its content.

Prints the format chosen for each file; a file named on the command line that no
format, or more than one, recognises is refused (name the format then: `perfwarehouse
ingest FORMAT PATH`). A directory stands for every file below it: each asv results
tree inside (machine.json beside result files) is one asv input and each Criterion.rs
tree (target/criterion) one criterion input, every other file is
read in the format that recognises it, and each file not ingested is listed on stderr
with its reason, after one summary line (--strict: any such file is an error). All
files are one batch (all land or none). `.gz` files are read transparently. Where a
file does not name the machine, pass --node (and --hardware-type), or take it from the
path with --path-pattern; --force-node replaces the machine a file names. A start time is never invented: a run whose file holds none
takes --started-at, else the path's, else is stored without one (the summary says how
many). --dry-run parses and validates and says what would land, changing nothing."""


def _parse_setting(_ctx: click.Context, _param: click.Parameter,
                   values: tuple[str, ...]) -> tuple[tuple[str, object], ...]:
    """``KEY=VALUE`` pairs; VALUE becomes a JSON number or boolean when it is one."""
    import json

    out = []
    for text in values:
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{text!r} is not KEY=VALUE", param_hint="--setting")
        parsed: object = value
        try:
            candidate = json.loads(value)
        except ValueError:
            candidate = None
        if isinstance(candidate, (bool, int, float)) and candidate == candidate \
                and candidate not in (float("inf"), float("-inf")):
            parsed = candidate
        out.append((key.strip(), parsed))
    return tuple(out)


def _options(function: _Command) -> _Command:
    """The options every import command shares (applied bottom-up)."""
    decorators: list[Callable[[_Command], _Command]] = [
        click.argument("paths", nargs=-1, required=True, type=click.Path()),
        click.option("--campaign", help="Campaign of every trial.  [default: the format's name]"),
        click.option("--node", help="Machine of the results whose file does not name one "
                                    "(required then); a machine a file names stays.  "
                                    "[default: from the file]"),
        click.option("--force-node", metavar="NODE",
                     help="Machine of every result, over the one its file names."),
        click.option("--hardware-type", help="Hardware type of --node's or --force-node's "
                                             "machine, and of a file's machine whose type the "
                                             "file does not say.  [default: from the file, "
                                             "else the node name]"),
        click.option("--revision", help="Revision of the software under test (commit, tag or "
                                        "version).  [default: from the file, if it says]"),
        click.option("--revision-time", metavar="RFC3339",
                     help="Time of the revision, e.g. the commit time (2024-05-01T10:00:00Z)."),
        click.option("--started-at", metavar="RFC3339|mtime",
                     help="Start time of the runs whose file holds none (a time, or `mtime`: "
                          "the file's modification time).  [default: from --path-pattern, "
                          "else none]"),
        click.option("--path-pattern", metavar="PATTERN",
                     help="Take keys from each file's path, matched against its end, e.g. "
                          "'{node}/{started_at:%Y%m%d%H%M%S}_{revision}.json'. Fields: node, "
                          "hardware_type, revision, revision_time, started_at, campaign "
                          "(times take a strptime format, %s or %ms); {*} matches any text. "
                          "The command line's options win."),
        click.option("--columns", metavar="NAMES",
                     help="JMeter JTL without a header: its columns, in order, by JMeter's "
                          "field names separated by commas, e.g. 'timeStamp, elapsed, label, "
                          "responseCode, success'.  [default: from the header, else inferred "
                          "from the values]"),
        click.option("--strict", is_flag=True,
                     help="Refuse the batch when a file below a directory is skipped."),
        click.option("--setting", "settings", multiple=True, metavar="KEY=VALUE",
                     callback=_parse_setting,
                     help="Add KEY to every trial's settings (repeatable; VALUE is a number or "
                          "true/false when it reads as one, else text)."),
        click.option("--setting-from-attribute", "settings_from_attributes", multiple=True,
                     metavar="KEY",
                     help="Move the attribute KEY of each trial (a `KEY: value` line of Go's "
                          "format, ...) into its settings, so that trials that differ in it "
                          "are separate series (repeatable; e.g. toolchain: tip and "
                          "baseline of a benchseries night; then `analyze change-points "
                          "--baseline toolchain=VALUE`)."),
        click.option("--quarantine", is_flag=True,
                     help="Land the good records and keep bad ones in the quarantine table."),
        click.option("--dry-run", is_flag=True,
                     help="Parse and validate; print what would land; change nothing."),
        click.pass_context,
    ]
    for decorator in reversed(decorators):
        function = decorator(function)
    return function


def _run(ctx: click.Context, fmt: str, paths: tuple[str, ...], campaign: str | None,
         node: str | None, hardware_type: str | None, revision: str | None,
         revision_time: str | None, started_at: str | None, path_pattern: str | None,
         columns: str | None, strict: bool, settings: tuple[tuple[str, object], ...],
         quarantine: bool, dry_run: bool,
         settings_from_attributes: tuple[str, ...] = (), force_node: str | None = None) -> None:
    from pathlib import Path

    from perfwarehouse.errors import UsageError
    from perfwarehouse.ingest.formats.records import ImportOptions
    from perfwarehouse.ingest.service import Skipped, ingest_import
    from perfwarehouse.progress import default_reporter

    check_key_options({"campaign": campaign, "node": node, "force_node": force_node,
                       "hardware_type": hardware_type, "revision": revision,
                       "revision_time": revision_time, "started_at": started_at}, path_pattern)
    if columns is not None:  # refused before any file is read, as a bad pattern is
        from perfwarehouse.ingest.formats.jmeter_columns import named_layout

        if fmt not in ("jmeter", "auto"):
            raise UsageError(f"--columns names the columns of a JMeter JTL: use it with "
                             f"`ingest jmeter` or `ingest auto`, not `ingest {fmt}`")
        try:
            named_layout(columns)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    options = ImportOptions(campaign=campaign, node=node, hardware_type=hardware_type,
                            revision=revision, revision_time=revision_time,
                            settings=settings, started_at=started_at,  # type: ignore[arg-type]
                            path_pattern=path_pattern, columns=columns,
                            settings_from_attributes=tuple(settings_from_attributes),
                            force_node=force_node)
    quiet = global_settings(ctx).quiet
    skipped: list[Skipped] = []
    notes: list[str] = []
    try:
        inputs, result = ingest_import(
            warehouse(ctx), fmt, [Path(p) for p in paths], options, quarantine=quarantine,
            dry_run=dry_run, reporter=default_reporter(quiet), skipped=skipped, strict=strict,
            notes=notes)
    finally:
        for skip in skipped:
            click.echo(f"skipped {skip.path}: {skip.reason}", err=True)
    for note in notes:  # only when the batch went in: a refusal stays one line
        click.echo(f"note: {note}", err=True)
    if fmt == "auto":
        for item in inputs:
            click.echo(f"{item.path}: {item.format}")
    if any(Path(p).is_dir() for p in paths):
        click.echo(_files_line(inputs, skipped))
    for note in result.notes:
        click.echo(f"unit: {note}")
    print_outcome(result, "files")


def _files_line(inputs: list, skipped: list) -> str:
    """One line: the files ingested per format, and the files skipped (listed on stderr)."""
    from collections import Counter

    counts = Counter(item.format for item in inputs)
    per = ", ".join(f"{n:,} {fmt}" for fmt, n in sorted(counts.items()))
    tail = f"; skipped {len(skipped):,} (listed above on stderr)" if skipped else "; skipped 0"
    return f"files: {sum(counts.values()):,} read ({per}){tail}"


def _format_command(fmt: str) -> click.Command:
    @click.command(fmt, cls=_FormatCommand, fmt=fmt, context_settings=CONTEXT)
    @_options
    def command(ctx: click.Context, **kwargs: object) -> None:
        _run(ctx, fmt, **kwargs)  # type: ignore[arg-type]

    return command


def add_import_commands(ingest_group: click.Group) -> None:
    """Add ``ingest FORMAT`` for every registered format, and ``ingest auto``."""
    from perfwarehouse.ingest.formats import IMPORTERS

    for fmt in sorted(IMPORTERS):
        ingest_group.add_command(_format_command(fmt))

    @ingest_group.command("auto", context_settings=CONTEXT, help=_AUTO_HELP)
    @_options
    def ingest_auto(ctx: click.Context, **kwargs: object) -> None:
        _run(ctx, "auto", **kwargs)  # type: ignore[arg-type]


add_import_commands(ingest)  # ingest pyperf, gbench, ..., auto (other tools' results)


def check_key_options(keys: dict[str, str | None], path_pattern: str | None) -> None:
    """One line for a bad key option of an import command, before any file is read: an
    empty value, ``--node`` with ``--force-node``, a time that is not RFC 3339, a path
    pattern that does not compile."""
    from perfwarehouse.errors import UsageError
    from perfwarehouse.ingest.pathkeys import compile_pattern
    from perfwarehouse.policies.timestamps import timestamp_or_none

    for name, value in keys.items():
        if value is not None and not value.strip():
            raise UsageError(f"--{name.replace('_', '-')} must not be empty")
    if keys.get("node") is not None and keys.get("force_node") is not None:
        raise UsageError("--node fills in the machine where a file names none, --force-node "
                         "replaces it everywhere: give one of them")
    revision_time, started = keys.get("revision_time"), keys.get("started_at")
    if revision_time is not None and timestamp_or_none(revision_time) is None:
        raise UsageError(f"--revision-time {revision_time!r} is not an RFC 3339 time "
                         "(e.g. 2024-05-01T10:00:00Z)")
    if started is not None and started != "mtime" and timestamp_or_none(started) is None:
        raise UsageError(f"--started-at {started!r} is neither an RFC 3339 time "
                         "(e.g. 2024-05-01T10:00:00Z) nor `mtime`")
    if path_pattern is not None:
        compile_pattern(path_pattern)


def print_outcome(result: object, inputs: str) -> None:
    """What an import landed (its summary) or, for ``--dry-run``, would land; first the
    trial records stored without a start time because their ``inputs`` (files, tables)
    hold none."""
    from perfwarehouse.ingest.stage import Preview
    from perfwarehouse.output import count

    untimed = getattr(result, "untimed", 0)
    if untimed:
        click.echo(f"{untimed:,} trial records have no start time (their {inputs} hold "
                   "none): stored without one; pass --started-at or --path-pattern "
                   "'...{started_at:FORMAT}...' to give it")
    if not isinstance(result, Preview):
        print_summary(result)
        return
    present = (f"; {result.already_present:,} already in the warehouse"
               if result.already_present else "")
    click.echo(f"dry run: would ingest {result.trials:,} trials ({result.values:,} values) of "
               f"{result.configurations:,} configurations in {result.runs:,} runs on "
               f"{count(result.nodes, 'node')} into {count(len(result.campaigns), 'campaign')} "
               f"({', '.join(result.campaigns)}){present}; nothing was changed")
