-- refresh_change_points: every change point (any shift, needing action or not) of the
-- latest change-points run of each campaign with job_run_id <= $job_run and started before
-- $until (NULL: any time), as refresh_findings.sql chooses the runs: what "new" compares a
-- step with (a change point re-placed or re-classified is not new). Parameters: $job_run,
-- $until.
WITH runs AS (
    SELECT unnest(campaigns) AS campaign, job_run_id FROM job_runs
    WHERE job = 'change-points' AND job_run_id <= $job_run
      AND ($until IS NULL OR started_at < $until)
), latest AS (
    SELECT campaign, max(job_run_id) AS job_run_id FROM runs GROUP BY campaign
)
SELECT c.campaign, c.hardware_type, c.config_id, c.direction, c.position, c.n_points,
       c.shift, c.started_at
FROM change_points_history AS c
JOIN latest AS l ON l.campaign = c.campaign AND l.job_run_id = c.job_run_id
WHERE c.position IS NOT NULL
ORDER BY 1, 2, 3, 5
