-- staged_trials: the valid records of a batch, typed, with their config_id
-- (_configs maps benchmark/settings/metric to the id computed in Python).
-- A view, so the bulk of a batch is never copied; record_id is the rowid of
-- the record in raw_trials.
CREATE OR REPLACE TEMP VIEW staged_trials AS
SELECT
    r.rowid AS record_id, r.source, r.line, r.campaign, r.run_id, r.node, r.hostname,
    r.hardware_type, r.hardware_type_rule, CAST(r.run_index AS INTEGER) AS run_index,
    r.order_kind, r.seed, CAST(r.position AS INTEGER) AS position,
    CAST(r.run_size AS INTEGER) AS run_size, r.benchmark, r.settings, r.metric, r.unit,
    r.higher_is_better, c.config_id, r."values", r.started_at, r.duration_s, r.status, r.env,
    r.revision, r.revision_time, r.attributes
FROM raw_trials r
JOIN _configs c USING (benchmark, settings, metric)
