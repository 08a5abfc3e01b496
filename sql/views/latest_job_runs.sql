-- latest_job_runs: the newest run of each job for each campaign it covered
-- (job, campaign, job_run_id): where an analysis table's current numbers are. Reports
-- read their rows through it (11: a rerun replaces, older runs stay queryable).
SELECT job, campaign, max(job_run_id) AS job_run_id
FROM (SELECT job, job_run_id, unnest(campaigns) AS campaign FROM job_runs)
GROUP BY job, campaign
