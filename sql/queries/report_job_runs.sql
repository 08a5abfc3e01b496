-- report_job_runs: the latest run of one job for each campaign it covered (or for
-- $campaign only), which is where a report's numbers come from.
-- Parameters: $job (the CLI name, e.g. 'order-effects'), $campaign (NULL: every campaign).
SELECT l.job_run_id, l.campaign, r.started_at, r.code_version, CAST(r.params AS VARCHAR) AS params
FROM latest_job_runs AS l
JOIN job_runs AS r USING (job_run_id)
WHERE l.job = $job AND ($campaign IS NULL OR l.campaign = $campaign)
ORDER BY l.campaign
