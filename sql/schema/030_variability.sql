-- variability: result variability of each configuration on each hardware type
-- (Laaber et al. (PeerJ Preprints 2018), §4.1; job `variability`). Outliers (values >=
-- outlier_factor x the configuration's median) are dropped first and counted. RSD =
-- 100 * sd / |mean| in percent (sample sd): over all values (total), per node (mean and
-- sd across nodes) and per run (mean and sd across runs); the share_* columns split the
-- sum of squares between nodes, between runs of a node and within runs (they add to 100).
-- NULL where undefined, with the reason.
CREATE TABLE IF NOT EXISTS variability_history (
    job_run_id         BIGINT NOT NULL,
    campaign           VARCHAR NOT NULL,
    hardware_type      VARCHAR NOT NULL,
    config_id          UBIGINT NOT NULL,
    benchmark          VARCHAR NOT NULL,
    settings           VARCHAR NOT NULL,
    metric             VARCHAR NOT NULL,
    unit               VARCHAR,
    higher_is_better   BOOLEAN,
    n_values           BIGINT NOT NULL,
    n_outliers         BIGINT NOT NULL,
    outlier_factor     DOUBLE NOT NULL,
    n_nodes            INTEGER NOT NULL,
    n_runs             INTEGER NOT NULL,
    mean               DOUBLE,
    median             DOUBLE,
    rsd_total_pct      DOUBLE,
    rsd_node_mean_pct  DOUBLE,
    rsd_node_sd_pct    DOUBLE,
    n_nodes_rsd        INTEGER NOT NULL,
    rsd_run_mean_pct   DOUBLE,
    rsd_run_sd_pct     DOUBLE,
    n_runs_rsd         INTEGER NOT NULL,
    share_nodes_pct    DOUBLE,
    share_runs_pct     DOUBLE,
    share_within_pct   DOUBLE,
    reason             VARCHAR
);
