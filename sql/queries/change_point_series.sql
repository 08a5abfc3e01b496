-- change_point_series: one partition's series for `analyze change-points`: per
-- configuration, one row per successful trial (campaign, run_id, position, config_id)
-- with the median of its values. The job orders each series by the revision's time then
-- the trial's start ($by = 'revision': order_time is the revision time; trials without
-- one last, by start) or by start only ($by = 'time': order_time is NULL; a trial
-- without a start time, whose file held none, is left out: it has no place in time, and
-- the job's summary counts such trials, Job.over_time): its Job.row_order, applied after
-- reading (an aggregate's rows come in no order). node and attributes (JSON text) feed
-- the mixing detectors (perfwarehouse/stats/mixing.py: which key separates the groups).
-- Parameters: $campaign, $hardware_type, $by.
SELECT campaign, hardware_type, config_id, any_value(benchmark) AS benchmark,
       any_value(settings) AS settings, any_value(metric) AS metric,
       any_value(unit) AS unit, any_value(higher_is_better) AS higher_is_better,
       any_value(revision) AS revision, any_value(revision_time) AS revision_time,
       CASE WHEN $by = 'revision' THEN any_value(revision_time) END AS order_time,
       min(started_at) AS started_at, run_id, position, median(value) AS value,
       any_value(node) AS node, CAST(any_value(attributes) AS VARCHAR) AS attributes
FROM measurements
WHERE campaign = $campaign AND hardware_type = $hardware_type
  AND status = 'ok' AND value IS NOT NULL AND isfinite(value)
GROUP BY campaign, hardware_type, config_id, run_id, position
HAVING $by = 'revision' OR min(started_at) IS NOT NULL
