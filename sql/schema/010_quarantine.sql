-- quarantine: records refused by an ingest run with --quarantine, with the rule
-- they broke and their raw text.
CREATE TABLE IF NOT EXISTS quarantine (
    batch_id BIGINT NOT NULL,
    source   VARCHAR NOT NULL,
    line     BIGINT NOT NULL,
    rule     VARCHAR NOT NULL,
    detail   VARCHAR NOT NULL,
    raw      VARCHAR
);
