//! Held simultaneous moves: in a turn where several seats move at once, each
//! seat's action is checked and held (only the submitter learns it was
//! legal; the others learn only *that* it acted) until every mover has
//! acted, then applied as one joint action (see
//! [`Match::submit`](crate::Match::submit)).
//!
//! `HeldTurn` keeps the actions held for the current turn: at most one
//! per seat, in the order they were submitted.

use serde::{Deserialize, Serialize};
use tabletop_sdk::{ActionId, Move, Player, PlayerSet};

/// One seat's action held for the current simultaneous turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct HeldAction {
    /// The seat.
    pub seat: u32,
    /// Its action.
    pub action: ActionId,
    /// When it was submitted, ms since the Unix epoch.
    pub at_ms: i64,
    /// The match's version when it was submitted: a seat taken out while
    /// others wait adds entries before the turn completes, and a replayed
    /// history tells watchers of the action where they learned of it live.
    pub at_version: u64,
}

/// The stored forms of a held action: the current one, and the
/// `[seat, action, at_ms]` triple of files written before held actions
/// carried their version (read as held at the match's last version, which
/// is where such a file's turn was).
impl<'de> Deserialize<'de> for HeldAction {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Full {
            seat: u32,
            action: ActionId,
            at_ms: i64,
            at_version: u64,
        }
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Stored {
            Full(Full),
            Triple(u32, ActionId, i64),
        }
        Ok(match Stored::deserialize(deserializer)? {
            Stored::Full(f) => HeldAction {
                seat: f.seat,
                action: f.action,
                at_ms: f.at_ms,
                at_version: f.at_version,
            },
            Stored::Triple(seat, action, at_ms) => HeldAction {
                seat,
                action,
                at_ms,
                at_version: u64::MAX,
            },
        })
    }
}

/// A move of a turn as logged: the move, when it was submitted, and how
/// far back it was held ([`LoggedMove::held`](crate::log::LoggedMove::held)).
pub(crate) type TimedMove = (Move, i64, Option<u8>);

/// The actions held for the current simultaneous turn, in submission
/// order.
#[derive(Debug, Default)]
pub(crate) struct HeldTurn {
    held: Vec<HeldAction>,
}

impl HeldTurn {
    /// The held actions, in the order they were submitted.
    pub(crate) fn all(&self) -> &[HeldAction] {
        &self.held
    }

    /// How many seats have acted.
    pub(crate) fn len(&self) -> usize {
        self.held.len()
    }

    /// `seat`'s held action, if it has acted in the current turn.
    pub(crate) fn by(&self, seat: Player) -> Option<&HeldAction> {
        self.held.iter().find(|h| h.seat == seat)
    }

    /// Whether `seat` has acted in the current turn.
    pub(crate) fn has(&self, seat: Player) -> bool {
        self.by(seat).is_some()
    }

    /// The seats of `movers` that have not acted yet.
    pub(crate) fn waiting(&self, movers: PlayerSet) -> PlayerSet {
        movers.iter().filter(|&seat| !self.has(seat)).collect()
    }

    /// Holds `held`; its seat must not have acted in this turn.
    pub(crate) fn push(&mut self, held: HeldAction) {
        debug_assert!(!self.has(held.seat), "a seat acts once a turn");
        self.held.push(held);
    }

    /// The turn is over (applied, or the match ended).
    pub(crate) fn clear(&mut self) {
        self.held.clear();
    }

    /// Drops the actions of seats no longer in `movers`.
    pub(crate) fn keep_movers(&mut self, movers: PlayerSet) {
        self.held.retain(|h| movers.contains(h.seat));
    }

    /// Drops `seat`'s action: it left the game.
    pub(crate) fn drop_seat(&mut self, seat: Player) {
        self.held.retain(|h| h.seat != seat);
    }

    /// The held actions, then `last` (the move that completes the turn, if
    /// any), as logged moves in the order they were submitted and as the
    /// joint action the plugin applies (by seat); `version` is the match's
    /// now.
    pub(crate) fn turn_moves(
        &self,
        version: u64,
        last: Option<(Move, i64)>,
    ) -> (Vec<Move>, Vec<TimedMove>) {
        let mut timed: Vec<TimedMove> = self
            .held
            .iter()
            .map(|h| {
                let between = version.saturating_sub(h.at_version).min(u8::MAX.into()) as u8;
                (
                    Move {
                        player: h.seat,
                        action: h.action,
                    },
                    h.at_ms,
                    Some(between),
                )
            })
            .collect();
        if let Some((m, at)) = last {
            timed.push((m, at, None));
        }
        let mut joint: Vec<Move> = timed.iter().map(|(m, _, _)| *m).collect();
        joint.sort_by_key(|m| m.player);
        (joint, timed)
    }
}
