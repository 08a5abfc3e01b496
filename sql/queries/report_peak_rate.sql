-- report_peak_rate: the rows of table peak_rate (job `load`, perfwarehouse/loadtest/curve.py)
-- from the latest `load` job run of each campaign. Parameters: $campaign (NULL: every campaign).
WITH latest AS (
    SELECT campaign, job_run_id FROM latest_job_runs
    WHERE job = 'load' AND ($campaign IS NULL OR campaign = $campaign)
)
SELECT t.* EXCLUDE (job_run_id)
FROM peak_rate AS t
JOIN latest AS l ON t.campaign = l.campaign AND t.job_run_id = l.job_run_id
ORDER BY t.campaign, t.hardware_type, t.benchmark, t.family, t.loop
