-- report_load_law_checks: the rows of table load_law_checks (job `load`, perfwarehouse/loadtest/curve.py)
-- from the latest `load` job run of each campaign. Parameters: $campaign (NULL: every campaign).
SELECT t.* EXCLUDE (job_run_id)
FROM load_law_checks AS t
WHERE ($campaign IS NULL OR t.campaign = $campaign)
ORDER BY t.campaign, t.hardware_type, t.benchmark, t.family, t.loop, t.load, t.run_id, t.position
