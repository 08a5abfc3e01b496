-- report_triscale_kpi: KPIs of each series (Jacob et al. (TriScale, JSys 2021), §4.3 "KPI") from the
-- latest `kpi` job run of each campaign, with the configuration's unit and the median of
-- its trial values (to show each KPI relative to it). Parameters: $campaign (NULL: all).
WITH medians AS (
    SELECT campaign, hardware_type, config_id, median(value) AS metric_median
    FROM measurements
    WHERE status = 'ok' AND campaign IN (SELECT campaign FROM triscale_kpi)
      AND ($campaign IS NULL OR campaign = $campaign)
    GROUP BY ALL
)
SELECT k.campaign, k.hardware_type, k.config_id, k.benchmark, k.settings, k.metric, c.unit, k.series,
       k.percentile, k.confidence, k.kpi, m.metric_median, k.n AS n_runs, k.independent,
       k.n_required
FROM triscale_kpi AS k
LEFT JOIN configurations AS c ON c.config_id = k.config_id
LEFT JOIN medians AS m
    ON m.campaign = k.campaign AND m.hardware_type = k.hardware_type
   AND m.config_id = k.config_id
WHERE ($campaign IS NULL OR k.campaign = $campaign)
ORDER BY k.campaign, k.hardware_type, k.benchmark, k.settings, k.metric, k.series
