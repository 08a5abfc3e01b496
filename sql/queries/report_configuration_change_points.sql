-- report_configuration_change_points: the change-point rows (latest `change-points` run of
-- the campaign) of one configuration, per hardware type; a series without change points
-- has one row with position NULL. Parameters: $campaign, $config_id (NULL: every configuration of the campaign, for the site's
-- drill-downs), $hardware_type.
SELECT config_id, hardware_type, ordered_by, n_points, position, revision, revision_before,
       started_at, median_before, median_after, change_pct, ci_low_pct, ci_high_pct,
       p_value, alpha, direction, reason
FROM change_points
WHERE campaign = $campaign
    AND ($config_id IS NULL OR config_id = $config_id)
    AND ($hardware_type IS NULL OR hardware_type = $hardware_type)
ORDER BY config_id, hardware_type, position
