//! The engine among several hosts on one store (see the PostgreSQL store's
//! `cluster.rs`): a match is made live here only once this host holds its
//! lease; when this host loses every lease at once (it was paused or cut
//! off for longer than the lease), it lets go of every match it holds; and
//! a sweeper takes the unfinished matches of hosts that died, so their
//! bots move and their clocks run with no call needed. A store only this
//! host opens holds every match here, and none of this changes anything.

use std::sync::Arc;
use std::time::Duration;

use tabletop_core::{HostError, HostResult};
use tabletop_sdk::DynGame;

use super::{Engine, Withdrawn};
use crate::store::{Claim, Holder, HostRow, StoredMatch};

/// Most orphaned matches one sweep takes.
const SWEEP_BATCH: usize = 64;

/// How many holders in a row may die holding a match, with no move stored
/// between, before the next one quarantines it instead of replaying it. A
/// host that dies inside a trusted plugin call names the call's match
/// through its witness (`crash_note`), and the next holder quarantines that
/// match at once; this count catches the deaths no witness saw (a witness
/// killed too, a machine lost): such a match costs two hosts, not every
/// host in turn. One death is any host's (killed, out of memory), and its
/// matches move on.
pub const HOLDERS_DIED_TO_QUARANTINE: u32 = 2;

/// Whether a match just claimed may be played here.
pub(super) enum Suspect {
    /// It may.
    No,
    /// Its holders kept dying in it: it was quarantined.
    Quarantined {
        /// Why, as the match's callers are told.
        reason: String,
        /// The match as the quarantine left it (`None`: the quarantine
        /// could not be stored, and the store holds what it held).
        stored: Option<Box<StoredMatch>>,
    },
}

impl Engine {
    /// Takes the lease of `match_id` for this host, or says which host
    /// serves it; whether the match must not be replayed here, because the
    /// hosts that held it kept dying in it (it is quarantined then).
    pub(super) fn claim(&self, match_id: &str) -> HostResult<Suspect> {
        let reason = match self.store.claim(match_id)? {
            Claim::Held {
                died_in: Some(call),
                ..
            } => format!("the host holding it died in its plugin {call}"),
            Claim::Held { holders_died, .. } if holders_died >= HOLDERS_DIED_TO_QUARANTINE => {
                format!(
                    "{holders_died} hosts in a row died holding it with no move stored between \
                     (a plugin call on it may crash hosts)"
                )
            }
            Claim::Held { holders_died, .. } => {
                if holders_died > 0 {
                    tracing::info!(match_id, "took over a match whose host is gone");
                }
                return Ok(Suspect::No);
            }
            Claim::Elsewhere(holder) => {
                tracing::debug!(match_id, holder = %holder.host_id, "the match is another host's");
                return Err(HostError::MatchMoved {
                    match_id: match_id.to_string(),
                });
            }
        };
        let stored = match self.quarantine_dormant(match_id, &reason) {
            Ok(stored) => {
                tracing::warn!(match_id, reason, "match quarantined");
                Some(Box::new(stored))
            }
            Err(e) => {
                tracing::error!(match_id, error = %e, "cannot quarantine the match hosts died holding");
                None
            }
        };
        // Not replayed here: the replay may be what kills hosts.
        self.unavailable.hold_back(match_id);
        Ok(Suspect::Quarantined {
            reason: format!("quarantined: {reason}"),
            stored,
        })
    }

    /// Gives up the lease of a match this host cannot play.
    pub(super) fn release(&self, match_id: &str) {
        if let Err(e) = self.store.release(match_id) {
            tracing::warn!(match_id, error = %e, "cannot give up the lease of a match");
        }
    }

    /// Whether this host holds `match_id` in memory.
    pub fn holds(&self, match_id: &str) -> bool {
        self.table.get(match_id).is_some()
    }

    /// Whether this host has loaded `game` (in `version`, if given): a
    /// creation of it is served here. Asks nothing of the store.
    pub fn has_game(&self, game: &str, version: Option<&str>) -> bool {
        self.catalog.plugin(game, version).is_ok()
    }

    /// The other live host that holds `match_id`, if one does: where a call
    /// about it belongs.
    pub fn holder(&self, match_id: &str) -> HostResult<Option<Holder>> {
        self.store.holder(match_id)
    }

    /// Another live host that has loaded `game` (in `version`, if given)
    /// when this host has not: where its creation belongs.
    pub fn host_with_game(&self, game: &str, version: Option<&str>) -> Option<String> {
        if self.has_game(game, version) {
            return None;
        }
        let wanted = |build: &String| match version {
            Some(version) => *build == format!("{game}@{version}"),
            None => build.split_once('@').is_some_and(|(name, _)| name == game),
        };
        let hosts = self.store.hosts().ok()?;
        hosts
            .into_iter()
            .find(|host| host.builds.iter().any(wanted))
            .map(|host| host.address)
    }

    /// Another live host that has loaded the plugin version `match_id` was
    /// created with, when this host has not: where the match can be played.
    pub fn host_with_build_of(&self, match_id: &str) -> Option<String> {
        let stored = self.store.load(match_id).ok()??;
        let (game, version) = (&stored.setup.game, &stored.setup.plugin_version);
        self.host_with_game(game, Some(version))
    }

    /// The live hosts of the store and the builds each has (none: this
    /// host is alone on its store, or the store cannot say now).
    pub(super) fn hosts_by_build(&self) -> HostsByBuild {
        HostsByBuild(self.store.hosts().unwrap_or_default())
    }

    /// Tells the other hosts of the store which builds this host has.
    pub(super) fn publish_builds(&self) {
        let builds: Vec<String> = self
            .catalog
            .all()
            .iter()
            .map(|plugin| format!("{}@{}", plugin.manifest().name, plugin.manifest().version))
            .collect();
        self.store.set_builds(&builds);
    }

    /// Lets go of every match held: this host's leases lapsed, and other
    /// hosts may serve them now. Their watchers read them back, through
    /// whichever host holds them (see `grpc/watch.rs`).
    fn let_go_of_every_match(&self) -> usize {
        let slots = self.table.all();
        let mut let_go = 0;
        for slot in slots {
            let match_id = super::live::lock(&slot).setup().match_id.clone();
            self.table.discard(&match_id);
            let_go += 1;
        }
        let_go
    }

    /// Takes up to `SWEEP_BATCH` matches no live host holds and makes
    /// them live here; returns how many.
    pub fn take_orphans(&self) -> usize {
        let orphans = match self.store.orphans(SWEEP_BATCH) {
            Ok(orphans) => orphans,
            Err(e) => {
                tracing::debug!(error = %e, "cannot look for matches no host holds");
                return 0;
            }
        };
        let mut taken = 0;
        for match_id in orphans {
            if self.holds(&match_id) {
                continue;
            }
            match self.slot(&match_id) {
                Ok(_) => taken += 1,
                Err(HostError::MatchMoved { .. }) => {}
                Err(e) => {
                    tracing::warn!(match_id, error = %e, "cannot take over a match whose host is gone")
                }
            }
        }
        taken
    }

    /// Starts the threads of a host among several: one lets go of every
    /// match when the leases lapse, one takes the matches of dead hosts
    /// every half `lease`.
    pub fn spawn_cluster_threads(self: &Arc<Self>, lease: Duration) {
        self.reread_credentials();
        let mut lost = self.store.leases_lost();
        let engine = Arc::clone(self);
        let following = std::thread::Builder::new()
            .name("leases".into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_current_thread().build() {
                    Ok(runtime) => runtime,
                    Err(e) => {
                        tracing::error!(error = %e, "cannot follow this host's leases");
                        return;
                    }
                };
                while runtime.block_on(lost.changed()).is_ok() {
                    let let_go = engine.let_go_of_every_match();
                    tracing::warn!(let_go, "let go of every match held: the leases lapsed");
                }
            });
        if let Err(e) = following {
            tracing::error!(error = %e, "cannot start the leases thread");
        }
        let engine = Arc::clone(self);
        let sweeping = std::thread::Builder::new()
            .name("orphans".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(lease / 2);
                    if Arc::strong_count(&engine) == 1 {
                        return;
                    }
                    engine.take_orphans();
                    engine.reread_credentials();
                }
            });
        if let Err(e) = sweeping {
            tracing::error!(error = %e, "cannot start the orphans thread");
        }
    }

    /// Reads the credentials again: other hosts issue and revoke them too.
    /// The streams opened with one revoked elsewhere are told, as for a
    /// revocation here.
    pub fn reread_credentials(&self) {
        match self.credentials.reread() {
            Ok(gone) => {
                for credential_id in gone {
                    self.withdrawals.tell(Withdrawn::Credential(credential_id));
                }
            }
            Err(e) => tracing::debug!(error = %e, "cannot read the credentials again"),
        }
    }

    /// Leaves the hosts of a shared store at a graceful stop: every lease
    /// is given up, so the other hosts take the matches at once.
    pub fn leave_hosts(&self) {
        match self.store.leave() {
            Ok(0) => {}
            Ok(released) => {
                tracing::info!(released, "gave up this host's matches to the other hosts")
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot give up this host's matches; other hosts take them when the lease runs out")
            }
        }
    }
}

/// The live hosts of a shared store, to look up who has a build.
pub(super) struct HostsByBuild(Vec<HostRow>);

impl HostsByBuild {
    /// The addresses of the hosts that have loaded `game` at `version`.
    pub(super) fn of(&self, game: &str, version: &str) -> Vec<String> {
        let build = format!("{game}@{version}");
        self.0
            .iter()
            .filter(|host| host.builds.contains(&build))
            .map(|host| host.address.clone())
            .collect()
    }
}
