-- The PostgreSQL store's first schema: everything the SQLite store's nine
-- migrations built, in one. JSON columns are TEXT holding exactly what serde
-- wrote (the same shapes as the SQLite store's), never queried inside.

-- One row per match; the columns after the JSON ones serve listings.
CREATE TABLE matches (
    match_id      TEXT PRIMARY KEY,
    setup_json    TEXT NOT NULL,
    pending_json  TEXT NOT NULL DEFAULT '[]',
    results_json  TEXT NOT NULL DEFAULT '[]',
    game          TEXT NOT NULL,
    -- waiting, running, quarantined or finished.
    state         TEXT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    -- Set when the match finishes: its last version.
    final_version BIGINT,
    -- The hex SHA-256 of the plugin file the match was created with.
    plugin_sha256 TEXT
);
CREATE INDEX matches_by_creation ON matches (created_at_ms, match_id);
-- A start loads every match not finished: a small part of the table.
CREATE INDEX matches_not_finished ON matches (created_at_ms, match_id)
    WHERE state <> 'finished';
CREATE INDEX matches_by_state ON matches (state, created_at_ms, match_id);

-- Seats: SHA-256 of the token, never the token; NULL while open.
CREATE TABLE seats (
    match_id       TEXT NOT NULL REFERENCES matches (match_id),
    seat           BIGINT NOT NULL,
    token_hash     BYTEA,
    joined_at_ms   BIGINT,
    join_order     BIGINT,
    join_code_hash BYTEA,
    display_name   TEXT,
    external_id    TEXT,
    bot            TEXT,
    PRIMARY KEY (match_id, seat)
);

CREATE TABLE match_labels (
    match_id TEXT NOT NULL REFERENCES matches (match_id),
    key      TEXT NOT NULL,
    value    TEXT NOT NULL,
    PRIMARY KEY (match_id, key)
);
CREATE INDEX match_labels_by_label ON match_labels (key, value, match_id);

-- Every log entry, keyed by its match and version: a match's log is one
-- range of the key, and a second writer of the same version of a match
-- (a host that lost its lease, later) is refused by the key.
CREATE TABLE log (
    match_id   TEXT NOT NULL REFERENCES matches (match_id),
    version    BIGINT NOT NULL,
    entry_json TEXT NOT NULL,
    PRIMARY KEY (match_id, version)
);

-- Each step of a match's life, numbered 1, 2, … in commit order: the
-- number comes from lifecycle_counter's one row, updated in the same
-- transaction, whose row lock keeps two transactions from taking numbers
-- out of their commit order (see store/postgres/mod.rs).
CREATE TABLE lifecycle (
    seq        BIGINT PRIMARY KEY,
    match_id   TEXT NOT NULL REFERENCES matches (match_id),
    event_json TEXT NOT NULL
);
CREATE TABLE lifecycle_counter (
    only_row BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row),
    last_seq BIGINT NOT NULL
);
INSERT INTO lifecycle_counter (only_row, last_seq) VALUES (TRUE, 0);

-- Creations made idempotent by a request id.
CREATE TABLE requests (
    request_id   TEXT PRIMARY KEY,
    request_hash BYTEA NOT NULL,
    match_id     TEXT NOT NULL REFERENCES matches (match_id),
    response     BYTEA NOT NULL
);

-- Credentials the admin issued: the secret's hash, never the secret.
CREATE TABLE credentials (
    credential_id TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    role          TEXT NOT NULL,
    secret_hash   BYTEA NOT NULL UNIQUE,
    issued_at_ms  BIGINT NOT NULL,
    revoked_at_ms BIGINT,
    tenant        TEXT NOT NULL
);
