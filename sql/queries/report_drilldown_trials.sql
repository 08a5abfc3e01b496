-- report_drilldown_trials: the trials over time of every configuration of a campaign as
-- the site's drill-downs draw them (perfwarehouse.reports.drilldown): each successful
-- trial's median value and start (s since the epoch), as report_configuration_trials, at
-- most $points per configuration and hardware type, evenly spaced by time rank (the first
-- and the last kept). Parameters: $campaign, $points.
WITH t AS (
    SELECT config_id, hardware_type, any_value(order_kind) AS order_kind,
           epoch(min(started_at)) AS t, median(value) AS value
    FROM measurements
    WHERE campaign = $campaign AND status = 'ok' AND value IS NOT NULL AND isfinite(value)
    GROUP BY config_id, hardware_type, run_id, position
), r AS (
    SELECT *, row_number() OVER (PARTITION BY config_id, hardware_type ORDER BY t) - 1 AS rank,
           count(*) OVER (PARTITION BY config_id, hardware_type) AS n
    FROM t
)
SELECT config_id, hardware_type, order_kind, t, value, rank, n
FROM r
WHERE n <= $points OR rank = n - 1
    OR abs(round(rank / ((n - 1) / ($points - 1))) * ((n - 1) / ($points - 1)) - rank) < 0.5
ORDER BY config_id, hardware_type, t
