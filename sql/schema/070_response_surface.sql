-- response_surface: the quadratic response surface of the peak rate in the factors
-- (Shivam et al., USENIX ATC 2008, section 5.5; job `surface`), per campaign, hardware
-- type, benchmark and the settings that are not factors (`fixed_settings`). Two kinds of
-- rows: kind = 'coefficient' (term '1', 'A', 'A*B', 'A^2' ... with its least-squares
-- estimate and Student's t interval at `confidence`, NULL without residual degrees of
-- freedom) and kind = 'prediction' (one per combination of the factor levels, `point` a
-- JSON object of factor values, `estimate` the predicted peak rate, `measured` the mean
-- peak rate found there, NULL where no search ran). n_samples, n_budget (samples whose
-- search ran out of budget: their best estimate is used unless --no-budget-estimates),
-- dof, r_squared and loo_mape (leave-one-out mean absolute percentage error as a
-- fraction) repeat on every row of a surface.
CREATE TABLE IF NOT EXISTS response_surface_history (
    job_run_id       BIGINT NOT NULL,
    campaign         VARCHAR NOT NULL,
    hardware_type    VARCHAR NOT NULL,
    benchmark        VARCHAR NOT NULL,
    fixed_settings   VARCHAR NOT NULL,
    factors          VARCHAR NOT NULL,
    kind             VARCHAR NOT NULL,
    term             VARCHAR,
    point            VARCHAR,
    estimate         DOUBLE,
    ci_low           DOUBLE,
    ci_high          DOUBLE,
    measured         DOUBLE,
    n_samples        INTEGER NOT NULL,
    n_budget         INTEGER NOT NULL,
    dof              INTEGER NOT NULL,
    r_squared        DOUBLE,
    loo_mape         DOUBLE,
    confidence       DOUBLE NOT NULL
);
