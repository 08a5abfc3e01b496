-- peak_rate: one row per load-test configuration family (job `load`). Closed loop
-- (On Performance Evaluation, 2019, Figure 2): the highest throughput of a consistent
-- level with its CI (peak_low, peak_high; with ci_method t simultaneous over the k
-- levels, Bonferroni, as the largest of k means is biased up), the N at the peak, the knee (the
-- smallest N reaching knee_fraction of the peak), falls_after_peak (a larger N whose
-- throughput CI lies wholly below the peak's) and drop_pct at the largest N. Open loop
-- (Shivam et al., USENIX ATC 2008, sections 2-3): lambda_star = the highest consistent
-- offered rate whose response_metric (mean or a percentile) is <= r_sat_ms;
-- lambda_low = the highest rate whose CI is wholly <= R_sat, lambda_high = the lowest
-- rate above lambda_star whose CI is wholly > R_sat (the true peak rate lies between,
-- at about the confidence); r_star_* the response time at lambda_star with its CI,
-- accuracy its equation 2, region its place against [R_sat -+ width R_sat]. reason
-- says what is missing or what to test next.
CREATE TABLE IF NOT EXISTS peak_rate_history (
    job_run_id            BIGINT NOT NULL,
    campaign              VARCHAR NOT NULL,
    hardware_type         VARCHAR NOT NULL,
    benchmark             VARCHAR NOT NULL,
    family                VARCHAR NOT NULL,
    loop                  VARCHAR NOT NULL,
    n_levels              BIGINT NOT NULL,
    n_inconsistent_levels BIGINT NOT NULL,
    confidence            DOUBLE NOT NULL,
    peak_throughput       DOUBLE,
    peak_low              DOUBLE,
    peak_high             DOUBLE,
    peak_clients          DOUBLE,
    knee_clients          DOUBLE,
    knee_fraction         DOUBLE,
    falls_after_peak      BOOLEAN,
    last_throughput       DOUBLE,
    drop_pct              DOUBLE,
    response_metric       VARCHAR,
    r_sat_ms              DOUBLE,
    width                 DOUBLE,
    lambda_star           DOUBLE,
    lambda_low            DOUBLE,
    lambda_high           DOUBLE,
    r_star_ms             DOUBLE,
    r_star_low_ms         DOUBLE,
    r_star_high_ms        DOUBLE,
    accuracy              DOUBLE,
    region                VARCHAR,
    reason                VARCHAR
);
