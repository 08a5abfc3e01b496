-- meta: key/value facts about the warehouse itself (schema_version, created_at).
CREATE TABLE IF NOT EXISTS meta (
    key   VARCHAR PRIMARY KEY,
    value VARCHAR NOT NULL
);
