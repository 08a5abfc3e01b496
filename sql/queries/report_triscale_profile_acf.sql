-- report_triscale_profile_acf: the autocorrelation at lags up to a third of the series
-- (where TriScale looks for seasonal peaks) of the profiles of the latest `profile` job run
-- of each campaign. Parameters: $campaign (NULL: every campaign).
SELECT a.campaign, a.hardware_type, a.node, a.lag, a.lag_s, a.acf, a.band
FROM triscale_profile_acf AS a
JOIN triscale_profile AS p
    ON p.job_run_id = a.job_run_id AND p.campaign = a.campaign
   AND p.hardware_type = a.hardware_type AND p.node IS NOT DISTINCT FROM a.node
WHERE ($campaign IS NULL OR a.campaign = $campaign) AND a.lag <= p.n_bins / 3
ORDER BY a.campaign, a.hardware_type, a.node, a.lag
