-- Several hosts on one database: each host that serves the database has a
-- row it renews (`heartbeat_at`, by the database's clock) while it lives; a
-- host whose row was not renewed within its `lease_ms` holds nothing. Each
-- match a host holds in memory has a lease naming that host: the host's
-- writes to the match are stored only while the lease is its own and its
-- row is fresh (the fence), another host serves the match by forwarding
-- calls to `address`, and takes the lease over once its holder's row is
-- stale. `epoch` counts the lease's holders. A host id is new at each
-- start and each time its row went stale, so an id never holds again what
-- it lost. `deaths` counts the holders in a row whose row went stale while
-- they held the match with no entry added to its log since the last
-- takeover (`version_at_takeover`): a match whose holders keep dying in it
-- is quarantined instead of killing every host in turn.
CREATE TABLE hosts (
    host_id      TEXT PRIMARY KEY,
    address      TEXT NOT NULL,
    lease_ms     BIGINT NOT NULL,
    started_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    heartbeat_at TIMESTAMPTZ NOT NULL,
    -- The plugin builds the host has loaded, `game@version` JSON strings.
    builds       TEXT NOT NULL DEFAULT '[]'
);

CREATE TABLE match_leases (
    match_id TEXT PRIMARY KEY,
    host_id  TEXT NOT NULL,
    epoch    BIGINT NOT NULL,
    deaths   INTEGER NOT NULL DEFAULT 0,
    version_at_takeover BIGINT NOT NULL DEFAULT 0
);

CREATE INDEX match_leases_by_host ON match_leases (host_id);
