-- change_point_series: one partition's series for `analyze change-points`: per
-- configuration, one row per successful trial (campaign, run_id, position, config_id)
-- with the median of its values. The job orders each series by the revision's time then
-- the trial's start ($by = 'revision': order_time is the revision time; trials without
-- one last, by start) or by start only ($by = 'time': order_time is NULL; a trial
-- without a start time, whose file held none, is left out: it has no place in time, and
-- the job's summary counts such trials, Job.over_time): its Job.row_order, applied after
-- reading (an aggregate's rows come in no order). node and attributes (JSON text) feed
-- the mixing detectors (perfwarehouse/stats/mixing.py: which key separates the groups).
-- The names (benchmark ... higher_is_better) join from the reader's configurations table
-- after the grouping (carried through it as any_value, they cost a third of the query:
-- 1.42 -> 0.95 CPU s on a 1M-trial partition of the demo); a LEFT JOIN, so that a
-- catalog missing a configuration loses no trial (its names are NULL).
-- Parameters: $campaign, $hardware_type, $by.
WITH trials AS (
    SELECT campaign, hardware_type, config_id,
           any_value(revision) AS revision, any_value(revision_time) AS revision_time,
           CASE WHEN $by = 'revision' THEN any_value(revision_time) END AS order_time,
           min(started_at) AS started_at, run_id, position, median(value) AS value,
           any_value(node) AS node, CAST(any_value(attributes) AS VARCHAR) AS attributes
    FROM measurements
    WHERE campaign = $campaign AND hardware_type = $hardware_type
      AND status = 'ok' AND value IS NOT NULL AND isfinite(value)
    GROUP BY campaign, hardware_type, config_id, run_id, position
    HAVING $by = 'revision' OR min(started_at) IS NOT NULL
)
SELECT t.campaign, t.hardware_type, t.config_id, c.benchmark,
       CAST(c.settings AS VARCHAR) AS settings, c.metric, c.unit, c.higher_is_better,
       t.revision, t.revision_time, t.order_time, t.started_at, t.run_id, t.position, t.value,
       t.node, t.attributes
FROM trials t LEFT JOIN configurations c USING (config_id)
