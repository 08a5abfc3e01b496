"""What the load-test importer tests share: the fixtures, the broken-file, sniff and
schema checks, and the parser's trials per load level (to compare with an independent
count that each test file writes for its own format)."""

from __future__ import annotations

import importlib
import json
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats.records import SNIFF_BYTES, ImportOptions, apply_options
from tests.conftest import REPO

FIXTURES = REPO / "tests" / "fixtures"
IMPORTERS = FIXTURES / "importers"
MODULES = {"wrk": "wrk", "hey": "hey", "redis-benchmark": "redis_benchmark",
           "sysbench": "sysbench", "locust": "locust", "jmeter": "jmeter", "k6": "k6",
           "gatling": "gatling"}
SCHEMA = json.loads((REPO / "ingest" / "trial-log.schema.json").read_text())

Level = tuple[Any, Any, Any]  # (loop, clients, rate_rps)


def module(verb: str) -> ModuleType:
    return importlib.import_module(f"perfwarehouse.ingest.formats.{MODULES[verb]}")


def good(verb: str) -> list[Path]:
    files = sorted((IMPORTERS / verb / "good").iterdir())
    assert files, verb
    return files


def broken(verb: str) -> list[Path]:
    files = sorted((IMPORTERS / verb / "broken").iterdir())
    assert files, verb
    return files


def parse(verb: str, path: Path, **options: Any) -> list[dict[str, Any]]:
    return module(verb).parse(path.read_bytes(), str(path), ImportOptions(**options))


def every_other_fixture(verb: str) -> list[Path]:
    """Every fixture file that is not this verb's: the other importers' (good and broken),
    the OrderSage directories and the mapped tables."""
    out = [p for p in IMPORTERS.rglob("*") if p.is_file()
           and p.relative_to(IMPORTERS).parts[0] != verb]
    out += [p for p in (FIXTURES / "ordersage").rglob("*") if p.is_file()]
    out += [p for p in (FIXTURES / "tables").rglob("*") if p.is_file()]
    out += [FIXTURES / "ordersage_paper_tables.csv"]
    return sorted(out)


def check_broken(verb: str, path: Path) -> None:
    """The file is refused with the rule its name starts with, in one line naming it."""
    rule = path.name.split("__")[0]
    with pytest.raises(TrialParseError) as info:
        parse(verb, path)
    assert info.value.rule == rule, str(info.value)
    message = str(info.value)
    assert "\n" not in message and message.startswith(str(path))


def check_sniff(verb: str) -> None:
    sniff = module(verb).sniff
    for path in good(verb):
        assert sniff(path.read_bytes()[:SNIFF_BYTES], path.name), path
    for path in every_other_fixture(verb):
        assert not sniff(path.read_bytes()[:SNIFF_BYTES], path.name), path


def trials(records: list[dict[str, Any]]) -> dict[tuple[str, int], list[dict[str, Any]]]:
    out: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for record in records:
        out.setdefault((record["run_id"], record["position"]), []).append(record)
    return out


def level(settings: dict[str, Any]) -> Level:
    return (settings.get("loop"), settings.get("clients"), settings.get("rate_rps"))


def trials_per_level(records: list[dict[str, Any]]) -> Counter[Level]:
    return Counter(level(recs[0]["settings"]) for recs in trials(records).values())


def flat(pairs: list[list[float]]) -> list[float]:
    return [x for pair in pairs for x in pair]


def metrics_of(records: list[dict[str, Any]]) -> dict[str, float]:
    """metric -> value of a one-trial file."""
    assert len(trials(records)) == 1
    return {r["metric"]: r["values"][0] for r in records}


def check_records(records: list[dict[str, Any]]) -> None:
    """Contract checks: one value per record, one ``throughput`` per trial carrying the
    latency (if any), and schema-valid records once the command line fills node and
    (where the file has none) the start time."""
    for key, recs in trials(records).items():
        names = [r["metric"] for r in recs]
        assert len(names) == len(set(names)), key
        assert names[0] == "throughput", names
        assert all("latency" not in r for r in recs[1:])
        assert all(len(r["values"]) == 1 for r in recs)
        assert len({json.dumps(r["settings"], sort_keys=True) for r in recs}) == 1
        latency = recs[0].get("latency")
        if latency is not None:
            assert latency["unit"] == "ms"
            assert ("percentiles" in latency) != ("samples" in latency)
            for q, value in latency.get("percentiles", []):
                assert 0.0 <= q <= 100.0 and value >= 0.0
    filled = apply_options(json.loads(json.dumps(records)), ImportOptions(node="n1"),
                           "x", "default")
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for record in filled:
        record["started_at"] = record["started_at"] or "2026-01-01T00:00:00Z"
        validator.validate(record)
