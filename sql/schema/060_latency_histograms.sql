-- latency_histograms: the full latency distribution of a load-test trial (the
-- `latency` key of its record; perfwarehouse/loadtest/histograms.py), one row per
-- trial (campaign, run_id, position), landed with the trial's batch. The
-- distribution is kept on one log grid so trials pool by addition: bucket i holds
-- latencies in [0.001 ms * 10^(i/200), 0.001 ms * 10^((i+1)/200)) (1.16 % wide, 1 us to
-- 1000 s); only non-empty buckets are stored (bucket_index ascending, bucket_frac the
-- fraction of the trial's requests, summing to 1). kind: samples, percentiles or
-- buckets (what the tool gave); n_requests behind it (NULL when unknown); mean_ms,
-- min_ms, max_ms when the source knows them exactly; raw: the record's latency value
-- as given (canonical JSON, zlib-compressed), for exact re-reading.
CREATE TABLE IF NOT EXISTS latency_histograms (
    campaign      VARCHAR NOT NULL,
    hardware_type VARCHAR NOT NULL,
    run_id        VARCHAR NOT NULL,
    position      INTEGER NOT NULL,
    config_id     UBIGINT NOT NULL,
    kind          VARCHAR NOT NULL,
    n_requests    DOUBLE,
    mean_ms       DOUBLE,
    min_ms        DOUBLE,
    max_ms        DOUBLE,
    bucket_index  USMALLINT[] NOT NULL,
    bucket_frac   DOUBLE[] NOT NULL,
    raw           BLOB NOT NULL,
    batch_id      BIGINT NOT NULL,
    PRIMARY KEY (campaign, run_id, position)
);
