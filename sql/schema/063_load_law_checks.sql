-- load_law_checks: one row per load-test trial (job `load`): the operational law
-- checked (N = X(R+Z) closed loop, flow balance / offered load open loop, U = XS where
-- utilization is measured; the worst one), the value it expects (requests in the
-- system, arrival rate, utilization), the relative residual, consistent (NULL when
-- nothing could be checked) and the reason when not (perfwarehouse/loadtest/laws.py).
CREATE TABLE IF NOT EXISTS load_law_checks_history (
    job_run_id    BIGINT NOT NULL,
    campaign      VARCHAR NOT NULL,
    hardware_type VARCHAR NOT NULL,
    benchmark     VARCHAR NOT NULL,
    family        VARCHAR NOT NULL,
    loop          VARCHAR,
    load          DOUBLE,
    run_id        VARCHAR NOT NULL,
    position      INTEGER NOT NULL,
    node          VARCHAR,
    throughput    DOUBLE,
    mean_ms       DOUBLE,
    law           VARCHAR,
    expected      DOUBLE,
    residual      DOUBLE,
    consistent    BOOLEAN,
    reason        VARCHAR
);
