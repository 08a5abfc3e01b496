-- report_fleet_trials: one row per successful trial that started in the previous
-- period [$prev_since, $since) or in the reported one [$since, $until), for the fleet
-- report: its configuration, order kind, start (seconds since the epoch), and
-- value (the median of its measurements, so a trial counts once however many
-- iterations it has). Sorted so that each configuration's trials of one period are
-- contiguous and in time order. Parameters: $campaign (NULL: every campaign),
-- $prev_since, $since, $until (TIMESTAMPTZ).
SELECT
    campaign, hardware_type, config_id,
    CAST(min(started_at) >= $since AS INTEGER) AS period,
    CAST(any_value(order_kind) = 'random' AS INTEGER) AS is_random,
    epoch(min(started_at)) AS started_s,
    median(value) AS value
FROM measurements
WHERE ($campaign IS NULL OR campaign = $campaign)
  AND status = 'ok' AND value IS NOT NULL AND isfinite(value)
  AND started_at >= $prev_since AND started_at < $until
GROUP BY campaign, hardware_type, config_id, run_id, position
ORDER BY campaign, hardware_type, config_id, period, started_s
