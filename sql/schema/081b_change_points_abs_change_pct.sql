-- |change_pct| of each change point (081_change_points.sql), for catalogs created before it.
ALTER TABLE change_points_history ADD COLUMN IF NOT EXISTS abs_change_pct DOUBLE
