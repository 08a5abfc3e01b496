-- job_runs: every analysis run, with what it read and how long it took.
CREATE TABLE IF NOT EXISTS job_runs (
    job_run_id    BIGINT PRIMARY KEY,
    job           VARCHAR NOT NULL,
    params        JSON NOT NULL,
    campaigns     VARCHAR[] NOT NULL,
    input_batches BIGINT[] NOT NULL,
    code_version  VARCHAR NOT NULL,
    started_at    TIMESTAMPTZ NOT NULL,
    duration_s    DOUBLE NOT NULL,
    rows_out      BIGINT NOT NULL
);
