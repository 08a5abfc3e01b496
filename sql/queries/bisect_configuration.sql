-- bisect_configuration: the unit and direction the warehouse holds for the series a
-- bisection is about to measure (benchmark, no settings, metric), so that a mismatch is
-- refused before measuring instead of when the trials land. Parameters: $benchmark, $metric.
SELECT unit, higher_is_better
FROM configurations
WHERE benchmark = $benchmark AND settings = '{}' AND metric = $metric
