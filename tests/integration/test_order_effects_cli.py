"""perfwarehouse analyze order-effects / predecessor-effects as a user runs them."""

from __future__ import annotations

import csv
import io

import pytest

from tests.conftest import ORDERSAGE_DIRS, CliRunner

pytestmark = pytest.mark.integration


def test_order_effects_from_the_command_line(cli: CliRunner) -> None:
    for name in ("memcached", "npbench"):
        cli("ingest", "ordersage", str(ORDERSAGE_DIRS[name]), check=True)
    result = cli("analyze", "order-effects", "--ci-confidence", "95", check=True)
    lines = result.stdout.splitlines()
    memcached = next(line for line in lines if line.startswith(ORDERSAGE_DIRS["memcached"].name))
    assert "3 configurations compared, 1 reject at alpha/m = 0.0167: ORDER MATTERS" in memcached
    npbench = next(line for line in lines if line.startswith(ORDERSAGE_DIRS["npbench"].name))
    assert "0 reject" in npbench and "order does not matter" in npbench
    assert any("get_hits_test.sh" in line and "p = 8.51e-05" in line for line in lines)
    assert lines[-1].startswith("order-effects: 6 rows in order_effects (job_run_id 1")

    table = cli("sql", "SELECT benchmark, ci_confidence, ci_case, reject_alpha FROM order_effects "
                       "ORDER BY benchmark", "--format", "csv", check=True)
    rows = list(csv.DictReader(io.StringIO(table.stdout)))
    assert len(rows) == 6 and {r["ci_confidence"] for r in rows} == {"0.95"}
    runs = cli("sql", "SELECT job, duration_s > 0 AS timed FROM job_runs", "--format", "csv",
               check=True)
    assert "order-effects,true" in runs.stdout.lower()


def test_options_and_errors(cli: CliRunner) -> None:
    cli("ingest", "ordersage", str(ORDERSAGE_DIRS["ufs"]), check=True)
    holm = cli("analyze", "order-effects", "--family-by", "benchmark", "--correction", "holm",
               "--ci-method", "le-boudec", check=True)
    assert "[benchmark=bash -i ufs.ADSS.sh]: 1 configurations compared" in holm.stdout
    bad = cli("analyze", "order-effects", "--family-by", "node")
    assert bad.returncode == 1 and "--family-by 'node' is not supported" in bad.stderr
    assert "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    bad = cli("analyze", "order-effects", "--ci-confidence", "abc")
    assert bad.returncode == 1 and "--ci-confidence" in bad.stderr
    usage = cli("analyze", "order-effects", "--correction", "fdr")
    assert usage.returncode == 2
    assert "--ordersage-compat" in cli("analyze", "order-effects", "--help", check=True).stdout
    pred = cli("analyze", "predecessor-effects", "--min-trials", "2", check=True)
    assert "20 configurations tested across predecessors" in pred.stdout
    empty = cli("analyze", "order-effects", "--campaign", "no-such-campaign")
    assert empty.returncode == 1 and "no measurements" in empty.stderr
