-- report_workbench_trials: one row per trial of the workbench controller's peak-rate
-- searches (attributes.workbench.kind = 'trial', run id CAMPAIGN-SESSION-SAMPLE-ATTEMPT;
-- perfwarehouse/agent/workbench.py), failed ones included (the controller counts them),
-- interrupted ones left out (a resumed search runs them again): the search it belongs to,
-- its number in the search (`trial_number`, 1 = first, in the order of the attempts), the
-- load offered (req/s, or clients in a closed loop), the step, the trial at that load,
-- how the load was picked and the statistic's value (ms). Reads measurements and
-- valueless_trials directly (not the trials view) so the attribute filter applies before
-- any grouping. Parameters: $campaign (NULL: every campaign).
WITH rows AS (
    SELECT campaign, hardware_type, run_id, status, attributes FROM measurements
    WHERE ($campaign IS NULL OR campaign = $campaign) AND attributes IS NOT NULL
      AND json_extract_string(attributes, '$.workbench.kind') = 'trial'
    UNION ALL
    SELECT campaign, hardware_type, run_id, status, attributes FROM valueless_trials
    WHERE ($campaign IS NULL OR campaign = $campaign) AND attributes IS NOT NULL
      AND json_extract_string(attributes, '$.workbench.kind') = 'trial'
), t AS (
    SELECT campaign, hardware_type, run_id, regexp_replace(run_id, '-[0-9]+$', '') AS search,
           any_value(status) AS status, any_value(attributes) AS a
    FROM rows
    GROUP BY campaign, hardware_type, run_id
)
SELECT campaign, hardware_type, search, run_id,
       CAST(row_number() OVER (
           PARTITION BY campaign, hardware_type, search
           ORDER BY CAST(json_extract(a, '$.workbench.attempt') AS INTEGER), run_id)
           AS INTEGER) AS trial_number,
       CAST(json_extract(a, '$.workbench.load') AS DOUBLE) AS load,
       CAST(json_extract(a, '$.workbench.step') AS INTEGER) AS step,
       CAST(json_extract(a, '$.workbench.trial') AS INTEGER) AS trial,
       json_extract_string(a, '$.workbench.picked_by') AS picked_by,
       CAST(json_extract(a, '$.workbench.response') AS DOUBLE) AS response_ms,
       status
FROM t
WHERE status <> 'interrupted'
ORDER BY campaign, hardware_type, search, trial_number
