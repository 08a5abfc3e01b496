-- report_order_effects: the order-effects report's rows (Duplyakin et al. (OrderSage, USENIX ATC 2023), §3 and §5):
-- one row per configuration and hardware type from the latest
-- `order-effects` job run of each campaign (table order_effects, declared in perfwarehouse/warehouse/contracts.py).
-- Parameters: $campaign (NULL: every campaign).
SELECT
    o.campaign, o.hardware_type, o.config_id, o.benchmark, o.settings, o.metric,
    o.unit, o.higher_is_better, o.family,
    o.n_fixed, o.n_random, o.kw_h, o.kw_p, o.reject_alpha, o.reject_bonferroni,
    o.eta2, o.delta_pct, o.delta_median_pct,
    o.median_fixed, o.ci_fixed_low, o.ci_fixed_high,
    o.median_random, o.ci_random_low, o.ci_random_high, o.ci_case,
    o.alpha, o.m, o.ci_confidence
FROM order_effects AS o
WHERE ($campaign IS NULL OR o.campaign = $campaign)
ORDER BY o.campaign, o.hardware_type, o.benchmark, o.settings, o.metric
