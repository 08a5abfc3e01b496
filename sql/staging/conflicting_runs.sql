-- conflicting_runs: a run of the batch (_batch_runs) that the warehouse already
-- holds with another node, order kind, run index or seed.
SELECT b.campaign, b.run_id,
       r.node || ', ' || r.order_kind || ', run ' || CAST(r.run_index AS VARCHAR)
FROM _batch_runs b
JOIN runs r USING (campaign, run_id)
WHERE r.node <> b.node OR r.order_kind <> b.order_kind OR r.run_index <> b.run_index
   OR r.seed IS DISTINCT FROM b.seed
LIMIT 1
