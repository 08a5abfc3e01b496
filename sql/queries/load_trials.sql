-- load_trials: one row per load-test trial of one partition (job `load`): the trials
-- whose settings say loop = open or closed (or name a generator), their metrics side by side (throughput,
-- arrival_rate, requests, errors in requests or req/s; latency metrics converted to
-- ms from their unit; mean also as avg or latency_mean, p50 as median, p99.9 as p999)
-- and the trial's stored latency distribution
-- (latency_histograms), if any; attributes (JSON text) name what separates the
-- repetitions of a mixed family (perfwarehouse/loadtest/mixing.py). Successful finite measurements only; a metric given
-- in several iterations is averaged.
-- Parameters: $campaign, $hardware_type.
WITH m AS (
    SELECT run_id, position, benchmark, settings, node, metric, started_at, duration_s,
           CAST(attributes AS VARCHAR) AS attributes,
           value * CASE WHEN metric IN ('mean', 'avg', 'latency_mean', 'p50', 'median',
                                        'p90', 'p99', 'p99.9', 'p999', 'max',
                                        'service_time_ms')
                        THEN CASE unit WHEN 's' THEN 1e3 WHEN 'us' THEN 1e-3
                                       WHEN 'µs' THEN 1e-3 WHEN 'ns' THEN 1e-6 ELSE 1 END
                        ELSE 1 END AS value
    FROM measurements
    WHERE campaign = $campaign AND hardware_type = $hardware_type
      AND status = 'ok' AND value IS NOT NULL AND isfinite(value)
      AND config_id IN (SELECT config_id FROM configurations  -- a few rows, not every value
                        WHERE (json_extract_string(settings, '$.loop') IN ('open', 'closed')
                               -- a load generator's trials without a load model are
                               -- counted and named by the job (on no curve)
                               OR json_extract_string(settings, '$.generator') IS NOT NULL)
                          -- not the result records of `agent peak-rate` (no load level)
                          AND json_extract_string(settings, '$.search_policy') IS NULL)
),
t AS (
    SELECT run_id, position, benchmark, settings, any_value(node) AS node,
           any_value(attributes) AS attributes,
           min(started_at) AS started_at,
           avg(value) FILTER (WHERE metric = 'throughput') AS throughput,
           avg(value) FILTER (WHERE metric = 'arrival_rate') AS arrival_rate,
           avg(value) FILTER (WHERE metric = 'requests') AS requests,
           avg(value) FILTER (WHERE metric = 'errors') AS errors,
           avg(value) FILTER (WHERE metric IN ('mean', 'avg', 'latency_mean')) AS mean_ms,
           avg(value) FILTER (WHERE metric IN ('p50', 'median')) AS p50,
           avg(value) FILTER (WHERE metric = 'p90') AS p90,
           avg(value) FILTER (WHERE metric = 'p99') AS p99,
           avg(value) FILTER (WHERE metric IN ('p99.9', 'p999')) AS p999,
           avg(value) FILTER (WHERE metric = 'max') AS max_ms,
           avg(value) FILTER (WHERE metric = 'utilization') AS utilization,
           avg(value) FILTER (WHERE metric = 'busy_s') AS busy_s,
           avg(value) FILTER (WHERE metric = 'service_time_ms') AS service_time_ms
    FROM m
    GROUP BY run_id, position, benchmark, settings
)
SELECT CAST($campaign AS VARCHAR) AS campaign, CAST($hardware_type AS VARCHAR) AS hardware_type,
       t.*, h.n_requests AS hist_n, h.mean_ms AS hist_mean_ms,
       h.bucket_index AS hist_index, h.bucket_frac AS hist_frac
FROM t
LEFT JOIN latency_histograms h
       ON h.campaign = $campaign AND h.run_id = t.run_id AND h.position = t.position
