-- surface_peak_rates: the peak rates the workbench controller found in one partition
-- (records of metric $metric, `peak_rate` by default, written by `agent peak-rate` and
-- `agent surface`; job `surface`): status 'ok' (the search met its target) or 'budget'
-- (a budget ran out; the value is the best estimate). Parameters: $campaign,
-- $hardware_type, $metric.
SELECT campaign, hardware_type, benchmark, settings, run_id, status, value
FROM measurements
WHERE campaign = $campaign AND hardware_type = $hardware_type AND metric = $metric
  AND status IN ('ok', 'budget') AND value IS NOT NULL AND isfinite(value)
