-- refresh_drift_series: the trials of each series of table _drifts (campaign,
-- hardware_type, config_id: the new drifts of series with steps, refresh/drifts.py) as
-- trends reads them: start time in epoch seconds and the median of the trial's values,
-- successful trials with a start time, in one scan.
SELECT m.campaign, m.hardware_type, m.config_id, epoch(min(m.started_at)) AS t,
       median(m.value) AS y
FROM measurements AS m
JOIN _drifts AS d USING (campaign, hardware_type, config_id)
WHERE m.status = 'ok' AND m.started_at IS NOT NULL
GROUP BY m.campaign, m.hardware_type, m.config_id, m.run_id, m.run_index
ORDER BY 1, 2, 3, 4
