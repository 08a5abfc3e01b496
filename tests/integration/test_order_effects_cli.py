"""perfwarehouse analyze order-effects / predecessor-effects as a user runs them (real
processes)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from perfwarehouse.ingest.service import ingest_ordersage
from perfwarehouse.warehouse.store import Warehouse
from tests.conftest import ORDERSAGE_DIRS, CliRunner

pytestmark = pytest.mark.integration


def test_order_effects_from_the_command_line(cli: CliRunner, tmp_path: Path) -> None:
    warehouse = Warehouse(tmp_path / "warehouse")  # the cli fixture's warehouse
    for name in ("memcached", "npbench"):
        ingest_ordersage(warehouse, [ORDERSAGE_DIRS[name]])

    result = cli("analyze", "order-effects", "--ci-confidence", "95", check=True)
    lines = result.stdout.splitlines()
    memcached = next(line for line in lines if line.startswith(ORDERSAGE_DIRS["memcached"].name))
    assert "3 configurations compared, 1 reject at alpha/m = 0.0167: ORDER MATTERS" in memcached
    npbench = next(line for line in lines if line.startswith(ORDERSAGE_DIRS["npbench"].name))
    assert "0 reject" in npbench and "order does not matter" in npbench
    assert any("get_hits_test.sh" in line and "p = 8.51e-05" in line for line in lines)
    assert lines[-1].startswith("order-effects: 6 rows in order_effects (job_run_id 1")

    table = cli("sql", "SELECT o.benchmark, o.ci_confidence, j.job, j.duration_s > 0 AS timed "
                       "FROM order_effects o JOIN job_runs j USING (job_run_id) ORDER BY 1",
                "--format", "csv", check=True)
    rows = list(csv.DictReader(io.StringIO(table.stdout)))
    assert len(rows) == 6
    assert {(r["ci_confidence"], r["job"], r["timed"].lower()) for r in rows} == {
        ("0.95", "order-effects", "true")}

    pred = cli("analyze", "predecessor-effects", "--family-by", "benchmark", check=True)
    expected = "[benchmark=./get_hits_test.sh]: 1 configurations tested across predecessors"
    assert expected in pred.stdout


def test_bad_options_are_one_line_errors(cli: CliRunner, tmp_path: Path) -> None:
    ingest_ordersage(Warehouse(tmp_path / "warehouse"), [ORDERSAGE_DIRS["ufs"]])
    bad = cli("analyze", "order-effects", "--family-by", "node")
    assert bad.returncode == 1 and "--family-by 'node' is not supported" in bad.stderr
    assert "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    usage = cli("analyze", "order-effects", "--correction", "fdr")
    assert usage.returncode == 2 and "fdr" in usage.stderr
    empty = cli("analyze", "order-effects", "--campaign", "no-such-campaign")
    assert empty.returncode == 1 and "unknown campaign 'no-such-campaign'" in empty.stderr
    assert "known: " in empty.stderr and len(empty.stderr.strip().splitlines()) == 1
