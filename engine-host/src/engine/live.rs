//! A match as the engine holds it: the core's [`Match`] plus what only the
//! host tracks about it (how its plugin may be called, what the store
//! holds of it, since when it is over, its join codes, whether bots play
//! it), and the lock every call takes on it.

use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use std::time::Instant;

use tabletop_core::error::Credential;
use tabletop_core::tokens::{hash_token, hashes_equal};
use tabletop_core::{HostError, HostResult, Lifecycle, Match};

use super::inline::Trust;
use crate::store::{Change, LifecycleEvent};

/// Each seat's secret hash as stored (None: no secret for that seat).
pub type SeatHashes = Vec<Option<[u8; 32]>>;

/// A live match: what the core knows, and the host's bookkeeping for it.
#[derive(Debug)]
pub struct LiveMatch {
    game_match: Match,
    /// Whether its plugin's calls may run on the caller's thread (see
    /// [`super::inline`]).
    trust: Arc<Trust>,
    /// Whether the store holds held actions for this match (as of the last
    /// write), so a write whose match holds none need not clear them.
    store_holds_pending: bool,
    /// Since when it has been finished in memory (loaded finished, or
    /// finished here): it leaves memory once that is longer ago than the
    /// retention and nobody watches it.
    finished_at: Option<Instant>,
    /// Per seat, the hash of the code that lets a player take it while it
    /// is open; None for a seat anyone may take (or already taken). Empty:
    /// no seat needs one.
    join_codes: SeatHashes,
    /// Whether a seat is played by the host's bot: only such a match is
    /// looked at for bot moves after a change.
    plays_bots: bool,
}

impl LiveMatch {
    /// `game_match`, whose plugin calls are trusted as `trust` says, as
    /// freshly stored (`store_holds_pending`: whether the store holds held
    /// actions for it), with its open seats' join codes.
    pub(super) fn new(
        game_match: Match,
        trust: Arc<Trust>,
        store_holds_pending: bool,
        join_codes: SeatHashes,
    ) -> LiveMatch {
        let finished_at = (game_match.lifecycle() == Lifecycle::Finished).then(Instant::now);
        let plays_bots = game_match.has_bots();
        LiveMatch {
            plays_bots,
            game_match,
            trust,
            store_holds_pending,
            finished_at,
            join_codes,
        }
    }

    /// Whether (and how long) its plugin's calls may run on the caller's
    /// thread.
    pub(super) fn trust(&self) -> &Arc<Trust> {
        &self.trust
    }

    /// Its plugin's calls are trusted as `trust` says: it moved to
    /// another build of its game.
    pub(super) fn set_trust(&mut self, trust: Arc<Trust>) {
        self.trust = trust;
    }

    /// Since when it has been over in memory; `None` while it is not.
    pub(super) fn finished_at(&self) -> Option<Instant> {
        self.finished_at
    }

    /// Whether a seat is played by the host's bot.
    pub(super) fn plays_bots(&self) -> bool {
        self.plays_bots
    }

    /// What changed since `version_before`, as the store takes it, with
    /// `lifecycle` the rows that describe it. The held actions go along
    /// only when they differ from what the store holds.
    pub(super) fn change_since<'a>(
        &'a self,
        version_before: u64,
        lifecycle: &'a [LifecycleEvent],
    ) -> Change<'a> {
        let m = &self.game_match;
        let pending = m.held_actions();
        let unchanged = pending.is_empty() && !self.store_holds_pending;
        let finished = m.lifecycle() == Lifecycle::Finished;
        Change {
            entries: &m.log()[version_before as usize..],
            pending: (!unchanged).then_some(pending),
            results: if finished { m.results() } else { &[] },
            lifecycle,
            finished_log: finished.then(|| m.log()),
        }
    }

    /// Notes that the store has queued what the match holds now; returns
    /// whether the match finished with that change (it did not, as far as
    /// this host knew, before).
    pub(super) fn stored(&mut self) -> bool {
        self.store_holds_pending = !self.game_match.held_actions().is_empty();
        let finished = self.game_match.lifecycle() == Lifecycle::Finished;
        if finished && self.finished_at.is_none() {
            self.finished_at = Some(Instant::now());
            return true;
        }
        false
    }

    /// Notes that `seat` was just taken: its join code no longer opens it,
    /// and the player may be a bot.
    pub(super) fn seat_taken(&mut self, seat: u32) {
        if let Some(code) = self.join_codes.get_mut(seat as usize) {
            *code = None;
        }
        self.plays_bots = self.game_match.has_bots();
    }

    /// The seat a join may take (`None`: the lowest open one anyone may
    /// take), or why it may not: `join_code` opens the seat it was issued
    /// for; an organizer may seat anyone anywhere; anyone else takes a seat
    /// that needs no code.
    pub(super) fn seat_to_join(
        &self,
        by_organizer: bool,
        seat: Option<u32>,
        join_code: &str,
    ) -> HostResult<Option<u32>> {
        let players = self.game_match.setup().players;
        let code_of = |s: u32| self.join_codes.get(s as usize).copied().flatten();
        if !join_code.is_empty() {
            let hash = hash_token(join_code);
            let opened =
                (0..players).find(|&s| code_of(s).is_some_and(|h| hashes_equal(&h, &hash)));
            return match (opened, seat) {
                (Some(opened), Some(asked)) if opened != asked => Err(HostError::BadToken {
                    credential: Credential::JoinCode,
                }),
                (Some(opened), _) => Ok(Some(opened)),
                (None, _) => Err(HostError::BadToken {
                    credential: Credential::JoinCode,
                }),
            };
        }
        if by_organizer {
            return Ok(seat);
        }
        match seat {
            Some(s) if code_of(s).is_some() => Err(HostError::TokenRequired {
                credential: Credential::JoinCode,
            }),
            Some(s) => Ok(Some(s)),
            None => {
                let seats = self.game_match.seats();
                let open = (0..players).filter(|&s| seats[s as usize].token_hash.is_none());
                let mut public = open.clone().filter(|&s| code_of(s).is_none());
                match public.next() {
                    Some(s) => Ok(Some(s)),
                    // Every open seat is invite-only: ask for a code rather
                    // than say there is no seat.
                    None if open.clone().next().is_some() => Err(HostError::TokenRequired {
                        credential: Credential::JoinCode,
                    }),
                    None => Ok(None),
                }
            }
        }
    }
}

impl Deref for LiveMatch {
    type Target = Match;

    fn deref(&self) -> &Match {
        &self.game_match
    }
}

impl DerefMut for LiveMatch {
    fn deref_mut(&mut self) -> &mut Match {
        &mut self.game_match
    }
}

/// The match's lock, however long it takes.
pub(super) fn lock(m: &Mutex<LiveMatch>) -> MutexGuard<'_, LiveMatch> {
    // A panic in host code while holding the lock leaves the match as the last
    // completed call left it (every mutation is applied whole or not at all).
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The match's lock if it is free now; `None` when it is busy (perhaps inside
/// a plugin call that never returns). A poisoned lock is taken as [`lock`]
/// takes it.
pub(super) fn try_lock(m: &Mutex<LiveMatch>) -> Option<MutexGuard<'_, LiveMatch>> {
    match m.try_lock() {
        Ok(m) => Some(m),
        Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    }
}
