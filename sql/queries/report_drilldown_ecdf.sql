-- report_drilldown_ecdf: the ECDF of every configuration of a campaign as the site's
-- drill-downs draw it (perfwarehouse.reports.drilldown): per configuration, hardware type
-- and order kind, the successful values at $points evenly spaced ranks (the smallest and
-- the largest kept; all of them when there are at most $points), each with its rank
-- (from 0) and the group's size n, so its ECDF height is (rank + 1) / n. Thinned here, not
-- in Python: the demo's long-term campaign has 2.3M values. Parameters: $campaign, $points.
WITH v AS (
    SELECT config_id, hardware_type, order_kind, value,
           row_number() OVER (PARTITION BY config_id, hardware_type, order_kind
                              ORDER BY value) - 1 AS rank,
           count(*) OVER (PARTITION BY config_id, hardware_type, order_kind) AS n
    FROM measurements
    WHERE campaign = $campaign AND status = 'ok' AND value IS NOT NULL AND isfinite(value)
)
SELECT config_id, hardware_type, order_kind, value, rank, n
FROM v
WHERE n <= $points OR rank = n - 1
    OR abs(round(rank / ((n - 1) / ($points - 1))) * ((n - 1) / ($points - 1)) - rank) < 0.5
ORDER BY config_id, hardware_type, order_kind, rank
