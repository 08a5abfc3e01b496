-- report_triscale_kpi: KPIs of each series (seed 003 section 4.3, SPEC 8 "KPI") from the
-- latest `triscale-kpi` job run of each campaign, with the median of the series' run
-- metrics to scale them. PROVISIONAL: written before the TriScale job's table existed;
-- the table and column names follow SPEC 8/9 and must be checked against
-- sql/schema/04*.sql at merge time. Parameters: $campaign (NULL: every campaign).
WITH latest AS (
    SELECT campaign, max(job_run_id) AS job_run_id
    FROM (SELECT job_run_id, unnest(campaigns) AS campaign
          FROM job_runs WHERE job = 'triscale-kpi')
    WHERE $campaign IS NULL OR campaign = $campaign
    GROUP BY campaign
)
SELECT k.campaign, k.hardware_type, k.benchmark, k.settings, k.metric, k.unit, k.series,
       k.percentile, k.confidence, k.kpi, k.metric_median, k.n_runs, k.independent,
       k.n_required
FROM triscale_kpi AS k
JOIN latest AS l ON k.campaign = l.campaign AND k.job_run_id = l.job_run_id
ORDER BY k.campaign, k.hardware_type, k.benchmark, k.settings, k.metric, k.series
