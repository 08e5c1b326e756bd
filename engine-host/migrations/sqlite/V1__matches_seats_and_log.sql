-- Matches, their seats and their log.
CREATE TABLE IF NOT EXISTS matches (
    match_id     TEXT PRIMARY KEY,
    setup_json   TEXT NOT NULL,
    pending_json TEXT NOT NULL DEFAULT '[]',
    results_json TEXT NOT NULL DEFAULT '[]'
);
CREATE TABLE IF NOT EXISTS seats (
    match_id   TEXT NOT NULL REFERENCES matches(match_id),
    seat       INTEGER NOT NULL,
    token_hash BLOB,
    PRIMARY KEY (match_id, seat)
);
CREATE TABLE IF NOT EXISTS log (
    seq        INTEGER PRIMARY KEY,
    match_id   TEXT NOT NULL REFERENCES matches(match_id),
    version    INTEGER NOT NULL,
    entry_json TEXT NOT NULL
);
