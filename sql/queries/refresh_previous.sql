-- refresh_previous: the latest refresh point (table refreshes), none before the first.
SELECT refresh_id, started_at, finished_at, last_batch_id, last_job_run_id,
       last_comparison_id
FROM refreshes ORDER BY refresh_id DESC LIMIT 1
