-- report_triscale_profile: the environment profiles (Jacob et al. (TriScale, JSys 2021), §4.6) of the latest
-- `profile` job run of each campaign: one row per hardware type (or node), with its
-- seasonal periods. Parameters: $campaign (NULL: every campaign).
SELECT p.campaign, p.hardware_type, p.node, p.job_run_id, p.trials, p.n_bins, p.step_s,
       p.converged, p.band, p.seasonal_periods, p.seasonal_period_s
FROM triscale_profile AS p
WHERE ($campaign IS NULL OR p.campaign = $campaign)
ORDER BY len(p.seasonal_periods) DESC, p.campaign, p.hardware_type, p.node
