//! Several hosts on one database (migration V4): who lives, and who holds
//! each match. The database is the arbiter, and its clock the only clock:
//!
//! - A host that [joins](super::PostgresStore::join) has a row in `hosts`
//!   under an id of its own, new at each start; a thread of the store
//!   ([`Heartbeat`]) renews the row every third of the lease time. A row
//!   not renewed within the lease time is stale, and its host holds
//!   nothing. A host that finds its own row stale (it was paused, or cut
//!   off from the database, for longer than its lease) has lost every
//!   lease: it takes a new id, and the engine lets go of every match it
//!   held ([`Store::leases_lost`](crate::store::Store::leases_lost)).
//! - A match a host holds in memory has a lease naming that host's id. A
//!   host takes a lease ([`claim`]) when it reads a match back or creates
//!   one, if nobody holds it or its holder's row is stale; otherwise the
//!   holder's address is where the call belongs ([`holder`]).
//! - The fence: every write of a match's log (and every join) is stored
//!   only while the lease is the writing host's and its row is fresh, in
//!   the write's own transaction ([`FENCE`]). A host that lost a lease,
//!   however late its writes arrive, cannot store one; and the log's key
//!   `(match_id, version)` refuses a second entry of one version whoever
//!   writes it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use tabletop_core::{HostError, HostResult};

use super::connect::{Connection, Target};
use super::read::direct;
use crate::store::{Claim, Holder, HostRow};

/// The condition that the host row `$h` is fresh (its heartbeat within its
/// lease, by the database's clock): the one statement of the rule, for
/// every query here and the one-statement append's fence (`appends.rs`).
macro_rules! live {
    ($h:literal) => {
        concat!(
            $h,
            ".heartbeat_at > now() - ",
            $h,
            ".lease_ms * interval '1 millisecond'"
        )
    };
}
pub(super) use live;

/// The fence of a write of match `$1` by host `$2`: one row while the lease
/// is the host's and its row is fresh.
pub(super) const FENCE: &str = concat!(
    "SELECT 1 FROM match_leases l JOIN hosts h ON h.host_id = l.host_id \
     WHERE l.match_id = $1 AND l.host_id = $2 AND ",
    live!("h")
);

/// What is told each new id this host takes.
pub type TellId = Box<dyn Fn(&str) + Send + Sync>;

/// This host's part in the database's membership: its id while it has
/// one, and how many times it lost its leases.
pub(super) struct Membership {
    me: RwLock<Option<Arc<str>>>,
    lost: tokio::sync::watch::Sender<u64>,
    /// The plugin builds loaded here, as the `builds` column holds them.
    builds: Mutex<String>,
    /// Told each new id this host takes (its witness keeps them).
    told: Mutex<Option<TellId>>,
}

impl std::fmt::Debug for Membership {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Membership")
            .field("me", &self.me())
            .finish_non_exhaustive()
    }
}

impl Membership {
    pub(super) fn new() -> Arc<Membership> {
        Arc::new(Membership {
            me: RwLock::new(None),
            lost: tokio::sync::watch::channel(0).0,
            builds: Mutex::new("[]".into()),
            told: Mutex::new(None),
        })
    }

    /// This host's id, once it joined: the writer fences every write with
    /// it.
    pub(super) fn me(&self) -> Option<Arc<str>> {
        self.me.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn set_me(&self, id: Arc<str>) {
        if let Some(told) = &*self.told.lock().unwrap_or_else(|e| e.into_inner()) {
            told(&id);
        }
        *self.me.write().unwrap_or_else(|e| e.into_inner()) = Some(id);
    }

    /// Calls `told` with the id now and with every later one.
    pub(super) fn on_new_id(&self, told: TellId) {
        let mut slot = self.told.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(id) = self.me() {
            told(&id);
        }
        *slot = Some(told);
    }

    pub(super) fn lost(&self) -> tokio::sync::watch::Receiver<u64> {
        self.lost.subscribe()
    }

    pub(super) fn set_builds(&self, builds: &[String]) {
        let json = serde_json::to_string(builds).unwrap_or_else(|_| "[]".into());
        *self.builds.lock().unwrap_or_else(|e| e.into_inner()) = json;
    }

    fn builds(&self) -> String {
        self.builds
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// A new host id: random, so two hosts never share one.
fn new_host_id() -> Arc<str> {
    Arc::from(format!("h-{:016x}", rand::random::<u64>()))
}

/// Puts a row for a new id of this host; returns the id.
fn register(
    connection: &mut Connection,
    membership: &Membership,
    address: &str,
    lease: Duration,
) -> HostResult<Arc<str>> {
    let id = new_host_id();
    direct(connection).execute(
        "INSERT INTO hosts (host_id, address, lease_ms, heartbeat_at, builds) \
         VALUES ($1, $2, $3, now(), $4)",
        &[
            &id.as_ref(),
            &address,
            &(lease.as_millis() as i64),
            &membership.builds(),
        ],
    )?;
    Ok(id)
}

/// Takes the leases of earlier hosts that advertised `address`: this host
/// listens there now, so they are gone (a host restarted in place), and
/// their matches are this one's at once instead of after their lease.
fn adopt(connection: &mut Connection, me: &str, address: &str) -> HostResult<()> {
    let mut db = direct(connection);
    let adopted = db.execute(
        "UPDATE match_leases SET host_id = $1, epoch = epoch + 1 WHERE host_id IN \
         (SELECT host_id FROM hosts WHERE address = $2 AND host_id <> $1)",
        &[&me, &address],
    )?;
    db.execute(
        "DELETE FROM hosts WHERE address = $2 AND host_id <> $1",
        &[&me, &address],
    )?;
    if adopted > 0 {
        tracing::info!(
            adopted,
            "took the leases of this host's earlier run at the same address"
        );
    }
    Ok(())
}

/// Joins the database as a new host reachable at `address`: its row, and
/// the thread that renews it.
pub(super) fn join(
    target: &Target,
    membership: &Arc<Membership>,
    address: &str,
    lease: Duration,
) -> HostResult<Heartbeat> {
    let stop = Arc::new(AtomicBool::new(false));
    let beating = Beating {
        target: target.clone(),
        membership: Arc::clone(membership),
        address: address.to_string(),
        lease,
        stop: Arc::clone(&stop),
    };
    // The thread connects and registers: the synchronous client must not
    // run on the caller's thread, which may be an async worker (see
    // `connect.rs`).
    let (joined_tx, joined) = std::sync::mpsc::channel::<HostResult<()>>();
    let thread = std::thread::Builder::new()
        .name("store-heartbeat".into())
        .spawn(move || {
            let registered = beating.target.connect().and_then(|mut connection| {
                let id = register(&mut connection, &beating.membership, &beating.address, lease)?;
                adopt(&mut connection, &id, &beating.address)?;
                tracing::info!(host_id = %id, address = %beating.address, lease_ms = lease.as_millis() as u64, "joined the hosts of the match store");
                beating.membership.set_me(id);
                Ok(connection)
            });
            match registered {
                Ok(connection) => {
                    let _ = joined_tx.send(Ok(()));
                    beating.run(Some(connection));
                }
                Err(e) => {
                    let _ = joined_tx.send(Err(e));
                }
            }
        })
        .map_err(|e| HostError::Internal(format!("cannot start the store's heartbeat: {e}")))?;
    let heartbeat = Heartbeat {
        stop,
        thread: Some(thread),
    };
    joined.recv().unwrap_or_else(|_| {
        Err(HostError::Internal(
            "the store's heartbeat stopped while joining".into(),
        ))
    })?;
    Ok(heartbeat)
}

/// The thread that renews this host's row; stopped and joined when
/// dropped.
#[derive(Debug)]
pub(super) struct Heartbeat {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

struct Beating {
    target: Target,
    membership: Arc<Membership>,
    address: String,
    lease: Duration,
    stop: Arc<AtomicBool>,
}

/// How often the heartbeat thread looks whether its store is gone.
const TICK: Duration = Duration::from_millis(50);

impl Beating {
    fn run(self, mut connection: Option<Connection>) {
        let every = self.lease / 3;
        let mut next = Instant::now() + every;
        while !self.stop.load(Ordering::Relaxed) {
            if Instant::now() < next {
                std::thread::sleep(TICK.min(every));
                continue;
            }
            next = Instant::now() + every;
            if connection.is_none() {
                connection = self.target.connect().ok();
            }
            let Some(open) = connection.as_mut() else {
                continue;
            };
            match self.renew(open) {
                Ok(true) => {}
                Ok(false) => self.lapsed(open),
                Err(e) => {
                    tracing::debug!(error = %e, "the heartbeat could not reach the match store");
                    connection = None;
                }
            }
        }
    }

    /// Renews this host's row; `false` when it was stale already.
    fn renew(&self, connection: &mut Connection) -> HostResult<bool> {
        let Some(me) = self.membership.me() else {
            return Ok(true);
        };
        let renewed = direct(connection).execute(
            concat!(
                "UPDATE hosts h SET heartbeat_at = now(), builds = $2 WHERE host_id = $1 AND ",
                live!("h")
            ),
            &[&me.as_ref(), &self.membership.builds()],
        )?;
        Ok(renewed == 1)
    }

    /// This host's row went stale: every lease it held may be another's
    /// now. It joins again under a new id, and the engine lets go of its
    /// matches.
    fn lapsed(&self, connection: &mut Connection) {
        let Ok(id) = register(connection, &self.membership, &self.address, self.lease) else {
            return;
        };
        // Its old row's leases that no other host took are no host's now:
        // an outage of the database is no death of a host.
        if let Some(old) = self.membership.me() {
            let _ = leave(connection, &old);
        }
        tracing::warn!(
            host_id = %id,
            "this host's lease lapsed (it was paused or cut off from the match store for longer \
             than the lease time): it lets go of every match it held, and serves them again \
             from the store"
        );
        self.membership.set_me(id);
        self.membership.lost.send_modify(|n| *n += 1);
    }
}

/// Takes the lease of `match_id` for `me` if nobody holds it or its
/// holder's row is stale, and says who holds it now.
///
/// A lease taken from a holder whose row went stale counts a death; the
/// count starts again once the match's log has grown since the last
/// takeover.
pub(super) fn claim(connection: &mut Connection, match_id: &str, me: &str) -> HostResult<Claim> {
    let mut db = direct(connection);
    // `prior` reads the lease as it was before this statement: the call
    // its last holder died in, which the takeover clears.
    let taken = db.query_opt(
        concat!(
            "WITH logged AS (SELECT COALESCE(MAX(version), 0) AS version FROM log \
                             WHERE match_id = $1), \
                  prior AS (SELECT died_in FROM match_leases WHERE match_id = $1) \
             INSERT INTO match_leases AS l (match_id, host_id, epoch, version_at_takeover) \
             SELECT $1, $2, 1, version FROM logged WHERE EXISTS ( \
                 SELECT 1 FROM hosts h WHERE h.host_id = $2 AND ",
            live!("h"),
            ") \
             ON CONFLICT (match_id) DO UPDATE SET host_id = EXCLUDED.host_id, \
                 epoch = l.epoch + 1, \
                 deaths = CASE WHEN l.version_at_takeover = EXCLUDED.version_at_takeover \
                          THEN l.deaths + 1 ELSE 1 END, \
                 version_at_takeover = EXCLUDED.version_at_takeover, \
                 died_in = NULL \
             WHERE l.host_id <> EXCLUDED.host_id AND NOT EXISTS ( \
                 SELECT 1 FROM hosts h WHERE h.host_id = l.host_id AND ",
            live!("h"),
            ") RETURNING deaths, (SELECT died_in FROM prior)"
        ),
        &[&match_id, &me],
    )?;
    let (deaths, mut died_in) = taken.as_ref().map_or((0, None), |row| {
        (row.get::<_, i32>(0), row.get::<_, Option<String>>(1))
    });
    if taken.is_none() {
        // Not taken over: a lease this host already held may be one it
        // adopted from its earlier run at its address (see `adopt`), and
        // hold the call that run died in.
        died_in = db
            .query_opt(
                "UPDATE match_leases l SET died_in = NULL \
                 FROM (SELECT died_in FROM match_leases WHERE match_id = $1) prior \
                 WHERE l.match_id = $1 AND l.host_id = $2 AND l.died_in IS NOT NULL \
                 RETURNING prior.died_in",
                &[&match_id, &me],
            )?
            .and_then(|row| row.get::<_, Option<String>>(0));
    }
    match holder(connection, match_id)? {
        Some(holder) if holder.host_id != me => Ok(Claim::Elsewhere(holder)),
        Some(_) => Ok(Claim::Held {
            holders_died: u32::try_from(deaths).unwrap_or(0),
            died_in,
        }),
        // This host's own row is stale: it holds nothing until it has
        // joined again (its heartbeat does so).
        None => Err(HostError::StoreUnavailable(
            "this host's lease lapsed (it was cut off from the match store); it is joining the \
             hosts again"
                .into(),
        )),
    }
}

/// The live host that holds `match_id`'s lease, if one does.
pub(super) fn holder(connection: &mut Connection, match_id: &str) -> HostResult<Option<Holder>> {
    let row = direct(connection).query_opt(
        concat!(
            "SELECT h.host_id, h.address FROM match_leases l \
             JOIN hosts h ON h.host_id = l.host_id WHERE l.match_id = $1 AND ",
            live!("h")
        ),
        &[&match_id],
    )?;
    Ok(row.map(|row| Holder {
        host_id: row.get(0),
        address: row.get(1),
    }))
}

/// Up to `limit` unfinished matches no live host holds: never leased (a
/// store moved in by `store migrate`), or leased by a host whose row is
/// stale (it died).
pub(super) fn orphans(connection: &mut Connection, limit: usize) -> HostResult<Vec<String>> {
    let rows = direct(connection).query(
        concat!(
            "SELECT m.match_id FROM matches m \
             LEFT JOIN match_leases l ON l.match_id = m.match_id \
             LEFT JOIN hosts h ON h.host_id = l.host_id \
             WHERE m.state IN ('waiting', 'running') \
               AND (h.host_id IS NULL OR NOT (",
            live!("h"),
            ")) ORDER BY m.created_at_ms LIMIT $1"
        ),
        &[&(limit as i64)],
    )?;
    Ok(rows.iter().map(|row| row.get(0)).collect())
}

/// Gives up `me`'s lease of `match_id` (a match this host cannot play).
pub(super) fn release(connection: &mut Connection, match_id: &str, me: &str) -> HostResult<()> {
    direct(connection).execute(
        "DELETE FROM match_leases WHERE match_id = $1 AND host_id = $2",
        &[&match_id, &me],
    )?;
    Ok(())
}

/// Gives up every lease of `me` and its row: the host stops, and its
/// matches are any other host's to take at once.
pub(super) fn leave(connection: &mut Connection, me: &str) -> HostResult<u64> {
    let mut db = direct(connection);
    let released = db.execute("DELETE FROM match_leases WHERE host_id = $1", &[&me])?;
    db.execute("DELETE FROM hosts WHERE host_id = $1", &[&me])?;
    Ok(released)
}

/// A dead host's rows made stale at once, and the call it died in left in
/// the lease of that call's match (see `PostgresStore::record_death`).
pub(super) fn record_death(
    connection: &mut Connection,
    host_ids: &[String],
    died_in: Option<(&str, &str)>,
) -> HostResult<()> {
    let mut db = direct(connection);
    if let Some((match_id, call)) = died_in {
        db.execute(
            "UPDATE match_leases SET died_in = $2 WHERE match_id = $1 AND host_id = ANY($3)",
            &[&match_id, &call, &host_ids],
        )?;
    }
    db.execute(
        "UPDATE hosts SET heartbeat_at = '-infinity' WHERE host_id = ANY($1)",
        &[&host_ids],
    )?;
    Ok(())
}

/// The live hosts, the oldest first.
pub(super) fn hosts(connection: &mut Connection) -> HostResult<Vec<HostRow>> {
    let rows = direct(connection).query(
        concat!(
            "SELECT h.host_id, h.address, h.builds FROM hosts h WHERE ",
            live!("h"),
            " ORDER BY h.started_at"
        ),
        &[],
    )?;
    Ok(rows
        .iter()
        .map(|row| {
            let builds: String = row.get(2);
            HostRow {
                host_id: row.get(0),
                address: row.get(1),
                builds: serde_json::from_str(&builds).unwrap_or_default(),
            }
        })
        .collect())
}
