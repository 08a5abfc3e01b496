-- measurement_rows: explode a staged batch (table staged_trials, one row per
-- trial with a values list) into the rows stored in Parquet, one per value.
-- campaign and hardware_type become the hive partition directories; rows keep
-- the input's order (usually time order), which is what time-range reads want.
SELECT
    campaign, hardware_type, node, benchmark, settings, metric, unit, higher_is_better,
    config_id, run_id, run_index, order_kind, seed, position, status,
    CAST(generate_subscripts("values", 1) - 1 AS INTEGER) AS iteration,
    started_at, duration_s,
    CAST(unnest("values") AS DOUBLE) AS value,
    CAST($batch_id AS BIGINT) AS batch_id,
    revision, revision_time, CAST(attributes AS JSON) AS attributes
FROM staged_trials
