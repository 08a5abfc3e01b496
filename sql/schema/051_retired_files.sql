-- retired_files: Parquet files that a compaction replaced (no longer in
-- data_files, so no new reader sees them) but that a reader which took its
-- snapshot before the compaction may still be reading. They are deleted by the
-- first compaction at least the grace period after retired_at; until then the
-- recovery of a writer keeps them (README "Compaction").
CREATE TABLE IF NOT EXISTS retired_files (
    path       VARCHAR PRIMARY KEY,
    retired_at TIMESTAMPTZ NOT NULL
);
