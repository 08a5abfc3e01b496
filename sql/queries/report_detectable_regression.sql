-- report_detectable_regression: the minimal detectable regression per configuration,
-- hardware type, strategy and number of nodes (seed 001 section 4.2.2, Tables 6-7;
-- SPEC 5.3) from the latest `detectable-regression` job run of each campaign (table
-- detectable_regression). status: detectable | none | insufficient.
-- Parameters: $campaign (NULL: every campaign).
WITH latest AS (
    SELECT campaign, max(job_run_id) AS job_run_id
    FROM (SELECT job_run_id, unnest(campaigns) AS campaign
          FROM job_runs WHERE job = 'detectable-regression')
    WHERE $campaign IS NULL OR campaign = $campaign
    GROUP BY campaign
)
SELECT
    d.campaign, d.hardware_type, d.benchmark, d.settings, d.metric, d.unit,
    d.strategy, d.n_nodes, d.trials_per_node, d.detectable_pct, d.status, d.reason
FROM detectable_regression AS d
JOIN latest AS l ON d.campaign = l.campaign AND d.job_run_id = l.job_run_id
ORDER BY d.campaign, d.strategy, d.benchmark, d.settings, d.metric, d.n_nodes, d.hardware_type
