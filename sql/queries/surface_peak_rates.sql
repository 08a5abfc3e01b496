-- surface_peak_rates: the peak rates the workbench controller found in one partition
-- (records of metric $metric, `peak_rate` by default, written by `agent peak-rate` and
-- `agent surface`; job `surface`). Parameters: $campaign, $hardware_type, $metric.
SELECT campaign, hardware_type, benchmark, settings, run_id, value
FROM measurements
WHERE campaign = $campaign AND hardware_type = $hardware_type AND metric = $metric
  AND status = 'ok' AND value IS NOT NULL AND isfinite(value)
