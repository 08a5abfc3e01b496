-- comparisons: what `perfwarehouse compare` compared and found, one row per
-- configuration and hardware type of one comparison (comparison_id). The sides: campaign,
-- revision (NULL = every revision) and --where filter. change_pct = 100 (contender /
-- baseline - 1) of the typical trial value (log-scale Hodges-Lehmann shift) with its
-- distribution-free CI at `confidence`; p_value two-sided rank-sum, p_adjusted by
-- `correction` over the comparison's configurations; verdict slower|faster|no change|
-- inconclusive at threshold_pct; more_trials: extra trials an inconclusive row needs.
CREATE TABLE IF NOT EXISTS comparisons (
    comparison_id      BIGINT NOT NULL,
    created_at         TIMESTAMPTZ NOT NULL,
    baseline_campaign  VARCHAR NOT NULL,
    baseline_revision  VARCHAR,
    baseline_where     VARCHAR,
    contender_campaign VARCHAR NOT NULL,
    contender_revision VARCHAR,
    contender_where    VARCHAR,
    confidence         DOUBLE NOT NULL,
    threshold_pct      DOUBLE NOT NULL,
    correction         VARCHAR NOT NULL,
    hardware_type      VARCHAR NOT NULL,
    config_id          UBIGINT NOT NULL,
    benchmark          VARCHAR,
    settings           VARCHAR,
    metric             VARCHAR,
    unit               VARCHAR,
    higher_is_better   BOOLEAN,
    n_baseline         BIGINT NOT NULL,
    n_contender        BIGINT NOT NULL,
    median_baseline    DOUBLE,
    median_contender   DOUBLE,
    change_pct         DOUBLE,
    ci_low_pct         DOUBLE,
    ci_high_pct        DOUBLE,
    p_value            DOUBLE,
    p_adjusted         DOUBLE,
    verdict            VARCHAR NOT NULL,
    more_trials        BIGINT,
    reason             VARCHAR
);
