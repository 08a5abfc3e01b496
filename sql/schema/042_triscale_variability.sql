-- triscale_variability: the variability score of each configuration across its sequels
-- (the KPIs of its series), Jacob et al. (TriScale, JSys 2021), §4.3. NULL bounds when too few sequels.
CREATE TABLE IF NOT EXISTS triscale_variability_history (
    job_run_id BIGINT NOT NULL,
    campaign VARCHAR, hardware_type VARCHAR, config_id UBIGINT,
    benchmark VARCHAR, settings VARCHAR, metric VARCHAR,
    series_by VARCHAR, n_sequels BIGINT, kpi_percentile DOUBLE, kpi_confidence DOUBLE,
    percentile DOUBLE, confidence DOUBLE,
    low DOUBLE, high DOUBLE, score DOUBLE, relative_score DOUBLE, coverage DOUBLE,
    n_required BIGINT, independent BOOLEAN, method VARCHAR
);
