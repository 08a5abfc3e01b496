-- node_rows: rows of the nodes table for a staged batch; well-known keys of the
-- environment object (cpu_model, memory, kernel) get their own columns.
WITH per_node AS (
    SELECT node, min(hostname) AS hostname, min(hardware_type) AS hardware_type,
           coalesce(min(hardware_type_rule), 'given') AS hardware_type_rule,
           min(env) AS env
    FROM raw_trials
    GROUP BY node
)
SELECT node, coalesce(hostname, json_extract_string(env, '$.hostname')) AS hostname,
       hardware_type, hardware_type_rule,
       json_extract_string(env, '$.cpu_model') AS cpu_model,
       json_extract_string(env, '$.memory') AS memory,
       json_extract_string(env, '$.kernel') AS kernel,
       CAST(env AS JSON) AS env,
       CAST($batch_id AS BIGINT) AS first_batch_id
FROM per_node
