-- campaigns: a named collection of runs analysed together.
CREATE TABLE IF NOT EXISTS campaigns (
    campaign       VARCHAR PRIMARY KEY,
    created_at     TIMESTAMPTZ NOT NULL,
    first_batch_id BIGINT NOT NULL
);
