-- run_rows: rows of the runs table for a batch (validated consistent per run, so
-- min() picks the one value; raw_trials holds exactly the staged records).
SELECT campaign, run_id, min(node) AS node, CAST(min(run_index) AS INTEGER) AS run_index,
       min(order_kind) AS order_kind, min(seed) AS seed, min(started_at) AS started_at,
       CAST(min(run_size) AS INTEGER) AS run_size, CAST($batch_id AS BIGINT) AS batch_id,
       min(revision) AS revision, min(revision_time) AS revision_time
FROM raw_trials
GROUP BY campaign, run_id
