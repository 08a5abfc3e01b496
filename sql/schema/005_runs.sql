-- runs: one pass over a test list on one node after a reset.
CREATE TABLE IF NOT EXISTS runs (
    campaign   VARCHAR NOT NULL,
    run_id     VARCHAR NOT NULL,
    node       VARCHAR NOT NULL,
    run_index  INTEGER NOT NULL,
    order_kind VARCHAR NOT NULL,
    seed       VARCHAR,
    started_at TIMESTAMPTZ,
    run_size   INTEGER,
    batch_id   BIGINT NOT NULL,
    revision      VARCHAR,      -- of the software under test (commit, tag, version)
    revision_time TIMESTAMPTZ,  -- e.g. the commit time
    PRIMARY KEY (campaign, run_id)
);
