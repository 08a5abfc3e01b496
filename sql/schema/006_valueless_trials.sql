-- valueless_trials: trials that produced no value (a failed test recorded with
-- its status). Trials with values live in the Parquet measurement files; the
-- trials view (sql/views/trials.sql) unites both.
CREATE TABLE IF NOT EXISTS valueless_trials (
    campaign      VARCHAR NOT NULL,
    hardware_type VARCHAR NOT NULL,
    run_id        VARCHAR NOT NULL,
    position      INTEGER NOT NULL,
    config_id     UBIGINT NOT NULL,
    status        VARCHAR NOT NULL,
    started_at    TIMESTAMPTZ,
    duration_s    DOUBLE,
    batch_id      BIGINT NOT NULL,
    revision      VARCHAR,
    revision_time TIMESTAMPTZ,
    attributes    JSON
);
