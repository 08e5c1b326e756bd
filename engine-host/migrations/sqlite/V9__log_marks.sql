-- Which matches wrote the log's rows, a stretch of rows at a time: a page of
-- the log that is damaged then costs only the matches that wrote rows in it
-- (see the store's scan.rs and marks.rs). Stores before it have no marks;
-- damage among their rows costs every match that may have written there.
CREATE TABLE log_marks (
    seq          INTEGER PRIMARY KEY,
    from_log_row INTEGER NOT NULL,
    to_log_row   INTEGER NOT NULL,
    match_ids    TEXT NOT NULL
);
