-- report_triscale_run_values: the measurements of one trial (a TriScale run) in
-- iteration order, for Figure 3a of Jacob et al. (TriScale, JSys 2021). Parameters: $campaign, $hardware_type,
-- $config_id, $run_id, $position.
SELECT iteration, value
FROM measurements
WHERE campaign = $campaign AND hardware_type = $hardware_type AND config_id = $config_id
  AND run_id = $run_id AND position = $position AND status = 'ok'
  AND value IS NOT NULL AND isfinite(value)
ORDER BY iteration
