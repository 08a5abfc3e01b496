-- report_configuration_variability: the variability rows (latest `variability` run of the
-- campaign; Laaber et al. §4.1) of one configuration, per hardware type. Parameters:
-- $campaign, $config_id (NULL: every configuration of the campaign, for the site's
-- drill-downs), $hardware_type (NULL: every hardware type).
SELECT config_id, hardware_type, n_values, n_outliers, n_nodes, n_runs, mean, median, rsd_total_pct,
       rsd_node_mean_pct, rsd_run_mean_pct, share_nodes_pct, share_runs_pct,
       share_within_pct, reason
FROM variability
WHERE campaign = $campaign
    AND ($config_id IS NULL OR config_id = $config_id)
    AND ($hardware_type IS NULL OR hardware_type = $hardware_type)
ORDER BY config_id, hardware_type
