-- triscale_convergence: one row per trial with iterations, analysed as a TriScale run
-- (Jacob et al. (TriScale, JSys 2021), §4.1): its metric over sliding windows and the convergence test.
CREATE TABLE IF NOT EXISTS triscale_convergence_history (
    job_run_id BIGINT NOT NULL,
    campaign VARCHAR, hardware_type VARCHAR, config_id UBIGINT,
    benchmark VARCHAR, settings VARCHAR, metric VARCHAR, node VARCHAR, run_id VARCHAR,
    started_at_s DOUBLE, n_values BIGINT, measure VARCHAR,
    metric_value DOUBLE, converged BOOLEAN,
    slope DOUBLE, ci_low DOUBLE, ci_high DOUBLE,
    confidence DOUBLE, tolerance DOUBLE
);
