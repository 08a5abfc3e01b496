"""Checks every tool importer's tests share: the fixtures, the trial-log invariants of
the records a parser returns, the broken fixtures and the sniff matrix.

Broken fixtures are named ``<rule>[--<what>].<ext>``: the refusal must name ``<rule>``.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import jsonschema

from perfwarehouse.ingest.formats.records import ImportOptions, apply_options
from perfwarehouse.ingest.service import ingest_jsonl, without_preamble
from perfwarehouse.warehouse.store import Warehouse
from tests.conftest import REPO

IMPORTERS = REPO / "tests" / "fixtures" / "importers"
SCHEMA = json.loads((REPO / "ingest" / "trial-log.schema.json").read_text())
OPTIONS = ImportOptions()

# other formats' files, inline (their fixtures live on other branches or are generated)
OTHER_SAMPLES: dict[str, bytes] = {
    "pyperf.json": json.dumps({"benchmarks": [{"runs": [{"metadata": {"date": "2024-01-01"},
                                                         "values": [0.1, 0.2]}]}],
                               "metadata": {"name": "x", "hostname": "h"},
                               "version": "1.0"}).encode(),
    "gbench.json": json.dumps({"context": {"date": "2024-01-01T00:00:00Z", "host_name": "h",
                                           "num_cpus": 2},
                               "benchmarks": [{"name": "BM_x", "run_type": "iteration",
                                               "iterations": 10, "real_time": 1.0,
                                               "cpu_time": 1.0, "time_unit": "ns"}]}).encode(),
    "trials.jsonl": json.dumps({"v": 1, "campaign": "c", "run_id": "r", "benchmark": "b",
                                "metric": "runtime", "values": [1.0]}).encode() + b"\n",
    "table.csv": b"benchmark,metric,value\nBenchmarkX,ns/op,12\n",
}


def broken_cases(fmt: str) -> list[tuple[Path, str]]:
    """(file, expected rule) of every broken fixture of ``fmt``."""
    files = sorted((IMPORTERS / fmt / "broken").iterdir())
    assert files, f"no broken fixtures for {fmt}"
    return [(f, f.name.split(".")[0].split("--")[0]) for f in files]


def all_fixture_files() -> list[Path]:
    """Every file under tests/fixtures (importers of all formats, OrderSage, tables)."""
    return sorted(f for f in (REPO / "tests" / "fixtures").rglob("*") if f.is_file())


#: the real outputs kept for compare's side by side with the peers, by format
SIDE_BY_SIDE = {"gotest": "compare_crc32/crc-*.txt", "pyperf": "compare_pyperformance/*.json"}


def real_outputs(fmt: str) -> list[Path]:
    """The outputs of the real tools (fixtures/importers/<fmt>/real/, see
    tests/fixtures/generate/real_tools.sh, and compare's fixtures) whose raw first bytes
    ``fmt`` claims: all its
    files but the gzipped ones and those with a command line above the JSON (the ingest
    edge unpacks and blanks those before sniffing)."""
    folder = IMPORTERS / fmt / "real"
    # compare's side-by-side fixtures are real outputs too (tests/fixtures/compare/,
    # tests/fixtures/generate/compare_*.sh): <fmt>_base.* and <fmt>_contender.*
    sides = sorted(p for side in ("base", "contender")
                   for p in (REPO / "tests" / "fixtures" / "compare").glob(f"{fmt}_{side}.*"))
    # and so are the side-by-side pairs with benchstat and pyperf (compare_crc32.sh,
    # compare_pyperformance.sh)
    sides += sorted((REPO / "tests" / "fixtures").glob(SIDE_BY_SIDE.get(fmt, "-/-")))
    if not folder.is_dir():
        return sides
    return sorted([*sides, *(f for f in folder.rglob("*") if f.is_file() and f.suffix != ".gz"
                             and without_preamble(f.read_bytes()) is None)])


def check_sniff(sniff: Any, fmt: str, claimed: list[Path]) -> None:
    """``sniff`` claims exactly ``claimed`` and the real outputs of ``fmt``
    (:func:`real_outputs`) among all fixture files (and none of the other formats' inline
    samples)."""
    claimed = [*claimed, *real_outputs(fmt)]
    for path in all_fixture_files():
        head = path.read_bytes()[: 64 * 1024]
        assert sniff(head, path.name) == (path in claimed), path
    for name, data in OTHER_SAMPLES.items():
        assert not sniff(data, name), name


def check_records(records: list[dict[str, Any]]) -> None:
    """The rules the warehouse's validation applies to a batch, on the parser's output."""
    assert records
    runs: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        runs.setdefault(r["run_id"], []).append(r)
        assert r["order_kind"] == "fixed"
        assert r["campaign"] is None and r["hardware_type"] is None
        assert isinstance(r["settings"], dict) and isinstance(r["attributes"], dict)
        assert all(isinstance(v, float) for v in r["values"])
        assert r["status"] != "ok" or r["values"], r
        assert isinstance(r["benchmark"], str) and r["benchmark"]
        assert isinstance(r["metric"], str) and r["metric"]
    for run_id, rows in runs.items():
        assert {(r["run_index"], r["run_size"], r["node"]) for r in rows} == {
            (rows[0]["run_index"], len(rows), rows[0]["node"])}, run_id
        assert max(r["position"] for r in rows) < len(rows)
        identities = Counter((r["position"], r["benchmark"], json.dumps(r["settings"],
                              sort_keys=True), r["metric"]) for r in rows)
        assert max(identities.values()) == 1, run_id
        tests: dict[int, set[str]] = {}
        for r in rows:
            tests.setdefault(r["position"], set()).add(
                r["benchmark"] + json.dumps(r["settings"], sort_keys=True))
        assert all(len(t) == 1 for t in tests.values()), run_id
    configs: dict[tuple[str, str, str], set[tuple[Any, Any]]] = {}
    for r in records:
        key = (r["benchmark"], json.dumps(r["settings"], sort_keys=True), r["metric"])
        configs.setdefault(key, set()).add((r["unit"], r["higher_is_better"]))
    assert all(len(v) == 1 for v in configs.values())


def values_per_benchmark(records: list[dict[str, Any]]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for r in records:
        counts[r["benchmark"]] += len(r["values"])
    return counts


def land(records: list[dict[str, Any]], tmp_path: Path) -> Any:
    """Fill what the command line would (node, a start time where the file has none),
    check the records against the trial log's JSON Schema and ingest them into a real
    warehouse as a native trial log: the warehouse's own validation must accept them."""
    records = apply_options(json.loads(json.dumps(records)), ImportOptions(node="node-1"),
                            "fixture", "importers")
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for r in records:
        r["started_at"] = r["started_at"] or "2024-01-01T00:00:00Z"
        validator.validate(r)
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    warehouse = Warehouse(tmp_path / "warehouse", lock_timeout_s=5.0)
    summary = ingest_jsonl(warehouse, [path])
    assert not summary.problems, [str(p) for p in summary.problems[:3]]
    assert summary.trials_added == len(records)
    assert summary.values_added == sum(len(r["values"]) for r in records)
    return summary
