-- report_triscale_environment: one environment value per run, for profiling each
-- hardware type over time (seed 003 section 4.6, Figure 5; SPEC 8 "Profiling"): the
-- median over the run's trials of their relative performance, value / the
-- configuration's median (inverted for lower-is-better metrics, so 1.02 is 2 % better
-- than usual on any benchmark). Parameters: $campaign (NULL: every campaign).
WITH trials AS (
    SELECT campaign, hardware_type, config_id, run_id, min(started_at) AS started_at,
           median(value) AS value, any_value(higher_is_better) AS higher_is_better
    FROM measurements
    WHERE ($campaign IS NULL OR campaign = $campaign) AND status = 'ok'
      AND value > 0 AND isfinite(value)
    GROUP BY campaign, hardware_type, config_id, run_id, position
),
usual AS (
    SELECT campaign, hardware_type, config_id, median(value) AS typical
    FROM trials GROUP BY campaign, hardware_type, config_id
)
SELECT t.campaign, t.hardware_type, t.run_id, epoch(min(t.started_at)) AS started_s,
       median(CASE WHEN t.higher_is_better IS FALSE THEN u.typical / t.value
                   ELSE t.value / u.typical END) AS performance,
       count(*) AS n_trials
FROM trials AS t JOIN usual AS u USING (campaign, hardware_type, config_id)
GROUP BY t.campaign, t.hardware_type, t.run_id
ORDER BY t.campaign, t.hardware_type, started_s
