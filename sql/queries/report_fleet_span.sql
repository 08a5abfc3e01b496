-- report_fleet_span: the time span of the successful measurements (of $campaign, or of
-- every campaign when NULL), from which the fleet report picks its default period.
-- Parameters: $campaign.
SELECT min(started_at) AS first_at, max(started_at) AS last_at, count(*) AS n_values
FROM measurements
WHERE ($campaign IS NULL OR campaign = $campaign) AND status = 'ok'
