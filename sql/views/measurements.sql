-- measurements: one row per measurement with every key; what jobs and
-- users query. Reads exactly the Parquet files recorded in data_files:
-- {parquet_files} is replaced by a list literal built from that table (paths the
-- warehouse wrote itself, quoted), so a batch becomes visible atomically.
-- {union_by_name} is ", union_by_name = true" while files of an older layout
-- (without revision, revision_time, attributes: NULL for them) are present.
SELECT
    campaign, hardware_type, node, benchmark, settings, metric, unit, higher_is_better,
    config_id, run_id, run_index, order_kind, seed, position, status, iteration,
    started_at, duration_s, value, batch_id, revision, revision_time, attributes
FROM read_parquet(
    {parquet_files},
    hive_partitioning = true,
    hive_types = {'campaign': VARCHAR, 'hardware_type': VARCHAR}{union_by_name}
)
