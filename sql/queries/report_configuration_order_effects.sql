-- report_configuration_order_effects: the order-effects rows (latest `order-effects` run of
-- the campaign) of one configuration, per hardware type. Parameters: $campaign,
-- $config_id (NULL: every configuration of the campaign, for the site's
-- drill-downs), $hardware_type (NULL: every hardware type).
SELECT config_id, hardware_type, n_fixed, n_random, kw_p, p_adjusted, alpha, m, correction,
       reject_adjusted AS significant, reject_bonferroni, eta2, delta_pct, delta_median_pct,
       median_fixed, ci_fixed_low, ci_fixed_high, median_random, ci_random_low,
       ci_random_high, ci_case, ci_confidence
FROM order_effects
WHERE campaign = $campaign
    AND ($config_id IS NULL OR config_id = $config_id)
    AND ($hardware_type IS NULL OR hardware_type = $hardware_type)
ORDER BY config_id, hardware_type
