-- The rows of a match (log entries, seats, labels, lifecycle rows, request
-- ids) no longer name their match through a foreign key. A foreign key's
-- check runs a query that locks the match's row for every row inserted:
-- for the log, once per action, which measured about a third of what
-- storing an action cost the database. The store keeps the rule itself:
-- a match's rows are inserted with its row, in the same transaction, or by
-- statements that insert nothing for a match they do not find (a log
-- entry follows a stored entry of its match, or is the first of a match
-- that exists); and no match is ever deleted.
ALTER TABLE log DROP CONSTRAINT log_match_id_fkey;
ALTER TABLE lifecycle DROP CONSTRAINT lifecycle_match_id_fkey;
ALTER TABLE seats DROP CONSTRAINT seats_match_id_fkey;
ALTER TABLE match_labels DROP CONSTRAINT match_labels_match_id_fkey;
ALTER TABLE requests DROP CONSTRAINT requests_match_id_fkey;
