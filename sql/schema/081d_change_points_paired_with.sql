-- The benchmark each change-point series was divided by, run by run (--baseline), for catalogs created before it.
ALTER TABLE change_points_history ADD COLUMN IF NOT EXISTS paired_with VARCHAR
