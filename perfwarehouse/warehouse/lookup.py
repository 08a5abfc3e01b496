"""Names a user types (campaigns, hardware types, configurations) checked against what the
warehouse holds: an unknown name is a one-line error listing the known ones and the
closest match, instead of an empty result that looks like an answer."""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import duckdb

from perfwarehouse.errors import UsageError
from perfwarehouse.warehouse import sqlfiles

_QUERIES = {
    "campaign": "SELECT campaign FROM campaigns ORDER BY 1",
    "hardware type": "SELECT DISTINCT hardware_type FROM nodes ORDER BY 1",
}


def closest(name: str, known: Sequence[str]) -> str | None:
    """The known name most like ``name`` (None when none is close)."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.5)
    return close[0] if close else None


def listing(known: Sequence[str], limit: int = 20) -> str:
    return ", ".join(known[:limit]) + (f" and {len(known) - limit} more"
                                       if len(known) > limit else "")


def unknown_name_message(kind: str, name: str, known: Sequence[str], option: str) -> str:
    """``unknown campaign 'npbench2' (did you mean 'npbench'?); known: a, b, c``."""
    close = closest(name, known)
    hint = f" (did you mean {close!r}?)" if close else ""
    shown = f"; known: {listing(known)}" if known else f"; the warehouse has no {kind} yet"
    return f"{option}: unknown {kind} {name!r}{hint}{shown}"


def require_known(kind: str, name: str | None, known: Sequence[str],
                  option: str | None = None) -> None:
    """Raise :class:`UsageError` when ``name`` is not one of ``known``; None passes."""
    if name is not None and name not in known:
        raise UsageError(unknown_name_message(kind, name, known,
                                              option or "--" + kind.replace(" ", "-")))


def require(con: duckdb.DuckDBPyConnection, kind: str, name: str | None,
            option: str | None = None) -> None:
    """Raise :class:`UsageError` when ``name`` (a campaign or hardware type) is not in
    the warehouse; None passes."""
    if name is None:
        return
    require_known(kind, name, [r[0] for r in con.execute(_QUERIES[kind]).fetchall()], option)


# ----------------------------------------------------------- one configuration
@dataclass(frozen=True)
class ConfigurationQuery:
    """What the user typed to name one configuration of a campaign: the benchmark, and
    when the benchmark has several configurations, the metric and (some of) its settings;
    optionally one hardware type (None: every hardware type it ran on)."""

    campaign: str
    benchmark: str
    metric: str | None = None
    settings: tuple[tuple[str, str], ...] = ()
    hardware_type: str | None = None


@dataclass(frozen=True)
class Configuration:
    """The one configuration a :class:`ConfigurationQuery` names."""

    campaign: str
    config_id: int
    benchmark: str
    settings: str
    metric: str
    unit: str | None
    higher_is_better: bool | None
    hardware_types: tuple[str, ...]
    hardware_type: str | None = None  # the one asked for (None: all of hardware_types)


def parse_settings(values: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """``--settings`` as (key, value) pairs: one JSON object (``{"threads": 4}``) or any
    number of ``KEY=VALUE`` words; values are compared as the pages show them (k=v)."""
    pairs: list[tuple[str, str]] = []
    for value in values:
        text = value.strip()
        if text.startswith("{"):
            try:
                parsed = json.loads(text)
            except ValueError as exc:
                raise UsageError(f"--settings: {text!r} is not a JSON object ({exc})") from None
            if not isinstance(parsed, dict):
                raise UsageError(f"--settings: {text!r} is not a JSON object")
            pairs.extend((str(k), _plain(v)) for k, v in parsed.items())
            continue
        for word in text.split():
            key, sep, rest = word.partition("=")
            if not sep or not key:
                raise UsageError(f"--settings: {word!r} is neither KEY=VALUE nor a JSON object")
            pairs.append((key, rest))
    return tuple(pairs)


def _plain(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _settings_pairs(settings: str) -> dict[str, str]:
    try:
        parsed = json.loads(settings) if settings else {}
    except ValueError:
        return {}
    return {str(k): _plain(v) for k, v in parsed.items()} if isinstance(parsed, dict) else {}


def settings_text(settings: str) -> str:
    """Settings as ``k=v k=v`` (how every page shows them; ``{}`` when there are none)."""
    pairs = _settings_pairs(settings)
    return " ".join(f"{k}={v}" for k, v in pairs.items()) or "{}"


def _describe(row: dict[str, Any], metric: bool = True) -> str:
    text = f"--settings '{settings_text(row['settings'])}'"
    return f"--metric {row['metric']} {text}" if metric else text


def resolve_configuration(con: duckdb.DuckDBPyConnection,
                          query: ConfigurationQuery) -> Configuration:
    """The one configuration of ``query.campaign`` that ``query`` names.

    Unknown or ambiguous names raise :class:`UsageError` (one line): an unknown
    benchmark, metric, hardware type or settings lists the known ones and the closest
    match; several configurations that match list them with the options that tell them
    apart.
    """
    require(con, "campaign", query.campaign)
    rows = con.execute(sqlfiles.load("queries/configuration_candidates"),
                       {"campaign": query.campaign}).fetchall()
    names = ["config_id", "benchmark", "settings", "metric", "unit", "higher_is_better",
             "hardware_types"]
    candidates = [dict(zip(names, r)) for r in rows]
    benchmarks = sorted({c["benchmark"] for c in candidates})
    require_known("benchmark", query.benchmark, benchmarks, "--benchmark")
    candidates = [c for c in candidates if c["benchmark"] == query.benchmark]
    if query.metric is not None:
        metrics = sorted({c["metric"] for c in candidates})
        require_known(f"metric of {query.benchmark}", query.metric, metrics, "--metric")
        candidates = [c for c in candidates if c["metric"] == query.metric]
    if query.settings:
        wanted = dict(query.settings)
        matching = [c for c in candidates
                    if all(_settings_pairs(c["settings"]).get(k) == v for k, v in wanted.items())]
        if not matching:
            typed = " ".join(f"{k}={v}" for k, v in query.settings)
            known = sorted({settings_text(c["settings"]) for c in candidates})
            # the closest: by the keys typed only (the others may be anything)
            by_typed = {" ".join(f"{k}={_settings_pairs(c['settings']).get(k, '')}"
                                 for k in wanted): settings_text(c["settings"])
                        for c in candidates}
            near = closest(typed, sorted(by_typed))
            hint = f" (did you mean {by_typed[near]!r}?)" if near else ""
            raise UsageError(f"--settings: no configuration of {query.benchmark} in campaign "
                             f"{query.campaign} has the settings {typed!r}{hint}; known: "
                             f"{listing(known) or 'none'}")
        candidates = matching
    if len(candidates) > 1:
        several_metrics = len({c["metric"] for c in candidates}) > 1
        shown = "; ".join(_describe(c, several_metrics) for c in candidates[:8])
        more = f"; and {len(candidates) - 8} more" if len(candidates) > 8 else ""
        raise UsageError(f"{len(candidates)} configurations of {query.benchmark} in campaign "
                         f"{query.campaign} match: add --metric and/or --settings to pick "
                         f"one: {shown}{more}")
    found = candidates[0]
    hardware_types = tuple(sorted(found["hardware_types"]))
    require_known("hardware type of this configuration", query.hardware_type,
                  hardware_types, "--hardware-type")
    return Configuration(query.campaign, int(found["config_id"]), found["benchmark"],
                         found["settings"], found["metric"], found["unit"],
                         found["higher_is_better"], hardware_types, query.hardware_type)
