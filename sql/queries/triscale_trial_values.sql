-- triscale_trial_values: one row per successful trial of one partition: its configuration,
-- node, run, start time (epoch seconds) and value (the median of its measurements, which
-- is the value itself for single-valued trials), ordered by configuration and time.
-- Used by the TriScale, trends and profile jobs. Parameters: $campaign, $hardware_type.
SELECT
    campaign, hardware_type, config_id,
    any_value(benchmark) AS benchmark, any_value(settings) AS settings,
    any_value(metric) AS metric, any_value(higher_is_better) AS higher_is_better,
    any_value(node) AS node, run_id, min(run_index) AS run_index,
    epoch(min(started_at)) AS t,
    median(value) AS value
FROM measurements
WHERE campaign = $campaign AND hardware_type = $hardware_type AND status = 'ok'
GROUP BY campaign, hardware_type, config_id, run_id
ORDER BY config_id, t, run_index
