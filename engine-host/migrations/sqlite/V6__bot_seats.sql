-- The bot that took a seat by joining.
ALTER TABLE seats ADD COLUMN bot TEXT;
