-- trend_family_size: how many (campaign, hardware type, configuration) series of one
-- piece (a partition, or a slice of its configurations) have at least $min_points
-- successful trials. Run on every piece of the trends job (Job.prepare_by_piece, where the
-- pieces run: on the cluster, on its workers); their sum is the family size m of the
-- job's Bonferroni correction (each CI at confidence 1 - (1 - C)/m): a series lies in
-- exactly one piece. Parameters: $campaign, $hardware_type, $min_points.
SELECT count(*) AS family_size FROM (
    SELECT campaign, hardware_type, config_id
    FROM measurements
    WHERE campaign = $campaign AND hardware_type = $hardware_type AND status = 'ok'
    GROUP BY campaign, hardware_type, config_id
    HAVING count(DISTINCT run_id) >= $min_points
)
