-- report_peak_rate: the rows of table peak_rate (job `load`, perfwarehouse/loadtest/curve.py)
-- from the latest `load` job run of each campaign. Parameters: $campaign (NULL: every campaign).
SELECT t.* EXCLUDE (job_run_id)
FROM peak_rate AS t
WHERE ($campaign IS NULL OR t.campaign = $campaign)
ORDER BY t.campaign, t.hardware_type, t.benchmark, t.family, t.loop
