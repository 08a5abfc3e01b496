-- report_configuration_trials: one configuration's trials over time (the median of each
-- successful trial's values, as the trends job takes them), per hardware type, with the
-- trial's start in seconds since the epoch. Parameters: $campaign, $config_id,
-- $hardware_type (NULL: every hardware type).
SELECT hardware_type, any_value(order_kind) AS order_kind, run_id, position,
       epoch(min(started_at)) AS t, median(value) AS value
FROM measurements
WHERE campaign = $campaign AND config_id = $config_id AND status = 'ok'
    AND value IS NOT NULL AND isfinite(value)
    AND ($hardware_type IS NULL OR hardware_type = $hardware_type)
GROUP BY hardware_type, run_id, position
ORDER BY hardware_type, t
