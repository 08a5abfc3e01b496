-- Whether a change point needs action (081_change_points.sql), for catalogs created before it.
ALTER TABLE change_points_history ADD COLUMN IF NOT EXISTS action BOOLEAN
