-- latest_job_params: the parameters of the latest run of each job for each campaign
-- (latest_job_runs), so that `analyze all` reruns a job with what the user last gave it.
SELECT l.job, l.campaign, l.job_run_id, r.params
FROM latest_job_runs AS l
JOIN job_runs AS r USING (job_run_id)
ORDER BY l.job, l.campaign
