//! A match as the engine holds it: the core's [`Match`] plus what only the
//! host tracks about it.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;
use std::time::Instant;

use tabletop_core::{Lifecycle, Match};

use super::inline::Trust;

/// A live match: what the core knows, and the host's bookkeeping for it.
#[derive(Debug)]
pub struct LiveMatch {
    game_match: Match,
    /// Whether its plugin's calls may run on the caller's thread (see
    /// [`super::inline`]).
    pub(super) trust: Arc<Trust>,
    /// Whether the store holds held actions for this match (as of the last
    /// write), so a write whose match holds none need not clear them.
    pub(super) store_holds_pending: bool,
    /// Since when it has been finished in memory (loaded finished, or
    /// finished here): it leaves memory once that is longer ago than the
    /// retention and nobody watches it.
    pub(super) finished_at: Option<Instant>,
    /// Per seat, the hash of the code that lets a player take it while it
    /// is open; None for a seat anyone may take (or already taken). Empty:
    /// no seat needs one.
    pub(super) join_codes: Vec<Option<[u8; 32]>>,
    /// Whether a seat is played by the host's bot: only such a match is
    /// looked at for bot moves after a change.
    pub(super) has_bots: bool,
}

impl LiveMatch {
    /// `game_match`, whose plugin calls are trusted as `trust` says, as
    /// freshly stored (`store_holds_pending`: whether the store holds held
    /// actions for it), with its open seats' join codes.
    pub(super) fn new(
        game_match: Match,
        trust: Arc<Trust>,
        store_holds_pending: bool,
        join_codes: Vec<Option<[u8; 32]>>,
    ) -> LiveMatch {
        let finished_at = (game_match.lifecycle() == Lifecycle::Finished).then(Instant::now);
        let has_bots = game_match.has_bots();
        LiveMatch {
            has_bots,
            game_match,
            trust,
            store_holds_pending,
            finished_at,
            join_codes,
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
