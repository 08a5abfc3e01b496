-- order_effects_names: the prepare step of the order-effects job, which reads no
-- measurement value (the job scans the measurements once, in its per-campaign
-- query): kind 'configuration', one row per configuration of the (small)
-- configurations table with its names and, when --family-by names an attribute
-- of the configuration, its family; kind 'partition', one row per (campaign,
-- hardware type) of the measurements (their files' partition keys) with
-- partition_key = hash(campaign, hardware_type), which the per-campaign query's
-- row_key = partition_key XOR config_id is matched against.
-- $family_column is one of a whitelist checked in Python (see
-- order_effects_configurations.sql); 'campaign' and 'hardware_type' families are
-- filled in by the job.
SELECT
    'configuration' AS kind, NULL::VARCHAR AS campaign, NULL::VARCHAR AS hardware_type,
    NULL::UBIGINT AS partition_key, config_id, benchmark, settings, metric, unit,
    higher_is_better,
    CASE $family_column
        WHEN 'benchmark' THEN benchmark
        WHEN 'metric' THEN metric
        WHEN 'unit' THEN unit
        WHEN 'higher_is_better' THEN CAST(higher_is_better AS VARCHAR)
        WHEN 'settings' THEN json_extract_string(settings, $settings_path)
    END AS family
FROM configurations
UNION ALL
SELECT DISTINCT
    'partition', campaign, hardware_type, hash(campaign, hardware_type), NULL, NULL, NULL,
    NULL, NULL, NULL, NULL
FROM measurements
