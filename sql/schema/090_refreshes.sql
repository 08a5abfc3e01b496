-- refreshes: every finished `perfwarehouse refresh` (its refresh point). A refresh
-- writes its row last, in one transaction, once its analyses and site pages are
-- done; a refresh killed before that leaves no row, so the next one compares with
-- the same previous point and redoes (never skips) what the killed one did.
-- last_batch_id / last_job_run_id / last_comparison_id: the newest ingest batch,
-- job run and kept comparison that existed at the point ("new" at the next refresh
-- means newer than these); batches: the batches that landed since the previous
-- point; job_run_ids: the job runs this refresh ran; campaigns: whose pages it wrote;
-- since: what "new" was measured against, in words; findings: what was new (JSON).
CREATE TABLE IF NOT EXISTS refreshes (
    refresh_id         BIGINT PRIMARY KEY,
    started_at         TIMESTAMPTZ NOT NULL,
    finished_at        TIMESTAMPTZ NOT NULL,
    last_batch_id      BIGINT NOT NULL,
    last_job_run_id    BIGINT NOT NULL,
    last_comparison_id BIGINT NOT NULL,
    batches            BIGINT[] NOT NULL,
    job_run_ids        BIGINT[] NOT NULL,
    campaigns          VARCHAR[] NOT NULL,
    since              VARCHAR NOT NULL,
    findings           JSON NOT NULL
);
