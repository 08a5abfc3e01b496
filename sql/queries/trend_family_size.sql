-- trend_family_size: how many (campaign, hardware type, configuration) series have at
-- least $min_points successful trials: the family size m of the trends job's
-- Bonferroni correction (each CI at confidence 1 - (1 - C)/m). Parameters: $min_points.
SELECT count(*) AS family_size FROM (
    SELECT campaign, hardware_type, config_id
    FROM measurements
    WHERE status = 'ok'
    GROUP BY campaign, hardware_type, config_id
    HAVING count(DISTINCT run_id) >= $min_points
)
