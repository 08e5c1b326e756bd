-- Secrets every host on the database must hold alike, by name: the key a
-- retried creation's seat tokens are derived from (`request-key`), so a
-- request id retried through any host answers the same tokens. The first
-- host to start on the database puts its own; every later one takes it.
CREATE TABLE shared_keys (
    name  TEXT PRIMARY KEY,
    value BYTEA NOT NULL
);
