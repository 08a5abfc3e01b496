-- laaber_measurements: one partition's successful measurements for the analyses of
-- Laaber et al. (PeerJ Preprints 2018), §4 (jobs variability, aa-fpr, detectable-regression).
-- Unordered: the jobs group the rows by configuration, node name, run name and value
-- themselves (perfwarehouse.laaber.partition_from_arrow), which is cheaper than sorting
-- the string columns here, and makes every number independent of the scan order.
-- Parameters: $campaign, $hardware_type.
SELECT campaign, hardware_type, config_id, benchmark, settings, metric, unit,
       higher_is_better, node, run_id, value
FROM measurements
WHERE campaign = $campaign AND hardware_type = $hardware_type
  AND status = 'ok' AND value IS NOT NULL AND isfinite(value)
