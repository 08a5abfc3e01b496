-- report_history_series: the series of trial values (median of each successful trial's
-- values) of the $top configurations with the largest change points of the latest
-- `change-points` job run (then the longest series without one, so that a page with few
-- or no change points still draws its series), numbered as the job ordered them (idx: by revision time then
-- start when ordered_by = 'revision', else by start). Parameters: $campaign, $top.
WITH top AS (
    SELECT c.campaign, c.hardware_type, c.config_id, any_value(c.ordered_by) AS ordered_by,
           max(abs(c.change_pct)) AS size, max(c.n_points) AS n_points
    FROM change_points AS c
    WHERE ($campaign IS NULL OR c.campaign = $campaign)
    GROUP BY ALL
    ORDER BY size DESC NULLS LAST, n_points DESC, c.campaign, c.hardware_type, c.config_id
    LIMIT $top
), trial AS (
    SELECT m.campaign, m.hardware_type, m.config_id, any_value(t.ordered_by) AS ordered_by,
           any_value(m.revision) AS revision, any_value(m.revision_time) AS revision_time,
           min(m.started_at) AS started_at, m.run_id, m.position, median(m.value) AS value
    FROM measurements AS m
    JOIN top AS t USING (campaign, hardware_type, config_id)
    WHERE m.status = 'ok' AND m.value IS NOT NULL AND isfinite(m.value)
    GROUP BY m.campaign, m.hardware_type, m.config_id, m.run_id, m.position
)
SELECT campaign, hardware_type, config_id, revision, revision_time, started_at, value,
       CAST(row_number() OVER (
           PARTITION BY campaign, hardware_type, config_id
           ORDER BY CASE WHEN ordered_by = 'revision' THEN revision_time END NULLS LAST,
                    started_at, run_id, position) - 1 AS BIGINT) AS idx
FROM trial
ORDER BY campaign, hardware_type, config_id, idx
