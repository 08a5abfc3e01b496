-- pull_cursors: how far `perfwarehouse ingest pull` has ingested each segment of
-- each agent. byte_offset is always just after a newline: bytes
-- [0, byte_offset) of the segment are in the warehouse, nothing after. The last
-- whole line before it starts at last_line_offset and has the SHA-256
-- last_line_sha256 (NULL when byte_offset = 0); a pull checks it against the
-- agent before ingesting more, so a rewritten or truncated segment is detected.
-- A cursor moves in the same transaction as the batch it describes.
CREATE TABLE IF NOT EXISTS pull_cursors (
    agent            VARCHAR NOT NULL,
    segment          VARCHAR NOT NULL,
    byte_offset      BIGINT NOT NULL,
    line_count       BIGINT NOT NULL,
    last_line_offset BIGINT NOT NULL,
    last_line_sha256 VARCHAR,
    trials_added     BIGINT NOT NULL,
    batch_id         BIGINT,
    updated_at       TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (agent, segment)
);
