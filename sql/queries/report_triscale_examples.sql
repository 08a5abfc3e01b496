-- report_triscale_examples: TriScale runs to draw with their convergence test (Jacob et al. (TriScale, JSys 2021)
-- Figure 3a): in this data model a run is one trial with its measurements (iterations).
-- Takes the configurations whose trials have the most iterations (at least
-- $min_iterations), one trial each (the earliest), at most $examples of them, spread over
-- benchmarks. Parameters: $campaign (NULL: every campaign), $min_iterations, $examples.
WITH sizes AS (
    SELECT campaign, hardware_type, config_id, any_value(benchmark) AS benchmark,
           any_value(settings) AS settings, any_value(metric) AS metric,
           any_value(unit) AS unit, run_id, position, min(started_at) AS started_at,
           count(*) AS n
    FROM measurements
    WHERE ($campaign IS NULL OR campaign = $campaign) AND status = 'ok'
      AND value IS NOT NULL AND isfinite(value)
    GROUP BY campaign, hardware_type, config_id, run_id, position
    HAVING count(*) >= $min_iterations
),
first_trial AS (
    SELECT * FROM sizes
    QUALIFY row_number() OVER (PARTITION BY campaign, hardware_type, config_id
                               ORDER BY started_at, run_id, position) = 1
)
SELECT campaign, hardware_type, config_id, benchmark, settings, metric, unit, run_id,
       position, n
FROM first_trial
QUALIFY row_number() OVER (PARTITION BY benchmark ORDER BY n DESC, hardware_type, config_id) = 1
ORDER BY n DESC, benchmark, hardware_type
LIMIT $examples
