-- compare_trials: the trial values of one side of `perfwarehouse compare`: one row per
-- successful trial (campaign, run_id, position, config_id) of the side's campaign and
-- revision (all revisions when $revision is NULL), the median of its values. {where} is
-- the side's --where filter over the columns of `measurements` (TRUE when none).
-- `values` lists the trial's values in iteration order (the tool's own repetitions: a
-- hyperfine export's runs, JMH's iterations of a fork), used where a side has too few
-- trials to decide on (perfwarehouse.compare.MIN_TRIALS).
SELECT hardware_type, config_id, any_value(benchmark) AS benchmark,
       any_value(settings) AS settings, any_value(metric) AS metric, any_value(unit) AS unit,
       any_value(higher_is_better) AS higher_is_better, median(value) AS value,
       list(value ORDER BY iteration) AS "values"
FROM measurements
WHERE campaign = $campaign
  AND ($revision::VARCHAR IS NULL OR revision = $revision::VARCHAR)
  AND status = 'ok'
  AND ({where})
GROUP BY campaign, hardware_type, run_id, position, config_id
