-- report_campaigns: every campaign with what tells its kind (perfwarehouse.reports.site):
-- its runs (fixed- and random-order), distinct revisions, the time span of its runs, its
-- trials and hardware types (from the catalog), and whether it holds load-test trials
-- (configurations whose settings say loop = open or closed, as the load job reads them).
-- Parameters: $campaign (NULL: every campaign).
WITH r AS (
    SELECT campaign, count(*) AS runs,
           count(*) FILTER (WHERE order_kind = 'fixed') AS fixed_runs,
           count(*) FILTER (WHERE order_kind = 'random') AS random_runs,
           count(DISTINCT revision) AS revisions,
           min(started_at) AS first_at, max(started_at) AS last_at
    FROM runs GROUP BY campaign
), f AS (
    SELECT campaign, sum(row_count) AS rows, count(DISTINCT hardware_type) AS hardware_types
    FROM data_files GROUP BY campaign
), load AS (
    SELECT DISTINCT campaign FROM measurements
    WHERE config_id IN (SELECT config_id FROM configurations
                        WHERE json_extract_string(settings, '$.loop') IN ('open', 'closed'))
)
SELECT c.campaign, coalesce(r.runs, 0) AS runs, coalesce(r.fixed_runs, 0) AS fixed_runs,
       coalesce(r.random_runs, 0) AS random_runs, coalesce(r.revisions, 0) AS revisions,
       r.first_at, r.last_at, coalesce(f.rows, 0) AS rows,
       coalesce(f.hardware_types, 0) AS hardware_types,
       c.campaign IN (SELECT campaign FROM load) AS load_test
FROM campaigns AS c
LEFT JOIN r USING (campaign)
LEFT JOIN f USING (campaign)
WHERE $campaign IS NULL OR c.campaign = $campaign
ORDER BY c.campaign
