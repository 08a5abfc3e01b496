-- untimed_trials: successful trials without a start time (their files hold none and the
-- ingest was given none: no --started-at, no --path-pattern), in the campaigns a job
-- analyses ($campaigns; NULL: every campaign). The jobs that take time as their axis
-- (trends, profile) leave out the values without one and say how many trials they were
-- (jobs/framework.py, Job.over_time). The trials are told apart among those values only:
-- the trials view groups every measurement, which held 4.4 GB on the client (and on a
-- cluster's client) for the 23M measurements of the 10x campaign; this filter skips every
-- Parquet row group whose started_at has no NULL.
SELECT count(*) AS trials, count(DISTINCT campaign) AS campaigns
FROM (
    SELECT DISTINCT campaign, hardware_type, run_id, position, config_id
    FROM measurements
    WHERE started_at IS NULL AND status = 'ok'
      AND ($campaigns IS NULL OR list_contains($campaigns, campaign))
)
