-- report_detectable_counts: the minimal detectable regressions (Laaber et al. (PeerJ
-- Preprints 2018), §4.2.2) of the latest `detectable-regression` job run of each campaign,
-- counted: how many configuration × hardware-type cells have each strategy, number of
-- nodes, status, detectable regression and direction (n), and the strategy's
-- configurations (configs). What the variability page's verdict, distributions and
-- counts need, without a row per cell (5 per configuration: 5M rows at 10^6
-- configurations, issue 44). Parameters: $campaign (NULL: every campaign).
WITH d AS (
    SELECT strategy, n_nodes, status, detectable_pct, higher_is_better, benchmark, settings,
           metric
    FROM detectable_regression
    WHERE ($campaign IS NULL OR campaign = $campaign)
), k AS (
    SELECT strategy, count(DISTINCT (benchmark, settings, metric)) AS configs
    FROM d GROUP BY strategy
)
SELECT d.strategy, d.n_nodes, d.status, d.detectable_pct, d.higher_is_better,
       count(*) AS n, any_value(k.configs) AS configs
FROM d JOIN k USING (strategy)
GROUP BY d.strategy, d.n_nodes, d.status, d.detectable_pct, d.higher_is_better
ORDER BY ALL
