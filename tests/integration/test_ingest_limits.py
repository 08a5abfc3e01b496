"""Issue 31 items 5, 6 and 12 (names) at ingest: the limits of perfwarehouse/ingest/limits.py,
applied by both JSON Lines readers and by the batch validation every importer goes through.

Before: values near 1.7e308 landed (a stored median became inf and the report pages died),
a benchmark name over 200 characters was refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest import limits, service
from perfwarehouse.warehouse.store import Warehouse
from tests.integration.test_ingest_policy import _line, _log, _problems

pytestmark = pytest.mark.integration

CASES = {
    "near-max-float": ({"values": [1.7e308, 1.6e308]}, "value-range"),
    "just-over-max": ({"values": [10.0, limits.VALUE_MAX * 1.0000001]}, "value-range"),
    "negative-huge": ({"values": [-1e200, 3.0]}, "value-range"),
    "subnormal": ({"values": [1e-308, 1.0]}, "value-range"),
    "benchmark-4097": ({"benchmark": "b" * (limits.BENCHMARK_MAX + 1)}, "bad-name"),
}


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    return Warehouse(tmp_path_factory.mktemp("limits") / "warehouse")


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_value_or_name_past_its_limit_is_refused_by_its_rule(
        tmp_path: Path, shared: Warehouse, case: str) -> None:
    change, rule = CASES[case]
    log = _log(tmp_path, _line(change), campaign=case)
    assert _problems(log, "fast") == _problems(log, "reference") == [(rule, 2)]
    with pytest.raises(TrialParseError, match=rf"log.jsonl:2: \[{rule}\]"):
        service.ingest_jsonl(shared, [log])
    summary = service.ingest_jsonl(shared, [log], quarantine=True)
    assert (summary.trials_added, summary.quarantined) == (5, 1)


def test_values_at_the_limits_and_zero_land(tmp_path: Path, shared: Warehouse) -> None:
    edge = [0.0, -0.0, limits.VALUE_MAX, -limits.VALUE_MAX, limits.VALUE_MIN, -limits.VALUE_MIN]
    log = _log(tmp_path, _line({"values": edge}), campaign="edges")
    assert _problems(log, "fast") == _problems(log, "reference") == []
    assert service.ingest_jsonl(shared, [log]).trials_added == 6
    with shared.catalog() as con:
        got = sorted(r[0] for r in con.execute(
            "SELECT value FROM measurements WHERE campaign = 'edges' AND position = 1 "
            "AND run_index = 0").fetchall())
    assert got == sorted(edge)


def test_a_benchmark_name_of_4096_characters_lands(tmp_path: Path, shared: Warehouse) -> None:
    # C++ template instantiations and JMH parameter lists are this long
    name = ("BM_Sort<std::vector<std::pair<std::string, std::map<int, double>>>>/" * 70)[
        :limits.BENCHMARK_MAX]
    log = _log(tmp_path, _line({"benchmark": name}), campaign="long-names")
    assert _problems(log, "fast") == _problems(log, "reference") == []
    assert service.ingest_jsonl(shared, [log]).trials_added == 6
    with shared.catalog() as con:
        assert con.execute("SELECT max(length(benchmark)) FROM measurements "
                           "WHERE campaign = 'long-names'").fetchone()[0] == limits.BENCHMARK_MAX


def test_campaign_names_keep_their_200_byte_rule(tmp_path: Path) -> None:
    log = _log(tmp_path, _line({"campaign": "c" * (limits.NAME_MAX + 1)}))
    assert _problems(log, "reference") == [("bad-name", 2)]
    assert json.dumps(limits.VALIDATE_PARAMETERS)  # plain values for DuckDB's parameters
