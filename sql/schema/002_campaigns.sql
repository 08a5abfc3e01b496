-- campaigns: a named collection of runs analysed together (SPEC 2).
CREATE TABLE IF NOT EXISTS campaigns (
    campaign       VARCHAR PRIMARY KEY,
    created_at     TIMESTAMPTZ NOT NULL,
    first_batch_id BIGINT NOT NULL
);
