-- conflicting_runs: a run of the batch (_batch_runs) that the warehouse already
-- holds with another node, order kind, run index, seed or revision.
SELECT b.campaign, b.run_id,
       r.node || ', ' || r.order_kind || ', run ' || CAST(r.run_index AS VARCHAR)
       || ', revision ' || coalesce(r.revision, 'none')
FROM _batch_runs b
JOIN runs r USING (campaign, run_id)
WHERE r.node <> b.node OR r.order_kind <> b.order_kind OR r.run_index <> b.run_index
   OR r.seed IS DISTINCT FROM b.seed OR r.revision IS DISTINCT FROM b.revision
   OR r.revision_time IS DISTINCT FROM b.revision_time
LIMIT 1
