-- report_refreshes: the refreshes (table refreshes), newest first, for the new.html page:
-- when, the batches that landed since the previous one, the job runs it ran, the
-- campaigns whose pages it wrote, and what it found new (JSON). Parameters: $limit.
SELECT refresh_id, started_at, finished_at, len(batches) AS batches,
       len(job_run_ids) AS job_runs, array_to_string(campaigns, ', ') AS campaigns, since,
       CAST(findings AS VARCHAR) AS findings
FROM refreshes ORDER BY refresh_id DESC LIMIT $limit
