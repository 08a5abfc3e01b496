-- refresh_findings: what the analyses found, as they stood at a point: for each job and
-- campaign its newest run with job_run_id <= $job_run and started before $until (NULL:
-- any time), the steps of change-points that need action (shift 'step', or NULL for runs
-- before 081f; action: the interval beyond +-min_effect and not a mixed series, NULL for
-- runs before it: regression or improvement), the configurations whose order matters
-- (order-effects:
-- its Kruskal-Wallis test rejects at the family-wise level, as the order-effects page counts)
-- and those drifting (trends); and the inconclusive rows of the comparisons kept with
-- comparison_id <= $comparison and created before $until. One row per finding; key
-- identifies it across points; position: a change point's index in its series (NULL for
-- the other kinds). Parameters: $job_run, $comparison, $until.
WITH runs AS (
    SELECT job, unnest(campaigns) AS campaign, job_run_id FROM job_runs
    WHERE job_run_id <= $job_run AND ($until IS NULL OR started_at < $until)
), latest AS (
    SELECT job, campaign, max(job_run_id) AS job_run_id FROM runs GROUP BY job, campaign
)
SELECT c.direction AS kind, c.campaign, c.hardware_type, c.benchmark, c.config_id,
       c.settings, c.metric, c.revision, c.revision_before, c.change_pct,
       c.ci_low_pct, c.ci_high_pct, c.job_run_id, c.position,
       concat_ws('|', c.direction, c.campaign, c.hardware_type, c.config_id, c.revision) AS key
FROM change_points_history AS c
JOIN latest AS l ON l.job = 'change-points' AND l.campaign = c.campaign
                AND l.job_run_id = c.job_run_id
WHERE c.position IS NOT NULL AND coalesce(c.shift, 'step') = 'step'
  AND coalesce(c.action, true) AND c.direction IN ('regression', 'improvement')
UNION ALL
SELECT 'order-dependence', o.campaign, o.hardware_type, o.benchmark, o.config_id,
       o.settings, o.metric, NULL, NULL, o.delta_median_pct, NULL, NULL, o.job_run_id, NULL,
       concat_ws('|', 'order-dependence', o.campaign, o.hardware_type, o.config_id)
FROM order_effects_history AS o
JOIN latest AS l ON l.job = 'order-effects' AND l.campaign = o.campaign
                AND l.job_run_id = o.job_run_id
WHERE o.reject_adjusted
UNION ALL
SELECT 'drift', t.campaign, t.hardware_type, t.benchmark, t.config_id, t.settings,
       t.metric, NULL, NULL, t.slope_pct_per_30d, t.ci_low_pct_per_30d,
       t.ci_high_pct_per_30d, t.job_run_id, NULL,
       concat_ws('|', 'drift', t.campaign, t.hardware_type, t.config_id,
                 CASE WHEN t.slope_pct_per_30d < 0 THEN 'down' ELSE 'up' END)
FROM trends_history AS t
JOIN latest AS l ON l.job = 'trends' AND l.campaign = t.campaign
                AND l.job_run_id = t.job_run_id
WHERE t.drifting
UNION ALL
SELECT 'inconclusive', p.contender_campaign, p.hardware_type, p.benchmark, p.config_id,
       p.settings, p.metric, p.contender_revision, p.baseline_revision, p.change_pct,
       p.ci_low_pct, p.ci_high_pct, NULL, NULL,
       concat_ws('|', 'inconclusive', p.comparison_id, p.hardware_type, p.config_id)
FROM comparisons AS p
WHERE p.verdict = 'inconclusive' AND p.comparison_id <= $comparison
  AND ($until IS NULL OR p.created_at < $until)
ORDER BY 1, 2, 3, 4, 5
