-- report_job_runs: the latest run of one job for each campaign it covered (or for
-- $campaign only), which is where a report's numbers come from (SPEC 6, 11).
-- Parameters: $job (the CLI name, e.g. 'order-effects'), $campaign (NULL: every campaign).
SELECT job_run_id, campaign, started_at, code_version, CAST(params AS VARCHAR) AS params
FROM (
    SELECT job_run_id, unnest(campaigns) AS campaign, started_at, code_version, params
    FROM job_runs
    WHERE job = $job
)
WHERE $campaign IS NULL OR campaign = $campaign
QUALIFY row_number() OVER (PARTITION BY campaign ORDER BY job_run_id DESC) = 1
ORDER BY campaign
