-- campaign_kinds: what kinds of study each campaign holds, for the jobs that apply only
-- to some (analyze all, status): an order study has runs in random order (OrderSage's
-- design: fixed against random order); load-test trials have settings with a loop or a
-- load generator; peak-rate searches are the result runs of `agent peak-rate`.
WITH loads AS (
    SELECT config_id,
           json_extract_string(settings, '$.search_policy') IS NOT NULL AS search
    FROM configurations
    WHERE json_extract_string(settings, '$.loop') IN ('open', 'closed')
       OR json_extract_string(settings, '$.generator') IS NOT NULL
       OR json_extract_string(settings, '$.search_policy') IS NOT NULL
),
load_campaigns AS (
    SELECT m.campaign, bool_or(NOT l.search) AS load, bool_or(l.search) AS searches
    FROM (SELECT DISTINCT campaign, config_id FROM measurements
          WHERE config_id IN (SELECT config_id FROM loads)) AS m
    JOIN loads AS l USING (config_id)
    GROUP BY m.campaign
)
SELECT c.campaign,
       coalesce(r.random_runs, 0) > 0 AS order_study,
       coalesce(l.load, false) AS load,
       coalesce(l.searches, false) AS searches
FROM (SELECT DISTINCT campaign FROM data_files) AS c
LEFT JOIN (SELECT campaign, count(*) FILTER (WHERE order_kind = 'random') AS random_runs
           FROM runs GROUP BY campaign) AS r USING (campaign)
LEFT JOIN load_campaigns AS l USING (campaign)
ORDER BY c.campaign
