-- triscale_profile: one row per profiled environment (hardware type, or node): the
-- regular series built from its trials, the convergence test over time, and the
-- seasonal periods found in its autocorrelation (Jacob et al. (TriScale, JSys 2021), §4.6).
CREATE TABLE IF NOT EXISTS triscale_profile_history (
    job_run_id BIGINT NOT NULL,
    campaign VARCHAR, hardware_type VARCHAR, node VARCHAR,
    n_bins BIGINT, step_s DOUBLE, filled_bins BIGINT, trials BIGINT,
    converged BOOLEAN, slope DOUBLE, ci_low DOUBLE, ci_high DOUBLE,
    band DOUBLE, strict_band DOUBLE,
    seasonal_periods VARCHAR[], seasonal_period_s DOUBLE[], seasonal_acf DOUBLE[],
    candidate_periods VARCHAR[]
);
