-- report_detectable_regression_curve: the mean false- and true-positive rates (in
-- percent) over all configurations and hardware types, per campaign, strategy, number
-- of nodes and tested regression r (Laaber et al. (PeerJ Preprints 2018) Figures 6-7), from the latest
-- `detectable-regression` job run of each campaign (table detectable_regression_curve).
-- Parameters: $campaign (NULL: every campaign).
SELECT
    c.campaign, c.strategy, c.n_nodes, c.r_pct,
    avg(c.fp_rate) * 100 AS fp_rate_pct, avg(c.tp_rate) * 100 AS tp_rate_pct,
    count(*) AS n_combinations
FROM detectable_regression_curve AS c
WHERE ($campaign IS NULL OR c.campaign = $campaign)
GROUP BY c.campaign, c.strategy, c.n_nodes, c.r_pct
ORDER BY c.campaign, c.strategy, c.n_nodes, c.r_pct
