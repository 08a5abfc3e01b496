-- configuration_candidates: the configurations measured in campaign $campaign, with the
-- hardware types each ran on (perfwarehouse report configuration picks one of them).
SELECT c.config_id, c.benchmark, CAST(c.settings AS VARCHAR) AS settings, c.metric, c.unit,
       c.higher_is_better, list(DISTINCT m.hardware_type ORDER BY m.hardware_type) AS hardware_types
FROM (SELECT DISTINCT config_id, hardware_type FROM measurements WHERE campaign = $campaign) AS m
JOIN configurations AS c USING (config_id)
GROUP BY ALL
ORDER BY c.benchmark, c.metric, settings
