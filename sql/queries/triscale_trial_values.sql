-- triscale_trial_values: the successful measurements of one partition, for the TriScale
-- and trends jobs (which take each trial's median). No ORDER BY and no join: the jobs
-- need the rows by configuration, time, run and iteration (Job.row_order,
-- jobs/series.py), the order of a compacted partition's files, which a scan keeps (a
-- join would not); they are sorted after reading only when the files are in another
-- order. Parameters: $campaign, $hardware_type.
SELECT
    campaign, hardware_type, config_id, benchmark, settings, metric, higher_is_better, run_id,
    run_index, epoch(started_at) AS t, iteration, value
FROM measurements
WHERE campaign = $campaign AND hardware_type = $hardware_type AND status = 'ok'
