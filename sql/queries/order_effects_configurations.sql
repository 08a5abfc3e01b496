-- order_effects_configurations: one row per (campaign, hardware type,
-- configuration) of the measurements: its names, its family of comparisons and
-- how many successful fixed- and random-order values it has. The prepare step
-- of the order-effects and predecessor-effects jobs reads it once, before the
-- per-campaign computation, to size every family (m, SPEC 5.1) and to name the
-- configurations. row_key = hash(campaign, hardware_type) XOR config_id is
-- what the per-campaign queries return instead of the three (the jobs check
-- that it is unique among the configurations, so it identifies each one).
-- $family_column is one of a whitelist checked in Python
-- ('campaign', 'benchmark', 'metric', 'unit', 'higher_is_better',
-- 'hardware_type', 'settings'); for 'settings' the family is the value at the
-- JSON path $settings_path of the configuration's settings.
SELECT
    campaign,
    hardware_type,
    hash(campaign, hardware_type) AS partition_key,
    xor(hash(campaign, hardware_type), config_id) AS row_key,
    config_id,
    hash(any_value(benchmark), any_value(settings)) AS test_key,
    any_value(benchmark) AS benchmark,
    any_value(settings) AS settings,
    any_value(metric) AS metric,
    any_value(unit) AS unit,
    any_value(higher_is_better) AS higher_is_better,
    CASE $family_column
        WHEN 'campaign' THEN campaign
        WHEN 'benchmark' THEN any_value(benchmark)
        WHEN 'metric' THEN any_value(metric)
        WHEN 'unit' THEN any_value(unit)
        WHEN 'higher_is_better' THEN CAST(any_value(higher_is_better) AS VARCHAR)
        WHEN 'hardware_type' THEN hardware_type
        WHEN 'settings' THEN json_extract_string(any_value(settings), $settings_path)
    END AS family,
    count(*) - count_if(order_kind = 'random') AS n_fixed,  -- ingest admits fixed | random
    count_if(order_kind = 'random') AS n_random
FROM measurements
WHERE status = 'ok'
GROUP BY campaign, hardware_type, config_id
ORDER BY campaign, hardware_type, config_id
