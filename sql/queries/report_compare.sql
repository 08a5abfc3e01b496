-- report_compare: the rows of one kept comparison (table comparisons, written by
-- `perfwarehouse compare`): $comparison_id, or the latest one (of $campaign's when given:
-- either side's campaign), largest change first.
WITH chosen AS (
    SELECT coalesce($comparison_id::BIGINT, max(comparison_id)) AS id
    FROM comparisons
    WHERE $campaign::VARCHAR IS NULL OR baseline_campaign = $campaign::VARCHAR
       OR contender_campaign = $campaign::VARCHAR
)
SELECT c.*
FROM comparisons c JOIN chosen ON c.comparison_id = chosen.id
ORDER BY change_pct IS NULL, abs(change_pct) DESC, benchmark, settings
