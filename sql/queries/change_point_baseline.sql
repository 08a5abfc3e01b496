-- change_point_baseline: for `analyze change-points --baseline B` (a paired baseline, as
-- Go's benchseries divides tip by baseline to cancel machine drift): per campaign,
-- hardware type, run and metric, the median over benchmark B's trials in that run of each
-- trial's median value: the divisor of every other series' trials of that run. Empty,
-- without reading a file, when no baseline is asked ($baseline NULL).
-- Parameters: $baseline.
SELECT campaign, hardware_type, run_id, metric, median(value) AS baseline
FROM (
    SELECT campaign, hardware_type, run_id, any_value(metric) AS metric,
           median(value) AS value
    FROM measurements
    WHERE $baseline IS NOT NULL AND benchmark = $baseline
      AND status = 'ok' AND value IS NOT NULL AND isfinite(value)
    GROUP BY campaign, hardware_type, config_id, run_id, position
)
GROUP BY campaign, hardware_type, run_id, metric
