-- nodes: machines that executed runs. hardware_type_rule records how the type
-- was decided (given, prefix map entry, or node-id rule).
CREATE TABLE IF NOT EXISTS nodes (
    node               VARCHAR PRIMARY KEY,
    hostname           VARCHAR,
    hardware_type      VARCHAR NOT NULL,
    hardware_type_rule VARCHAR NOT NULL,
    cpu_model          VARCHAR,
    memory             VARCHAR,
    kernel             VARCHAR,
    env                JSON,
    first_batch_id     BIGINT NOT NULL
);
