-- ingest_batches: every batch that landed (a refused batch leaves no trace).
CREATE TABLE IF NOT EXISTS ingest_batches (
    batch_id      BIGINT PRIMARY KEY,
    source        VARCHAR NOT NULL,
    format        VARCHAR NOT NULL,
    content_hash  VARCHAR NOT NULL,
    trials_added  BIGINT NOT NULL,
    values_added  BIGINT NOT NULL,
    trials_skipped BIGINT NOT NULL,
    quarantined   BIGINT NOT NULL,
    outcome       VARCHAR NOT NULL,
    started_at    TIMESTAMPTZ NOT NULL,
    finished_at   TIMESTAMPTZ NOT NULL
);
