-- report_aa_fpr: A/A false-positive rates (Laaber et al. (PeerJ Preprints 2018), §4.2.1) from the
-- latest `aa-fpr` job run of each campaign (table aa_fpr), fp_rate in percent.
-- Parameters: $campaign (NULL: every campaign).
SELECT
    a.campaign, a.hardware_type, a.benchmark, a.settings, a.metric,
    a.strategy, a.n_nodes, a.draws, a.alpha, a.fp_rate * 100 AS fp_rate_pct, a.reason
FROM aa_fpr AS a
WHERE ($campaign IS NULL OR a.campaign = $campaign)
ORDER BY a.campaign, a.strategy, a.n_nodes, a.hardware_type, a.benchmark
