-- refresh_batches: the ingest batches that landed after a refresh point. Parameters:
-- $batch (the point's last_batch_id).
SELECT batch_id FROM ingest_batches WHERE batch_id > $batch ORDER BY batch_id
