-- conflicting_trials: the first staged trial whose identity is already in the
-- warehouse (_existing) with another status or other values (relative
-- difference above $tolerance, so a re-saved copy with rounding noise matches).
SELECT s.source, s.line, s.run_id, s.position
FROM staged_trials s
JOIN _existing e USING (campaign, run_id, position, config_id)
WHERE s.status <> e.status
   OR len(s."values") <> len(e."values")
   OR NOT list_bool_and(list_transform(list_zip(s."values", e."values"),
          lambda p: abs(p[1] - p[2]) <= $tolerance * greatest(abs(p[1]), abs(p[2]))))
ORDER BY s.source, s.line
LIMIT 1
