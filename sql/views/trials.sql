-- trials: one row per trial: the trials with values, from the
-- measurements, and the value-less ones (failed tests). Identity: (campaign,
-- run_id, position, config_id).
SELECT campaign, hardware_type, run_id, position, config_id, any_value(status) AS status,
       min(started_at) AS started_at, any_value(duration_s) AS duration_s,
       CAST(count(*) AS INTEGER) AS n_values, any_value(batch_id) AS batch_id,
       any_value(revision) AS revision, any_value(revision_time) AS revision_time,
       any_value(attributes) AS attributes
FROM measurements
GROUP BY campaign, hardware_type, run_id, position, config_id
UNION ALL
SELECT campaign, hardware_type, run_id, position, config_id, status, started_at, duration_s,
       0 AS n_values, batch_id, revision, revision_time, attributes
FROM valueless_trials
