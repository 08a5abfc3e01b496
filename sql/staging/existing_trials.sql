-- existing_trials: trials the warehouse already holds in the runs of a batch
-- (_batch_runs), with their status and values in iteration order.
WITH batch_runs AS (SELECT DISTINCT campaign, run_id FROM _batch_runs),
with_values AS (
    SELECT campaign, run_id, position, config_id, any_value(status) AS status,
           list(value ORDER BY iteration) AS "values"
    FROM measurements m SEMI JOIN batch_runs b USING (campaign, run_id)
    GROUP BY ALL
)
SELECT * FROM with_values
UNION ALL
SELECT campaign, run_id, position, config_id, status, []::DOUBLE[] AS "values"
FROM valueless_trials t SEMI JOIN batch_runs b USING (campaign, run_id)
