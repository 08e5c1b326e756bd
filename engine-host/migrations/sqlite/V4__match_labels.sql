-- Match labels, for listing by label.
CREATE TABLE match_labels (
    match_id TEXT NOT NULL REFERENCES matches(match_id),
    key      TEXT NOT NULL,
    value    TEXT NOT NULL,
    PRIMARY KEY (match_id, key)
);
CREATE INDEX match_labels_by_label ON match_labels(key, value);
INSERT INTO match_labels (match_id, key, value)
    SELECT m.match_id, l.key, l.value
    FROM matches m, json_each(m.setup_json, '$.labels') l;
