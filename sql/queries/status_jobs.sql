-- status_jobs: the latest run of each job for each campaign (latest_job_runs), when it
-- ran and the newest ingest batch it read, so `perfwarehouse status` can say which
-- analyses are stale (the campaign received a newer batch since).
SELECT l.job, l.campaign, l.job_run_id, r.started_at,
       coalesce(list_max(r.input_batches), 0) AS last_input_batch
FROM latest_job_runs AS l
JOIN job_runs AS r USING (job_run_id)
ORDER BY l.campaign, l.job
