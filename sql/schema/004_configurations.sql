-- configurations: benchmark + canonical settings + metric. config_id is
-- a stable 64-bit hash of (benchmark, settings, metric); unit and direction are
-- attributes (NULL when unknown).
CREATE TABLE IF NOT EXISTS configurations (
    config_id        UBIGINT PRIMARY KEY,
    benchmark        VARCHAR NOT NULL,
    settings         JSON NOT NULL,
    metric           VARCHAR NOT NULL,
    unit             VARCHAR,
    higher_is_better BOOLEAN
);
