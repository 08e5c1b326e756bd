-- Listing columns, finished logs kept apart, lifecycle rows, request ids.
ALTER TABLE matches ADD COLUMN game TEXT;
ALTER TABLE matches ADD COLUMN state TEXT;
ALTER TABLE matches ADD COLUMN created_at_ms INTEGER;
ALTER TABLE matches ADD COLUMN first_log_seq INTEGER;
ALTER TABLE matches ADD COLUMN final_version INTEGER;
ALTER TABLE matches ADD COLUMN log_json TEXT;
CREATE INDEX migration_3_log_by_match ON log(match_id);
UPDATE matches SET
    game = json_extract(setup_json, '$.game'),
    created_at_ms = json_extract(setup_json, '$.created_at_ms'),
    state = CASE
        WHEN results_json != '[]' THEN 'finished'
        WHEN EXISTS (SELECT 1 FROM seats s
                     WHERE s.match_id = matches.match_id AND s.token_hash IS NULL)
            THEN 'waiting'
        ELSE 'running'
    END,
    first_log_seq = COALESCE(
        (SELECT MIN(rowid) FROM log WHERE log.match_id = matches.match_id),
        (SELECT COALESCE(MAX(rowid), 0) + 1 FROM log));
UPDATE matches SET
    final_version = (SELECT COUNT(*) FROM log WHERE log.match_id = matches.match_id),
    log_json = (SELECT json_group_array(json(entry_json)) FROM
                   (SELECT entry_json FROM log WHERE log.match_id = matches.match_id
                    ORDER BY rowid))
    WHERE state = 'finished';
DROP INDEX migration_3_log_by_match;
CREATE INDEX matches_by_creation ON matches(created_at_ms, match_id);
CREATE INDEX matches_by_state ON matches(state);
CREATE TABLE lifecycle (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id   TEXT NOT NULL REFERENCES matches(match_id),
    event_json TEXT NOT NULL
);
CREATE TABLE requests (
    request_id   TEXT PRIMARY KEY,
    request_hash BLOB NOT NULL,
    match_id     TEXT NOT NULL REFERENCES matches(match_id),
    response     BLOB NOT NULL
);
