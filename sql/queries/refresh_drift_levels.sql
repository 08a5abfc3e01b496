-- refresh_drift_levels: the confidence of the latest trends row of each series of table
-- _drifts (campaign, hardware_type, config_id: the new drifts of series with steps,
-- refresh/drifts.py).
SELECT t.campaign, t.hardware_type, t.config_id, arg_max(t.confidence, t.job_run_id) AS confidence
FROM trends_history AS t
JOIN _drifts AS d USING (campaign, hardware_type, config_id)
GROUP BY ALL
