-- refresh_changed_campaigns: the campaigns that received a batch or an analysis run
-- after a refresh point. Parameters: $batch, $job_run (the point's last_batch_id and
-- last_job_run_id).
SELECT DISTINCT campaign FROM (
    SELECT campaign FROM data_files WHERE batch_id > $batch
    UNION ALL
    SELECT unnest(campaigns) AS campaign FROM job_runs WHERE job_run_id > $job_run
) ORDER BY campaign
