-- report_predecessor_effects: the predecessor section of the order-effects report
-- (beyond the paper): one row per configuration and hardware type from the
-- latest `predecessor-effects` job run of each campaign (table predecessor_effects,
-- declared in perfwarehouse/warehouse/contracts.py), with the worst predecessor's median CI as % of the median after
-- any other test. Parameters: $campaign (NULL: every campaign).
SELECT
    p.campaign, p.hardware_type, p.config_id, p.benchmark, p.settings, p.metric, p.unit,
    p.higher_is_better, p.alpha, p.m,
    p.n_random, p.n_predecessors, p.kw_p, p.eta2, p.reject_bonferroni,
    p.worst_predecessor_benchmark, p.worst_predecessor_settings, p.worst_is_run_start,
    p.worst_n, p.rest_n, p.median_shift_pct AS shift_pct,
    (p.worst_ci_low - p.rest_median) / nullif(abs(p.rest_median), 0) * 100 AS low_pct,
    (p.worst_ci_high - p.rest_median) / nullif(abs(p.rest_median), 0) * 100 AS high_pct,
    p.ci_case, p.mwu_p_adjusted
FROM predecessor_effects AS p
WHERE ($campaign IS NULL OR p.campaign = $campaign)
ORDER BY p.campaign, p.hardware_type, p.benchmark, p.settings, p.metric
