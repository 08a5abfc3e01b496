-- trial_rows: rows of valueless_trials for a staged batch (trials with values
-- are stored in Parquet only).
SELECT campaign, hardware_type, run_id, position, config_id, status, started_at, duration_s,
       CAST($batch_id AS BIGINT) AS batch_id, revision, revision_time,
       CAST(attributes AS JSON) AS attributes
FROM staged_trials
WHERE len("values") = 0
