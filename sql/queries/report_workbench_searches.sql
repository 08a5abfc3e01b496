-- report_workbench_searches: one row per finished peak-rate search of the workbench
-- controller (`agent peak-rate` / `agent surface`, perfwarehouse/agent/workbench.py): its
-- result run (attributes.workbench.kind = 'result', run id CAMPAIGN-SESSION-SAMPLE-result)
-- with lambda* (metric peak_rate, NULL when the search found no estimate), its cost
-- (search_trials, search_generator_s in s, search_loads) and how it searched (settings
-- search_policy, search_seeding). Parameters: $campaign (NULL: every campaign).
SELECT campaign, hardware_type, any_value(benchmark) AS benchmark,
       regexp_replace(run_id, '-result$', '') AS search,
       min(started_at) AS started_at,
       json_extract_string(any_value(settings), '$.search_policy') AS policy,
       json_extract_string(any_value(settings), '$.search_seeding') AS seeding,
       json_extract_string(any_value(settings), '$.loop') AS loop,
       CAST(json_extract(any_value(attributes), '$.workbench.sample') AS INTEGER) AS sample,
       CAST(json_extract(any_value(attributes), '$.workbench.factors') AS VARCHAR) AS factors,
       json_extract_string(any_value(attributes), '$.workbench.status') AS status,
       json_extract_string(any_value(attributes), '$.workbench.reason') AS reason,
       max(value) FILTER (WHERE metric = 'peak_rate') AS lambda_star,
       any_value(unit) FILTER (WHERE metric = 'peak_rate') AS unit,
       CAST(max(value) FILTER (WHERE metric = 'search_trials') AS INTEGER) AS trials,
       max(value) FILTER (WHERE metric = 'search_generator_s') AS generator_s,
       CAST(max(value) FILTER (WHERE metric = 'search_loads') AS INTEGER) AS loads
FROM measurements
WHERE ($campaign IS NULL OR campaign = $campaign) AND attributes IS NOT NULL
  AND metric IN ('peak_rate', 'search_trials', 'search_generator_s', 'search_loads')
  AND json_extract_string(attributes, '$.workbench.kind') = 'result'
GROUP BY campaign, hardware_type, run_id
ORDER BY campaign, hardware_type, started_at, search
