-- triscale_independence: the independence test of each series of trial values in time
-- order (Jacob et al. (TriScale, JSys 2021), §4.5): which half failed and the lags outside the band.
CREATE TABLE IF NOT EXISTS triscale_independence_history (
    job_run_id BIGINT NOT NULL,
    campaign VARCHAR, hardware_type VARCHAR, config_id UBIGINT,
    benchmark VARCHAR, settings VARCHAR, metric VARCHAR,
    series_by VARCHAR, series VARCHAR, n BIGINT,
    independent BOOLEAN, weakly_stationary BOOLEAN, violating_lags INTEGER[],
    band DOUBLE, max_lag BIGINT, method VARCHAR
);
