-- data_files: the Parquet files that hold measurements, relative to the
-- warehouse root. The measurements view reads exactly these files, so a file
-- becomes visible in the same transaction that records its batch. Files of
-- file_version 1 lack the revision, revision_time and attributes columns.
-- sha256, min_value, max_value, mtime_ns: what the file held when it landed (its
-- bytes' SHA-256, the bounds of its value column, its modification time); NULL for
-- files landed before they were recorded (perfwarehouse/warehouse/integrity.py).
CREATE TABLE IF NOT EXISTS data_files (
    path          VARCHAR PRIMARY KEY,
    batch_id      BIGINT NOT NULL,
    campaign      VARCHAR NOT NULL,
    hardware_type VARCHAR NOT NULL,
    row_count     BIGINT NOT NULL,
    bytes         BIGINT NOT NULL,
    file_version  INTEGER NOT NULL DEFAULT 2,  -- 1: written before revision/attributes existed
    sha256        VARCHAR,
    min_value     DOUBLE,
    max_value     DOUBLE,
    mtime_ns      BIGINT
);
