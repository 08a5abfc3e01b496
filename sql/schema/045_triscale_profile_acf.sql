-- triscale_profile_acf: the autocorrelation of each profiled series at every lag, with
-- its 95 % band (Jacob et al. (TriScale, JSys 2021), Figure 5); lag_s is the lag in seconds.
CREATE TABLE IF NOT EXISTS triscale_profile_acf_history (
    job_run_id BIGINT NOT NULL,
    campaign VARCHAR, hardware_type VARCHAR, node VARCHAR,
    lag BIGINT, lag_s DOUBLE, acf DOUBLE, band DOUBLE
);
