-- bisect_recorded_command: the command and setup that the latest bisection of one series
-- recorded on its trials (attributes.bisect), for `perfwarehouse bisect --change-point`
-- without --command. Parameters: $campaign, $benchmark, $metric.
SELECT json_extract_string(attributes, '$.bisect.command') AS command,
       json_extract_string(attributes, '$.bisect.setup') AS setup
FROM measurements
WHERE campaign = $campaign AND benchmark = $benchmark AND metric = $metric
  AND json_extract_string(attributes, '$.bisect.command') IS NOT NULL
ORDER BY started_at DESC
LIMIT 1
