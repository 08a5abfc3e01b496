-- triscale_trial_runs: the trials of one partition that have at least $min_values
-- successful measurements, each with its values in iteration order (a TriScale run:
-- raw data over time, Jacob et al. (TriScale, JSys 2021), §4.1). Trials are first found by their
-- iteration number (0-based), so single-valued campaigns cost one cheap scan.
-- Parameters: $campaign, $hardware_type, $min_values.
WITH long_trials AS (
    SELECT DISTINCT config_id, run_id
    FROM measurements
    WHERE campaign = $campaign AND hardware_type = $hardware_type AND status = 'ok'
      AND iteration >= $min_values - 1
)
SELECT
    campaign, hardware_type, config_id,
    any_value(benchmark) AS benchmark, any_value(settings) AS settings,
    any_value(metric) AS metric, any_value(node) AS node, run_id,
    epoch(min(started_at)) AS t,
    list(value ORDER BY iteration) AS "values"
FROM measurements SEMI JOIN long_trials USING (config_id, run_id)
WHERE campaign = $campaign AND hardware_type = $hardware_type AND status = 'ok'
GROUP BY campaign, hardware_type, config_id, run_id
HAVING count(*) >= $min_values
ORDER BY config_id, t, run_id
