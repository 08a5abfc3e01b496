-- report_configuration_trends: the Theil-Sen trend rows (latest `trends` run of the
-- campaign) of one configuration, per hardware type. Parameters: $campaign, $config_id (NULL: every configuration of the campaign, for the site's
-- drill-downs),
-- $hardware_type (NULL: every hardware type).
SELECT config_id, hardware_type, n, median, first_s, last_s, slope_per_day, slope_pct_per_30d,
       ci_low_pct_per_30d, ci_high_pct_per_30d, confidence, drifting
FROM trends
WHERE campaign = $campaign
    AND ($config_id IS NULL OR config_id = $config_id)
    AND ($hardware_type IS NULL OR hardware_type = $hardware_type)
ORDER BY config_id, hardware_type
