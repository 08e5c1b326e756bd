-- When and in which order seats were taken after creation.
ALTER TABLE seats ADD COLUMN joined_at_ms INTEGER;
ALTER TABLE seats ADD COLUMN join_order INTEGER;
