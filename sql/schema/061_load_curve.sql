-- load_curve: one row per load-test configuration family (benchmark + settings but the
-- load, on one hardware type) and load level (clients N in a closed loop, offered
-- rate_rps in an open loop); job `load` (perfwarehouse/loadtest/curve.py). Statistics
-- over the level's consistent trials (n_used; operational-law check per trial in
-- load_law_checks); a level without one uses all, has consistent = false and takes no
-- part in peak_rate. throughput (req/s) and mean_ms are the mean over trials with a
-- Student-t CI (ci_method t) or the median with an order-statistic CI (rank), at
-- `confidence`; mean_accuracy is equation 2 of Shivam et al. (USENIX ATC 2008).
-- pNN_ms: pooled from the trials' stored distributions with Woodruff CIs
-- (latency_source histogram) or from the trials' own percentiles (trial-percentiles).
-- throughput_law: X = N/(R + Z) at the level's mean response time (closed loop).
-- region: the CI of the response metric against [R_sat - s R_sat, R_sat + s R_sat]
-- (below, overlap, above; NULL without --r-sat). error_rate: errors / requests.
CREATE TABLE IF NOT EXISTS load_curve_history (
    job_run_id         BIGINT NOT NULL,
    campaign           VARCHAR NOT NULL,
    hardware_type      VARCHAR NOT NULL,
    benchmark          VARCHAR NOT NULL,
    family             VARCHAR NOT NULL,
    loop               VARCHAR NOT NULL,
    load               DOUBLE NOT NULL,
    clients            DOUBLE,
    think_time_s       DOUBLE,
    rate_rps           DOUBLE,
    n_trials           BIGINT NOT NULL,
    n_used             BIGINT NOT NULL,
    n_inconsistent     BIGINT NOT NULL,
    consistent         BOOLEAN NOT NULL,
    reason             VARCHAR,
    confidence         DOUBLE NOT NULL,
    ci_method          VARCHAR NOT NULL,
    throughput         DOUBLE,
    throughput_median  DOUBLE,
    throughput_low     DOUBLE,
    throughput_high    DOUBLE,
    throughput_law     DOUBLE,
    arrival_rate       DOUBLE,
    mean_ms            DOUBLE,
    mean_low_ms        DOUBLE,
    mean_high_ms       DOUBLE,
    mean_accuracy      DOUBLE,
    p50_ms             DOUBLE,
    p50_low_ms         DOUBLE,
    p50_high_ms        DOUBLE,
    p90_ms             DOUBLE,
    p90_low_ms         DOUBLE,
    p90_high_ms        DOUBLE,
    p99_ms             DOUBLE,
    p99_low_ms         DOUBLE,
    p99_high_ms        DOUBLE,
    p999_ms            DOUBLE,
    p999_low_ms        DOUBLE,
    p999_high_ms       DOUBLE,
    max_ms             DOUBLE,
    latency_source     VARCHAR,
    error_rate         DOUBLE,
    law_residual       DOUBLE,
    region             VARCHAR
);
