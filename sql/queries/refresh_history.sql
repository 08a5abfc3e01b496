-- refresh_history: every refresh, newest first (the new.html page). Parameters:
-- $limit (how many).
SELECT refresh_id, started_at, finished_at, batches, job_run_ids, campaigns, since,
       CAST(findings AS VARCHAR) AS findings
FROM refreshes ORDER BY refresh_id DESC LIMIT $limit
