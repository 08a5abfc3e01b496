-- profile_trials: one row per successful trial of one partition, for the profile job
-- (Jacob et al. (TriScale, JSys 2021), §4.6): its configuration, node, start (epoch seconds), the median of its
-- values and the metric's direction, ordered by configuration. A trial is one
-- configuration's measurements in one run (as in triscale_trial_runs). Only these
-- columns are read, and the campaign and hardware type only on the first row: one
-- hardware type can hold ten million trials. Parameters: $campaign, $hardware_type.
WITH trials AS (
    SELECT
        config_id, any_value(higher_is_better) AS higher_is_better, any_value(node) AS node,
        epoch(min(started_at)) AS t, median(value) AS value
    FROM measurements
    WHERE campaign = $campaign AND hardware_type = $hardware_type AND status = 'ok'
    GROUP BY config_id, run_id
)
SELECT
    CASE WHEN row_number() OVER (ORDER BY config_id, t) = 1 THEN $campaign END AS campaign,
    CASE WHEN row_number() OVER (ORDER BY config_id, t) = 1 THEN $hardware_type END
        AS hardware_type,
    config_id, higher_is_better, node, t, value
FROM trials
ORDER BY config_id, t
