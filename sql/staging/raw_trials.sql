-- raw_trials: one parsed input record per row, before validation. Parsers fill
-- it BY NAME; numeric keys are DOUBLE here so that a fractional position or a
-- non-finite number can be reported instead of silently rounded. line is the
-- 1-based line (or data row) of the record in source (a bulk reader fills
-- it from rowid after loading).
CREATE TEMP TABLE raw_trials (
    source             VARCHAR NOT NULL,
    line               BIGINT,
    v                  DOUBLE,
    campaign           VARCHAR,
    run_id             VARCHAR,
    node               VARCHAR,
    hostname           VARCHAR,
    hardware_type      VARCHAR,
    hardware_type_rule VARCHAR,
    run_index          DOUBLE,
    order_kind         VARCHAR,
    seed               VARCHAR,
    position           DOUBLE,
    run_size           DOUBLE,
    benchmark          VARCHAR,
    settings           VARCHAR,
    metric             VARCHAR,
    unit               VARCHAR,
    higher_is_better   BOOLEAN,
    "values"           DOUBLE[],
    started_at         TIMESTAMPTZ,
    duration_s         DOUBLE,
    status             VARCHAR,
    env                VARCHAR,
    latency            VARCHAR  -- JSON: a load-test trial's latency distribution (loadtest/histograms.py)
)
