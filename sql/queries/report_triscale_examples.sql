-- report_triscale_examples: TriScale runs to draw with their convergence test (Jacob et al. (TriScale, JSys 2021)
-- Figure 3a): in this data model a run is one trial with its measurements (iterations).
-- Takes the configurations whose trials have the most iterations (at least
-- $min_iterations), one trial each (the earliest), at most $examples of them, spread over
-- benchmarks. The names come from the configurations table for the few trials kept (carried
-- through the grouping of every trial they cost the page 0.8 of 1.6 CPU s on the demo's
-- 2.3M trials). Parameters: $campaign (NULL: every campaign), $min_iterations, $examples.
WITH sizes AS (
    SELECT campaign, hardware_type, config_id, run_id, position, min(started_at) AS started_at,
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
SELECT f.campaign, f.hardware_type, f.config_id, c.benchmark,
       CAST(c.settings AS VARCHAR) AS settings, c.metric, c.unit, f.run_id, f.position, f.n
FROM first_trial f JOIN configurations c USING (config_id)
QUALIFY row_number() OVER (PARTITION BY c.benchmark ORDER BY f.n DESC, f.hardware_type, f.config_id) = 1
ORDER BY f.n DESC, c.benchmark, f.hardware_type
LIMIT $examples
