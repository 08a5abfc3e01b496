-- report_aa_fpr_summary: the A/A false-positive rates (Laaber et al. (PeerJ Preprints 2018),
-- §4.2.1) of the latest `aa-fpr` job run of each campaign (table aa_fpr), in percent, as
-- the variability page draws them: per sampling strategy and number of nodes, the
-- minimum, quartiles (linear interpolation) and maximum over every configuration and
-- hardware type (q0..q4, over n cells), and the cells without a rate (too few nodes to
-- draw the groups). Aggregated here, not in Python: 10^6 configurations have 8M rows.
-- Parameters: $campaign (NULL: every campaign).
SELECT
    a.strategy, a.n_nodes,
    min(a.fp_rate * 100) AS q0,
    quantile_cont(a.fp_rate * 100, 0.25) AS q1,
    quantile_cont(a.fp_rate * 100, 0.5) AS q2,
    quantile_cont(a.fp_rate * 100, 0.75) AS q3,
    max(a.fp_rate * 100) AS q4,
    count(a.fp_rate) AS n,
    count(*) - count(a.fp_rate) AS missing
FROM aa_fpr AS a
WHERE ($campaign IS NULL OR a.campaign = $campaign)
GROUP BY a.strategy, a.n_nodes
ORDER BY a.strategy, a.n_nodes
