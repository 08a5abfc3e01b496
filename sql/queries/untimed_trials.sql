-- untimed_trials: successful trials without a start time (their files hold none and the
-- ingest was given none: no --started-at, no --path-pattern), in the campaigns a job
-- analyses ($campaigns; NULL: every campaign). The jobs that take time as their axis
-- (trends, profile) leave them out and say how many (jobs/framework.py, Job.over_time).
SELECT count(*) AS trials, count(DISTINCT campaign) AS campaigns
FROM trials
WHERE started_at IS NULL AND status = 'ok'
  AND ($campaigns IS NULL OR list_contains($campaigns, campaign))
