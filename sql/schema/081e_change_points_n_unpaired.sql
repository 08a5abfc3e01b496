-- Trials of a paired series left out for want of a baseline value in their run, for catalogs created before it.
ALTER TABLE change_points_history ADD COLUMN IF NOT EXISTS n_unpaired BIGINT
