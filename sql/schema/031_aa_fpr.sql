-- aa_fpr: A/A false-positive rate of the two-sided Wilcoxon rank-sum test (Laaber et al. (PeerJ Preprints 2018)
-- section 4.2.1; job `aa-fpr`): control and test groups drawn `draws` times
-- from the same configuration with `n_nodes` nodes (strategy `trial`: the same nodes,
-- trials_per_node different trials each; `instance`: independently drawn nodes, one
-- trial each), rejections at p < alpha. fp_rate NULL (with reason) when too few nodes.
CREATE TABLE IF NOT EXISTS aa_fpr_history (
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
    draws              INTEGER NOT NULL,
    alpha              DOUBLE NOT NULL,
    rejections         INTEGER,
    fp_rate            DOUBLE,
    nodes_available    INTEGER NOT NULL,
    nodes_eligible     INTEGER NOT NULL,
    seed               BIGINT NOT NULL,
    reason             VARCHAR
);
