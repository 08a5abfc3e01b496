-- triscale_kpi: the KPI of each series (a configuration's trials in one campaign or time
-- window): a one-sided Thompson bound of a percentile, with the independence test
-- (Jacob et al. (TriScale, JSys 2021), §4.2 and 4.5). kpi is NULL when the series is too short (n_required).
CREATE TABLE IF NOT EXISTS triscale_kpi_history (
    job_run_id BIGINT NOT NULL,
    campaign VARCHAR, hardware_type VARCHAR, config_id UBIGINT,
    benchmark VARCHAR, settings VARCHAR, metric VARCHAR,
    series_by VARCHAR, series VARCHAR, n BIGINT,
    percentile DOUBLE, confidence DOUBLE, side VARCHAR,
    kpi DOUBLE, kpi_index BIGINT, coverage DOUBLE, n_required BIGINT,
    independent BOOLEAN, weakly_stationary BOOLEAN, violating_lags INTEGER[],
    descriptive_only BOOLEAN, method VARCHAR
);
