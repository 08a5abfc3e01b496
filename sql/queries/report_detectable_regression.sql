-- report_detectable_regression: the minimal detectable regression per configuration,
-- hardware type, strategy and number of nodes (Laaber et al. (PeerJ Preprints 2018), §4.2.2, Tables 6-7)
-- from the latest `detectable-regression` job run of each campaign (table
-- detectable_regression). status: detectable | none | insufficient.
-- Parameters: $campaign (NULL: every campaign).
SELECT
    d.campaign, d.hardware_type, d.benchmark, d.settings, d.metric, d.unit, d.higher_is_better,
    d.strategy, d.n_nodes, d.trials_per_node, d.detectable_pct, d.status, d.reason
FROM detectable_regression AS d
WHERE ($campaign IS NULL OR d.campaign = $campaign)
ORDER BY d.campaign, d.strategy, d.benchmark, d.settings, d.metric, d.n_nodes, d.hardware_type
