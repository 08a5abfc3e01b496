-- _configs: one row per configuration of a batch, with the config_id computed in
-- Python (perfwarehouse.ingest.stage.config_id) and the unit and direction it
-- declares; staged_trials joins it.
CREATE OR REPLACE TEMP TABLE _configs (
    config_id        UBIGINT,
    benchmark        VARCHAR,
    settings         VARCHAR,
    metric           VARCHAR,
    unit             VARCHAR,
    higher_is_better BOOLEAN
)
