-- change_point_baseline: for `analyze change-points --baseline B` (a paired baseline, as
-- Go's benchseries divides tip by baseline to cancel machine drift). B a benchmark: per
-- campaign, hardware type, run and metric, the median over benchmark B's trials in that
-- run of each trial's median value: the divisor of every other series' trials of that
-- run (mode 'benchmark'). B = KEY=VALUE, when no benchmark has that name: per
-- configuration whose setting KEY is VALUE and start time, the median of its trials'
-- medians: the divisor of the trials of the same benchmark, other settings and metric
-- with another KEY at that start time (mode 'setting': tip / that night's baseline).
-- Empty, without reading a file, when no baseline is asked ($baseline NULL).
-- Parameters: $baseline.
WITH named AS (
    SELECT campaign, hardware_type, run_id, any_value(metric) AS metric,
           median(value) AS value
    FROM measurements
    WHERE $baseline IS NOT NULL AND benchmark = $baseline
      AND status = 'ok' AND value IS NOT NULL AND isfinite(value)
    GROUP BY campaign, hardware_type, config_id, run_id, position
),
by_setting AS (
    SELECT campaign, hardware_type, config_id, any_value(benchmark) AS benchmark,
           any_value(settings) AS settings, any_value(metric) AS metric,
           min(started_at) AS started_at, median(value) AS value
    FROM measurements
    WHERE $baseline IS NOT NULL AND contains($baseline, '=')
      AND NOT EXISTS (SELECT 1 FROM named)
      AND json_extract_string(settings, '$."' || split_part($baseline, '=', 1) || '"')
          = substr($baseline, strpos($baseline, '=') + 1)
      AND status = 'ok' AND value IS NOT NULL AND isfinite(value)
      AND started_at IS NOT NULL
    GROUP BY campaign, hardware_type, config_id, run_id, position
)
SELECT 'benchmark' AS mode, campaign, hardware_type, run_id, metric,
       CAST(NULL AS VARCHAR) AS benchmark, CAST(NULL AS VARCHAR) AS settings,
       CAST(NULL AS TIMESTAMPTZ) AS started_at, median(value) AS baseline
FROM named
GROUP BY campaign, hardware_type, run_id, metric
UNION ALL
SELECT 'setting', campaign, hardware_type, NULL, metric, benchmark, CAST(settings AS VARCHAR),
       started_at, median(value)
FROM by_setting
GROUP BY campaign, hardware_type, metric, benchmark, settings, started_at
