-- Tenants. Every organizer credential belongs to one; a credential issued
-- before tenants becomes a tenant of its own, named after its id.
ALTER TABLE credentials ADD COLUMN tenant TEXT NOT NULL DEFAULT '';
UPDATE credentials SET tenant = credential_id;
-- A match belongs to the tenant of the organizer who created it. Before
-- tenants only a request id tells the creator (it is kept under its
-- credential's id, `cred-…/ID`); every other match (the admin's, an
-- anonymous caller's, an organizer's without a request id) stays in the
-- admin's tenant, which is the setup without a `tenant`. Its lifecycle
-- rows carry the tenant too, so the feed filters without reading matches.
CREATE TEMP TABLE migration_8_tenants AS
    SELECT r.match_id AS match_id, c.tenant AS tenant
    FROM requests r
    JOIN credentials c
        ON substr(r.request_id, 1, length(c.credential_id) + 1) = c.credential_id || '/';
UPDATE matches SET setup_json = json_set(setup_json, '$.tenant',
        (SELECT t.tenant FROM migration_8_tenants t WHERE t.match_id = matches.match_id))
    WHERE match_id IN (SELECT match_id FROM migration_8_tenants)
      AND typeof(setup_json) = 'text' AND json_valid(setup_json);
UPDATE lifecycle SET event_json = json_set(event_json, '$.tenant',
        (SELECT t.tenant FROM migration_8_tenants t WHERE t.match_id = lifecycle.match_id))
    WHERE match_id IN (SELECT match_id FROM migration_8_tenants)
      AND typeof(event_json) = 'text' AND json_valid(event_json);
DROP TABLE migration_8_tenants;
