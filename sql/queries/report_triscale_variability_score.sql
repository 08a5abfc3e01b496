-- report_triscale_variability_score: variability scores across the sequels of each
-- configuration (Jacob et al. (TriScale, JSys 2021), §4.4) from the latest `variability-score` job
-- run of each campaign. Parameters: $campaign (NULL: every campaign).
WITH latest AS (
    SELECT campaign, job_run_id FROM latest_job_runs
    WHERE job = 'variability-score' AND ($campaign IS NULL OR campaign = $campaign)
)
SELECT v.campaign, v.hardware_type, v.benchmark, v.settings, v.metric, c.unit,
       v.percentile, v.confidence, v.low, v.high, v.score, v.relative_score AS relative,
       v.n_sequels AS n_series, v.independent
FROM triscale_variability AS v
JOIN latest AS l ON v.campaign = l.campaign AND v.job_run_id = l.job_run_id
LEFT JOIN configurations AS c ON c.config_id = v.config_id
ORDER BY v.campaign, v.hardware_type, v.benchmark, v.settings, v.metric
