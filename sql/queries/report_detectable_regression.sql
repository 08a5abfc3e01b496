-- report_detectable_regression: the minimal detectable regression per configuration,
-- hardware type, strategy and number of nodes (Laaber et al. (PeerJ Preprints 2018), §4.2.2, Tables 6-7)
-- from the latest `detectable-regression` job run of each campaign (table
-- detectable_regression). status: detectable | none | insufficient.
-- Only the columns the variability page uses (5 rows per configuration: 5M rows at 10^6
-- configurations, issue 44). Parameters: $campaign (NULL: every campaign).
SELECT
    d.hardware_type, d.benchmark, d.settings, d.metric, d.higher_is_better,
    d.strategy, d.n_nodes, d.detectable_pct, d.status
FROM detectable_regression AS d
WHERE ($campaign IS NULL OR d.campaign = $campaign)
ORDER BY d.campaign, d.strategy, d.benchmark, d.settings, d.metric, d.n_nodes, d.hardware_type
