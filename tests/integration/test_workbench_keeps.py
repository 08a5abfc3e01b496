"""The controller keeps what it runs (issue 28): a peak-rate search against a real nginx
(``limit_req`` 200 r/s) with hey as the load generator, five times in a row. Every run
of hey (the warm-up too) has its trial in the warehouse with its offered load, and λ*
lies within the server's step at every search.

The command wraps hey in ``sh -c`` that first appends the load to a log: the log is
the independent count of the runs of hey.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import CliRunner
from tests.integration.test_workbench import result_of, spool_runs
from tests.integration.workbench_support import nginx, require

pytestmark = [pytest.mark.integration, pytest.mark.slow]

RATE = 200
SEARCHES = 5
# below the rate a request waits for nothing (p50 well under 1 ms); above it nginx
# delays every request to 1/RATE = 5 ms: R_sat = 2.5 ms lies on the step
SEARCH = ["--format", "hey", "--statistic", "p50", "--r-sat", "2.5", "--width", "0.1",
          "--accuracy", "0.9", "--duration", "0.5", "--start-load", "50", "--max-trials", "8",
          "--max-loads", "12", "--timeout", "20", "--policy", "binsearch"]


def test_every_run_of_hey_lands_with_its_load(cli: CliRunner, tmp_path: Path) -> None:
    require("nginx", "hey")
    from perfwarehouse.ingest.service import ingest_jsonl
    from perfwarehouse.warehouse.store import Warehouse

    warehouse = Warehouse(tmp_path / "warehouse", lock_timeout_s=30.0)
    with nginx({"a": RATE}) as port:
        for n in range(SEARCHES):
            spool, log = tmp_path / f"spool{n}", tmp_path / f"hey{n}.log"
            command = (f"sh -c 'echo {{load}} >> {log}; exec hey -c 1 -q {{load}} "
                       f"-z {{duration}}s http://127.0.0.1:{port}/a/'")
            result = cli("agent", "peak-rate", "--spool", str(spool), "--campaign", f"keep{n}",
                         "--command", command, *SEARCH, timeout=300)
            assert result.returncode in (0, 3), result.stdout + result.stderr
            info = result_of(spool)
            # λ* within the server's step: the bracket of a step knee, or the best
            # estimate of a search that ran out of trials at the bistable knee
            assert abs(info["lambda_star"] - RATE) <= 0.15 * RATE, result.stdout
            runs_of_hey = Counter(float(x) for x in log.read_text().split())
            kept = [r for r in spool_runs(spool).values()
                    if r[0]["attributes"]["workbench"]["kind"] in ("trial", "warmup")]
            assert Counter(float(r[0]["attributes"]["workbench"]["load"])
                           for r in kept) == runs_of_hey
            summary = ingest_jsonl(warehouse, sorted(spool.glob("*.jsonl")))
            assert summary.outcome == "landed"
            with warehouse.catalog() as con:
                rows = con.execute(  # the trials view: with values, and failed ones
                    "SELECT t.run_id, any_value(json_extract(c.settings, '$.rate_rps')::DOUBLE),"
                    " any_value(t.status) FROM trials t JOIN configurations c USING (config_id)"
                    " WHERE t.campaign = ? AND"
                    " json_extract_string(t.attributes, '$.workbench.kind') <> 'result'"
                    " GROUP BY t.run_id", [f"keep{n}"]).fetchall()
            assert Counter(load for _run, load, _status in rows) == runs_of_hey
            statuses = Counter(status for _run, _load, status in rows)
            assert statuses["warmup"] == 1  # the warm-up is kept, marked, not analysed
            assert statuses["ok"] == info["trials"] - sum(
                v for k, v in statuses.items() if k not in ("ok", "warmup"))
