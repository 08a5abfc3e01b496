"""The ``latency`` key of load-test records, from a staged batch to ``latency_histograms``.

A record's ``latency`` (JSON text in ``raw_trials.latency``; the three shapes of
:mod:`perfwarehouse.loadtest.histograms`) is converted once, while the batch is
validated, into the fixed log-bucket grid; a malformed one is a problem of its line
(rule ``bad-latency``), a second one for the same trial too (``duplicate-latency``).
The converted rows wait in the batch's temporary table ``_latency`` (keyed by the
record's rowid) and land in the catalog table ``latency_histograms`` in the batch's
own transaction, for the records that are landed (quarantined and already-present
trials drop out through the join with ``staged_trials``).
"""

from __future__ import annotations

import json
import zlib

import duckdb
import pyarrow as pa

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest import json_policy
from perfwarehouse.loadtest import histograms
from perfwarehouse.warehouse.store import fetch_arrow, fetch_one

_SCHEMA = pa.schema([
    ("record_id", pa.int64()), ("kind", pa.string()), ("n_requests", pa.float64()),
    ("mean_ms", pa.float64()), ("min_ms", pa.float64()), ("max_ms", pa.float64()),
    ("bucket_index", pa.list_(pa.uint16())), ("bucket_frac", pa.list_(pa.float64())),
    ("raw", pa.binary()),
])


def convert(con: duckdb.DuckDBPyConnection) -> list[TrialParseError]:
    """Convert every record's ``latency`` into ``_latency``; the problems found."""
    rows = con.execute(
        "SELECT rowid, source, line, campaign, run_id, position, latency FROM raw_trials "
        "WHERE latency IS NOT NULL AND latency <> 'null' ORDER BY source, line").fetchall()
    problems: list[TrialParseError] = []
    out: dict[str, list[object]] = {name: [] for name in _SCHEMA.names}
    seen: set[tuple[object, object, object]] = set()
    for record_id, source, line, campaign, run_id, position, text in rows:
        key = (campaign, run_id, position)
        if key in seen:
            problems.append(TrialParseError(
                source, line or 0, "duplicate-latency",
                f"run {run_id} position {position} already has a latency distribution "
                "(give it on one record of the trial, its throughput)"))
            continue
        seen.add(key)
        try:
            value = json_policy.loads_text(text)
            json_policy.check_value(value, "latency", depth=2)
            hist = histograms.from_latency(value)
        except json_policy.PolicyError as exc:  # duplicate keys, too deep: the policy's rule
            problems.append(TrialParseError(source, line or 0, exc.rule, exc.detail))
            continue
        except ValueError as exc:
            problems.append(TrialParseError(source, line or 0, "bad-latency", str(exc)))
            continue
        for name, item in (("record_id", record_id), ("kind", hist.kind), ("n_requests", hist.n),
                           ("mean_ms", hist.mean_ms), ("min_ms", hist.min_ms),
                           ("max_ms", hist.max_ms), ("bucket_index", hist.index.tolist()),
                           ("bucket_frac", hist.frac.tolist()),
                           ("raw", zlib.compress(json.dumps(
                               value, sort_keys=True, separators=(",", ":")).encode(), 6))):
            out[name].append(item)
    table = pa.table(out, schema=_SCHEMA)
    con.register("_latency_in", table)
    con.execute("CREATE OR REPLACE TEMP TABLE _latency AS SELECT * FROM _latency_in")
    con.unregister("_latency_in")
    return problems


def rows(con: duckdb.DuckDBPyConnection, batch_id: int) -> pa.Table | None:
    """Rows of ``latency_histograms`` for the staged (landing) records; None if none."""
    exists = fetch_one(con, "SELECT count(*) FROM duckdb_tables() WHERE table_name = '_latency'")
    if not exists or not exists[0]:
        return None
    table = fetch_arrow(con, """
        SELECT s.campaign, s.hardware_type, s.run_id, s.position, s.config_id, l.kind,
               l.n_requests, l.mean_ms, l.min_ms, l.max_ms, l.bucket_index, l.bucket_frac,
               l.raw, CAST($batch_id AS BIGINT) AS batch_id
        FROM staged_trials s JOIN _latency l ON l.record_id = s.record_id""",
                        {"batch_id": batch_id})
    return table if table.num_rows else None
