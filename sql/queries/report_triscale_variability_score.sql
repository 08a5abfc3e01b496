-- report_triscale_variability_score: variability scores across the sequels of each
-- configuration (Jacob et al. (TriScale, JSys 2021), §4.4) from the latest `variability-score` job
-- run of each campaign. Parameters: $campaign (NULL: every campaign).
SELECT v.campaign, v.hardware_type, v.config_id, v.benchmark, v.settings, v.metric, c.unit,
       v.percentile, v.confidence, v.low, v.high, v.score, v.relative_score AS relative,
       v.n_sequels AS n_series, v.independent
FROM triscale_variability AS v
LEFT JOIN configurations AS c ON c.config_id = v.config_id
WHERE ($campaign IS NULL OR v.campaign = $campaign)
ORDER BY v.campaign, v.hardware_type, v.benchmark, v.settings, v.metric
