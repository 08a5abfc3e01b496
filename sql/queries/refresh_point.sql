-- refresh_point: the newest ingest batch, job run and kept comparison now (0 when
-- none), what a refresh records as its point (table refreshes).
SELECT coalesce((SELECT max(batch_id) FROM ingest_batches), 0) AS last_batch_id,
       coalesce((SELECT max(job_run_id) FROM job_runs), 0) AS last_job_run_id,
       coalesce((SELECT max(comparison_id) FROM comparisons), 0) AS last_comparison_id
