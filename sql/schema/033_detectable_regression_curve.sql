-- detectable_regression_curve: the false- and true-positive rates behind
-- detectable_regression, one row per configuration, hardware type, strategy, number of
-- nodes and tested regression r_pct (Laaber et al. (PeerJ Preprints 2018) Figures 6 and 7). passes = fp_rate <= the
-- maximum and tp_rate >= the minimum. Cells with too few nodes have no rows.
CREATE TABLE IF NOT EXISTS detectable_regression_curve_history (
    job_run_id         BIGINT NOT NULL,
    campaign           VARCHAR NOT NULL,
    hardware_type      VARCHAR NOT NULL,
    config_id          UBIGINT NOT NULL,
    benchmark          VARCHAR NOT NULL,
    settings           VARCHAR NOT NULL,
    metric             VARCHAR NOT NULL,
    strategy           VARCHAR NOT NULL,
    n_nodes            INTEGER NOT NULL,
    trials_per_node    INTEGER NOT NULL,
    r_pct              DOUBLE NOT NULL,
    fp_rate            DOUBLE NOT NULL,
    tp_rate            DOUBLE NOT NULL,
    passes             BOOLEAN NOT NULL,
    draws              INTEGER NOT NULL,
    seed               BIGINT NOT NULL
);
