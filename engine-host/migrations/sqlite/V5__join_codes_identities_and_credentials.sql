-- Join codes, joining players' identities, and issued credentials.
ALTER TABLE seats ADD COLUMN join_code_hash BLOB;
ALTER TABLE seats ADD COLUMN display_name TEXT;
ALTER TABLE seats ADD COLUMN external_id TEXT;
CREATE TABLE credentials (
    credential_id TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    role          TEXT NOT NULL,
    secret_hash   BLOB NOT NULL UNIQUE,
    issued_at_ms  INTEGER NOT NULL,
    revoked_at_ms INTEGER
);
