-- laaber_measurements: one partition's successful measurements for the analyses of
-- Laaber et al. (seed 001 section 4; jobs variability, aa-fpr, detectable-regression).
-- Rows come grouped configuration -> node -> run, the order the jobs cut into segments;
-- nodes and runs by name (so draws are reproducible), a run's values by size (so sums,
-- and so every number, do not depend on the order the values were stored in).
-- Parameters: $campaign, $hardware_type.
SELECT campaign, hardware_type, config_id, benchmark, settings, metric, unit,
       higher_is_better, node, run_id, value
FROM measurements
WHERE campaign = $campaign AND hardware_type = $hardware_type
  AND status = 'ok' AND value IS NOT NULL AND isfinite(value)
ORDER BY config_id, node, run_id, value
