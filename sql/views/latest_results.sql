-- latest_results: the view behind each analysis table name (order_effects, variability,
-- ...): the rows of {table}_history that come from the latest job run of each campaign
-- (latest_job_runs), so a rerun replaces the numbers a query sees instead of adding to
-- them. Every run stays queryable in {table}_history (by job_run_id). {table} is
-- substituted by name (a table name cannot be a parameter).
SELECT r.*
FROM {table}_history AS r
JOIN latest_job_runs AS l ON l.campaign = r.campaign AND l.job_run_id = r.job_run_id
