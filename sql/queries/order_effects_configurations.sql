-- order_effects_configurations: one row per (campaign, hardware type,
-- configuration) of the measurements: its names (from the configurations table,
-- which the job runner provides), its family of comparisons and how many
-- successful fixed- and random-order values it has. The prepare step of the
-- order-effects and predecessor-effects jobs reads it once, before the
-- per-campaign computation, to size every family (m) and to name the
-- configurations. row_key = hash(campaign, hardware_type) XOR config_id is what
-- the per-campaign queries return instead of the three (the jobs check that it
-- is unique among the configurations, so it identifies each one).
-- $family_column is one of a whitelist checked in Python
-- ('campaign', 'benchmark', 'metric', 'unit', 'higher_is_better',
-- 'hardware_type', 'settings'); for 'settings' the family is the value at the
-- JSON path $settings_path of the configuration's settings.
WITH counts AS (  -- numbers only: the names come from the small configurations table
    SELECT campaign, hardware_type, config_id,
           count(*) - count_if(order_kind = 'random') AS n_fixed,  -- ingest admits fixed | random
           count_if(order_kind = 'random') AS n_random
    FROM measurements
    WHERE status = 'ok'
    GROUP BY campaign, hardware_type, config_id
)
SELECT
    k.campaign,
    k.hardware_type,
    hash(k.campaign, k.hardware_type) AS partition_key,
    xor(hash(k.campaign, k.hardware_type), k.config_id) AS row_key,
    k.config_id,
    hash(c.benchmark, c.settings) AS test_key,
    c.benchmark,
    c.settings,
    c.metric,
    c.unit,
    c.higher_is_better,
    CASE $family_column
        WHEN 'campaign' THEN k.campaign
        WHEN 'benchmark' THEN c.benchmark
        WHEN 'metric' THEN c.metric
        WHEN 'unit' THEN c.unit
        WHEN 'higher_is_better' THEN CAST(c.higher_is_better AS VARCHAR)
        WHEN 'hardware_type' THEN k.hardware_type
        WHEN 'settings' THEN json_extract_string(c.settings, $settings_path)
    END AS family,
    k.n_fixed,
    k.n_random
FROM counts AS k
JOIN configurations AS c USING (config_id)
ORDER BY k.campaign, k.hardware_type, k.config_id
