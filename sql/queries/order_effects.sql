-- order_effects: one campaign's successful values for the order-effects job
-- (ingest admits only the order kinds 'fixed' and 'random'): the
-- configuration on its campaign and hardware type (row_key = hash(campaign,
-- hardware_type) XOR config_id, matched to the configurations and partitions
-- of order_effects_names), the group (0 = fixed order, 1 = random order) and
-- the value. This is the job's only scan of the measurements.
--
-- With $ordersage_compat the second branch applies OrderSage's failure rule
-- instead of the first: every fixed run that lost a trial is left out (a run
-- with a non-'ok' trial, or with fewer trial positions than the fullest run of
-- its hardware type, since a failed OrderSage trial keeps no value): its values
-- come with group 2, counted in the family sizes (as every 'ok' value is) and
-- left out of the statistics. DuckDB folds the bound flag, so the branch that
-- is off is not even planned.
WITH
run_sizes AS (
    SELECT hardware_type, run_id, any_value(order_kind) AS order_kind,
           count(DISTINCT position) AS n_positions, bool_or(status <> 'ok') AS failed
    FROM measurements
    WHERE $ordersage_compat AND campaign = $campaign
    GROUP BY hardware_type, run_id
),
incomplete_fixed_runs AS (
    SELECT r.run_id
    FROM run_sizes AS r
    JOIN (SELECT hardware_type, max(n_positions) AS n_full FROM run_sizes GROUP BY hardware_type)
        AS full_runs USING (hardware_type)
    WHERE r.order_kind = 'fixed' AND (r.failed OR r.n_positions < full_runs.n_full)
)
SELECT xor(hash(campaign, hardware_type), config_id) AS row_key,
       CAST(order_kind = 'random' AS UTINYINT) AS grp, value
FROM measurements
WHERE NOT $ordersage_compat AND campaign = $campaign AND status = 'ok'
UNION ALL
SELECT xor(hash(campaign, hardware_type), config_id) AS row_key,
       CASE WHEN run_id IN (SELECT run_id FROM incomplete_fixed_runs) THEN 2::UTINYINT
            ELSE CAST(order_kind = 'random' AS UTINYINT) END AS grp, value
FROM measurements
WHERE $ordersage_compat AND campaign = $campaign AND status = 'ok'
