-- report_fleet_configurations: names, unit and direction of every configuration, for
-- the fleet report's labels. Parameters: none.
SELECT config_id, benchmark, CAST(settings AS VARCHAR) AS settings, metric, unit,
       higher_is_better
FROM configurations
