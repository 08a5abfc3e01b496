-- report_history_changes: every row of the latest `change-points` job run of each
-- campaign (table change_points): the change points (position not NULL) and the series
-- without any (with the reason), and each change point's shift (step, level shift,
-- tail; NULL for runs before 081f) and mixed (what the series mixes; 081g). Parameters: $campaign (NULL: every campaign).
SELECT c.campaign, c.hardware_type, c.config_id, c.benchmark, c.settings, c.metric, c.unit,
       c.higher_is_better, c.ordered_by, c.n_points, c.position, c.revision, c.revision_time,
       c.started_at, c.revision_before, c.n_before, c.n_after, c.median_before,
       c.median_after, c.change_pct, c.ci_low_pct, c.ci_high_pct, c.confidence, c.p_value,
       c.alpha, c.direction, c.reason, c.shift, c.action, c.mixed
FROM change_points AS c
WHERE ($campaign IS NULL OR c.campaign = $campaign)
ORDER BY abs(c.change_pct) DESC NULLS LAST, c.campaign, c.hardware_type, c.benchmark,
         c.settings, c.metric, c.position
