-- profile_trials: one row per successful trial of one partition, for the profile job
-- (Jacob et al. (TriScale, JSys 2021), §4.6): its configuration, node, start (epoch seconds), the median of its
-- values and the metric's direction. A trial is one configuration's measurements in one
-- run (as in triscale_trial_runs). The job needs the rows by configuration and start
-- (its Job.row_order: the aggregate's rows come in no order and are sorted after
-- reading). Only these columns are read: one hardware type can hold ten million trials.
-- Parameters: $campaign, $hardware_type.
SELECT
    $campaign AS campaign, $hardware_type AS hardware_type, config_id,
    any_value(higher_is_better) AS higher_is_better, any_value(node) AS node,
    epoch(min(started_at)) AS t, median(value) AS value
FROM measurements
WHERE campaign = $campaign AND hardware_type = $hardware_type AND status = 'ok'
GROUP BY config_id, run_id
