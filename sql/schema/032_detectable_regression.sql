-- detectable_regression: the minimal detectable regression in percent (Laaber et al. (PeerJ Preprints 2018) section
-- 4.2.2, Algorithm 1 as corrected by job `detectable-regression`) of each
-- configuration, hardware type, sampling strategy (`instance` | `trial`) and number of
-- nodes. status: `detectable` (detectable_pct set, with the FP and TP rates at it),
-- `none` (no r of R passes: detectable_pct NULL) or `insufficient` (too few nodes or
-- trials to draw the groups). reason says why for the last two.
CREATE TABLE IF NOT EXISTS detectable_regression_history (
    job_run_id         BIGINT NOT NULL,
    campaign           VARCHAR NOT NULL,
    hardware_type      VARCHAR NOT NULL,
    config_id          UBIGINT NOT NULL,
    benchmark          VARCHAR NOT NULL,
    settings           VARCHAR NOT NULL,
    metric             VARCHAR NOT NULL,
    unit               VARCHAR,
    higher_is_better   BOOLEAN,
    strategy           VARCHAR NOT NULL,
    n_nodes            INTEGER NOT NULL,
    trials_per_node    INTEGER NOT NULL,
    detectable_pct     DOUBLE,
    fp_rate            DOUBLE,
    tp_rate            DOUBLE,
    status             VARCHAR NOT NULL,
    reason             VARCHAR,
    nodes_available    INTEGER NOT NULL,
    nodes_eligible     INTEGER NOT NULL,
    n_runs             INTEGER NOT NULL,
    n_values           BIGINT NOT NULL,
    n_outliers         BIGINT NOT NULL,
    draws              INTEGER NOT NULL,
    seed               BIGINT NOT NULL
);
