-- A host that dies inside a trusted plugin's call on a match leaves that
-- call in the match's lease (its fatal-signal handler writes the call's
-- breadcrumb to a process that watches the host, which writes it here): the
-- next holder quarantines the match at once instead of replaying it, so a
-- poisoned match costs one host, not one per holder.
ALTER TABLE match_leases ADD COLUMN died_in TEXT;
