"""One parser per input format (pure: bytes or tables in, trial records out).

:data:`IMPORTERS` lists the formats of other tools that ``perfwarehouse ingest NAME``
and ``perfwarehouse ingest auto`` read; each is a module following the contract of
:mod:`perfwarehouse.ingest.formats.records` (``NAME``, ``DESCRIPTION``, ``sniff``,
``parse``), imported only when used so that the command line starts fast.
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: verb of ``perfwarehouse ingest VERB`` -> module implementing the format
IMPORTERS: dict[str, str] = {
    "pyperf": "perfwarehouse.ingest.formats.pyperf",
    "gbench": "perfwarehouse.ingest.formats.gbench",
    "hyperfine": "perfwarehouse.ingest.formats.hyperfine",
    "jmh": "perfwarehouse.ingest.formats.jmh",
    "gotest": "perfwarehouse.ingest.formats.gotest",
    "asv": "perfwarehouse.ingest.formats.asv",
    "wrk": "perfwarehouse.ingest.formats.wrk",
    "hey": "perfwarehouse.ingest.formats.hey",
    "redis-benchmark": "perfwarehouse.ingest.formats.redis_benchmark",
    "sysbench": "perfwarehouse.ingest.formats.sysbench",
    "locust": "perfwarehouse.ingest.formats.locust",
    "jmeter": "perfwarehouse.ingest.formats.jmeter",
    "gatling": "perfwarehouse.ingest.formats.gatling",
    "k6": "perfwarehouse.ingest.formats.k6",
    "github-action-benchmark": "perfwarehouse.ingest.formats.github_action_benchmark",
    "pytest-benchmark": "perfwarehouse.ingest.formats.pytest_benchmark",
    "criterion": "perfwarehouse.ingest.formats.criterion",
    "benchmarkdotnet": "perfwarehouse.ingest.formats.benchmarkdotnet",
    "catch2": "perfwarehouse.ingest.formats.catch2",
}


def load(name: str) -> ModuleType:
    """The module of format ``name`` (a key of :data:`IMPORTERS`)."""
    from perfwarehouse.errors import UsageError

    if name not in IMPORTERS:
        raise UsageError(f"unknown format {name!r}; known: {', '.join(sorted(IMPORTERS))}")
    module = importlib.import_module(IMPORTERS[name])
    if getattr(module, "NAME", None) != name:
        raise RuntimeError(f"{IMPORTERS[name]} declares NAME {getattr(module, 'NAME', None)!r}, "
                           f"registered as {name!r}")
    return module


def load_all() -> dict[str, ModuleType]:
    """Every registered format module, by name (sorted)."""
    return {name: load(name) for name in sorted(IMPORTERS)}
