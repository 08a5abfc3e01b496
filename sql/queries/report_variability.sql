-- report_variability: RSD per configuration and hardware type (Laaber et al. (PeerJ Preprints 2018), §4.1)
-- from the latest `variability` job run of each campaign (table
-- variability). Parameters: $campaign (NULL: every campaign).
SELECT
    v.campaign, v.hardware_type, v.config_id, v.benchmark, v.settings, v.metric, v.unit,
    v.n_values, v.n_outliers, v.n_nodes, v.n_runs, v.mean, v.median,
    v.rsd_total_pct, v.rsd_node_mean_pct, v.rsd_node_sd_pct,
    v.rsd_run_mean_pct, v.rsd_run_sd_pct,
    v.share_nodes_pct, v.share_runs_pct, v.share_within_pct, v.reason
FROM variability AS v
WHERE ($campaign IS NULL OR v.campaign = $campaign)
ORDER BY v.campaign, v.hardware_type, v.benchmark, v.settings, v.metric
