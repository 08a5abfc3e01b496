"""The contract every input format follows: bytes in, native trial-log records out.

A format is a module of :mod:`perfwarehouse.ingest.formats` with

* ``NAME`` (the ``perfwarehouse ingest NAME`` verb) and ``DESCRIPTION`` (its one-line
  help);
* ``sniff(head: bytes, filename: str) -> bool``: whether the first bytes of a file (up
  to :data:`SNIFF_BYTES`, already decompressed) look like this format; used by
  ``ingest auto``, so it must be cheap and must not claim another format's files;
* ``parse(data: bytes, source: str, options: ImportOptions) -> list[dict]``: pure (no
  files, no DuckDB, no clock), returns native trial-log records (the dicts a line of
  the JSON Lines trial log holds, see ``ingest/trial-log.schema.json``) and raises
  :class:`~perfwarehouse.errors.TrialParseError` naming ``source``, the line (or 0) and
  the rule (``invalid-json``, ``missing-key``, ``wrong-type``, ``truncated``,
  ``empty``, ``no-node`` ...), with a JSON path or the offending text in the detail.

A record's keys are those of the native log: ``campaign, run_id, node,
hardware_type, run_index, order_kind, position, run_size, benchmark, settings
(dict), metric, unit, higher_is_better, values (list of float), started_at (RFC 3339
string), duration_s, status, env (dict)`` and the optional ``revision``,
``revision_time`` (RFC 3339) and ``attributes`` (dict of whatever else the source
says that has no column). :func:`apply_options` fills what a format leaves to the
user (campaign, node, hardware type, revision, extra settings) the same way for
every format, so parsers leave those keys ``None`` when the file does not say them.

Load-test trials (one run of a load generator at one load level) use the same
record, with ``settings["loop"]`` = ``"open"`` (``rate_rps``) or ``"closed"``
(``clients``, ``think_time_s``), one metric per record (``throughput`` in req/s,
higher is better; ``p99`` etc. in ms) and, where the tool reports the latency
distribution, the key ``latency`` = ``{"unit": "ms", "percentiles": [[q, value],
...]}`` (q in [0, 100], from an HdrHistogram spectrum) or ``{"unit": "ms",
"samples": [...]}`` (per-request samples) on the trial's ``throughput`` record.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from perfwarehouse.errors import TrialParseError

#: How much of a file ``sniff`` sees.
SNIFF_BYTES = 64 * 1024


@dataclass(frozen=True)
class ImportOptions:
    """What the user says on the command line about every trial of one ingest.

    ``None`` means "not given": the file's own value is used, else the format's default.
    """

    campaign: str | None = None
    #: ``--node``: the machine of the records whose file names none (a file's own wins)
    node: str | None = None
    #: ``--hardware-type``: the type of the machine ``--node``/``--force-node`` give, and of
    #: a file's machine whose type the file does not say
    hardware_type: str | None = None
    revision: str | None = None
    revision_time: str | None = None  # RFC 3339
    settings: tuple[tuple[str, str], ...] = field(default=())  # --setting KEY=VALUE, in order
    #: start time of the runs the file gives none (RFC 3339, or "mtime": the file's
    #: modification time, only when the user asks for it)
    started_at: str | None = None
    #: ``--path-pattern``: keys from each file's path (see ``ingest/pathkeys.py``)
    path_pattern: str | None = None
    #: ``--columns``: the column names of a header-less table-like file (JMeter's JTL)
    columns: str | None = None
    #: ``--setting-from-attribute KEY``: attributes moved to the settings (an attribute
    #: that alternates within a series, as benchseries' ``toolchain``, keeps its groups
    #: apart as configurations)
    settings_from_attributes: tuple[str, ...] = field(default=())
    #: ``--force-node``: the machine of every record, over the one its file names
    force_node: str | None = None


def resolve_machine(records: list[dict[str, Any]], options: ImportOptions) -> set[str]:
    """Give each record (in place) the machine it lands on: ``--force-node`` if given (its
    type ``--hardware-type``, else none yet: the type the file gave its own machine is
    dropped); else the node its file names, ``--node`` filling in only where it names none.
    ``--hardware-type`` is the type of a machine of the command line, and of a file's
    machine whose type the file does not say. With no machine option this changes nothing.
    Returns the nodes the records name that ``--node`` did not replace (to say so)."""
    kept: set[str] = set()
    for record in records:
        if options.force_node is not None:
            record["node"], record["hardware_type"] = options.force_node, options.hardware_type
        elif not record.get("node"):
            if options.node is not None:
                record["node"], record["hardware_type"] = options.node, options.hardware_type
        else:
            kept.add(record["node"])
            if not record.get("hardware_type") and options.hardware_type is not None:
                record["hardware_type"] = options.hardware_type
    return kept


def apply_options(records: list[dict[str, Any]], options: ImportOptions, source: str,
                  default_campaign: str) -> list[dict[str, Any]]:
    """Fill what the command line says into ``records`` (in place) and return them.

    The command line wins over the file for campaign and revision; the machine is the
    one the file names, ``--node`` filling in only where it names none and
    ``--force-node`` replacing it (:func:`resolve_machine`); ``--setting`` adds to (and
    overrides) each record's settings, and ``--setting-from-attribute KEY`` moves the attribute KEY into them. A record
    still without a node is refused with one line that says to pass ``--node``, and a
    ``--setting`` that gives a load (``clients``, ``rate_rps``, ...) a negative value with
    ``negative``, as the load tools' own numbers are.
    """
    from perfwarehouse.ingest.formats._loadtest import LOAD_SETTINGS, non_negative

    extra = dict(options.settings)
    for key in LOAD_SETTINGS:
        value = extra.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            non_negative(value, source, 0, f"--setting {key}")
    for record in records:
        record["v"] = 1
        for key in ("campaign", "revision", "revision_time"):
            given = getattr(options, key)
            if given is not None:
                record[key] = given
        record["campaign"] = record.get("campaign") or default_campaign
        resolve_machine([record], options)
        if not record.get("node"):
            raise TrialParseError(
                source, 0, "no-node",
                "the file does not name the machine it ran on: pass --node NAME "
                "(and --hardware-type TYPE)")
        record["hardware_type"] = record.get("hardware_type") or record["node"]
        promoted = {key: record["attributes"].pop(key)
                    for key in options.settings_from_attributes
                    if isinstance(record.get("attributes"), dict)
                    and key in record["attributes"]}
        if promoted or extra:
            record["settings"] = {**(record.get("settings") or {}), **promoted, **extra}
    return records
