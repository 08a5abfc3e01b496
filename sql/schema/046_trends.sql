-- trends: per configuration and hardware type, the Theil-Sen slope of the trial values
-- against time and against run index, as % of the median per 30 days (per 100 runs),
-- with Sen's CI; drifting when the time CI excludes 0.
CREATE TABLE IF NOT EXISTS trends_history (
    job_run_id BIGINT NOT NULL,
    campaign VARCHAR, hardware_type VARCHAR, config_id UBIGINT,
    benchmark VARCHAR, settings VARCHAR, metric VARCHAR,
    n BIGINT, median DOUBLE, first_s DOUBLE, last_s DOUBLE,
    slope_per_day DOUBLE, slope_pct_per_30d DOUBLE,
    ci_low_pct_per_30d DOUBLE, ci_high_pct_per_30d DOUBLE,
    slope_pct_per_100_runs DOUBLE, ci_low_pct_per_100_runs DOUBLE,
    ci_high_pct_per_100_runs DOUBLE,
    confidence DOUBLE, drifting BOOLEAN
);
