-- bisect_change_points: the change points of the latest `change-points` run of every
-- campaign (view change_points, position not NULL), numbered 1, 2, ... in the order of
-- the history page's list (largest |change| first): `perfwarehouse bisect --change-point N`
-- takes the good and bad revisions of row N. Parameters: $campaign, $benchmark (NULL: any).
SELECT row_number() OVER (ORDER BY abs(change_pct) DESC NULLS LAST, campaign, hardware_type,
                                   benchmark, settings, metric, position) AS id,
       campaign, hardware_type, benchmark, settings, metric, unit, higher_is_better,
       revision_before, revision, revision_time, change_pct, ci_low_pct, ci_high_pct,
       direction
FROM change_points
WHERE position IS NOT NULL
  AND ($campaign::VARCHAR IS NULL OR campaign = $campaign::VARCHAR)
  AND ($benchmark::VARCHAR IS NULL OR benchmark = $benchmark::VARCHAR)
ORDER BY id
