-- triscale_trial_values: the successful measurements of one partition, ordered by
-- configuration, time, run and iteration, for the TriScale, trends and profile jobs
-- (which take each trial's median). The configuration's names are joined on one row per
-- configuration only (its first run's iteration 0, NULL elsewhere): carrying the strings
-- on every row would triple the query's cost. Parameters: $campaign, $hardware_type.
WITH names AS (
    SELECT config_id, min(run_id) AS first_run, any_value(benchmark) AS benchmark,
           any_value(settings) AS settings, any_value(metric) AS metric
    FROM measurements
    WHERE campaign = $campaign AND hardware_type = $hardware_type AND status = 'ok'
    GROUP BY config_id
)
SELECT
    m.campaign, m.hardware_type, m.config_id, names.benchmark, names.settings, names.metric,
    m.higher_is_better, m.node, m.run_id, m.run_index, epoch(m.started_at) AS t, m.iteration,
    m.value
FROM measurements AS m
LEFT JOIN names
    ON m.config_id = names.config_id AND m.run_id = names.first_run AND m.iteration = 0
WHERE m.campaign = $campaign AND m.hardware_type = $hardware_type AND m.status = 'ok'
ORDER BY m.config_id, t, m.run_index, m.run_id, m.iteration
