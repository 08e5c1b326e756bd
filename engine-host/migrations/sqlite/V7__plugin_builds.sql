-- The build a match was created with: the hex SHA-256 of its plugin file.
-- NULL for matches created before builds were recorded; they replay
-- through the one build of their version, as before.
ALTER TABLE matches ADD COLUMN plugin_sha256 TEXT;
