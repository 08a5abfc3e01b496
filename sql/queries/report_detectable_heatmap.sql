-- report_detectable_heatmap: the rows of the variability page's detectable-regression
-- heatmaps (Laaber et al. (PeerJ Preprints 2018), Tables 6-7) from the latest
-- `detectable-regression` job run of each campaign, and each strategy's configurations
-- (configs): every row of a strategy of at most $max_configs configurations (a row per
-- configuration); else the rows that are not 'insufficient' of the first $max_benchmarks
-- benchmarks by name that have such rows (the heatmap shows the median configuration of
-- each). The counts come from report_detectable_counts. Parameters: $campaign (NULL:
-- every campaign), $max_configs, $max_benchmarks.
WITH d AS (
    SELECT hardware_type, benchmark, settings, metric, higher_is_better, strategy, n_nodes,
           detectable_pct, status
    FROM detectable_regression
    WHERE ($campaign IS NULL OR campaign = $campaign)
), k AS (
    SELECT strategy, count(DISTINCT (benchmark, settings, metric)) AS configs
    FROM d GROUP BY strategy
), b AS (
    SELECT strategy, benchmark,
           row_number() OVER (PARTITION BY strategy ORDER BY benchmark) AS i
    FROM (SELECT DISTINCT strategy, benchmark FROM d WHERE status <> 'insufficient')
)
SELECT d.*, k.configs
FROM d JOIN k USING (strategy) LEFT JOIN b USING (strategy, benchmark)
WHERE k.configs <= $max_configs OR (d.status <> 'insufficient' AND b.i <= $max_benchmarks)
ORDER BY d.strategy, d.benchmark, d.settings, d.metric, d.n_nodes, d.hardware_type
