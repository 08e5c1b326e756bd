//! Held simultaneous moves: in a turn where several seats move at once, each
//! seat's action is checked and held (only the submitter learns it was
//! legal; the others learn only *that* it acted) until every mover has
//! acted, then applied as one joint action (see [`Match::submit`]).

use serde::{Deserialize, Serialize};
use tabletop_sdk::{ActionId, Attempt, GameError, Move, Player, PlayerSet};

use crate::Match;
use crate::error::HostResult;
use crate::game_match::Submitted;

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
/// far back it was held ([`LoggedMove::held`](crate::LoggedMove::held)).
pub(crate) type TimedMove = (Move, i64, Option<u8>);

impl Match {
    /// The actions held for the current simultaneous turn, in the order
    /// they were submitted.
    pub fn held_actions(&self) -> &[HeldAction] {
        &self.pending
    }

    /// `seat`'s held action, if it has acted in the current turn.
    pub(crate) fn held_by(&self, seat: Player) -> Option<&HeldAction> {
        self.pending.iter().find(|h| h.seat == seat)
    }

    /// Whether `seat` has acted in the current simultaneous turn.
    pub(crate) fn has_held(&self, seat: Player) -> bool {
        self.held_by(seat).is_some()
    }

    /// Holds `seat`'s action, charges its clock and tells watchers it acted.
    pub(crate) fn push_held(&mut self, held: HeldAction) -> HostResult<()> {
        self.pending.push(held);
        self.charge(held.seat, held.at_ms);
        self.publish_seat_acted(held.seat, held.at_ms)
    }

    /// One mover's part of a simultaneous turn (`movers` has several seats):
    /// checked against its legal actions and held; the last mover's part
    /// completes the turn, which is applied as one joint action.
    pub(crate) fn hold(
        &mut self,
        seat: Player,
        action: ActionId,
        now: i64,
        movers: PlayerSet,
    ) -> HostResult<Submitted> {
        let mut legal = std::mem::take(&mut self.scratch);
        let checked = self.state.legal_actions(seat, &mut legal);
        let is_legal = legal.binary_search(&action).is_ok();
        self.scratch = legal;
        checked?;
        if !is_legal {
            let refusal = GameError::illegal(format!(
                "action {action} is not legal for {}",
                self.seat_label(seat)
            ));
            return Err(crate::refusal::explained(
                self.state.as_ref(),
                seat,
                Attempt::Id(action),
                refusal,
            ));
        }
        if self.pending.len() + 1 < movers.len() {
            self.push_held(HeldAction {
                seat,
                action,
                at_ms: now,
                at_version: self.version(),
            })?;
            return Ok(Submitted::Pending);
        }
        let last = Move {
            player: seat,
            action,
        };
        self.apply_turn(Some((last, now)), now)?;
        Ok(Submitted::Applied)
    }

    /// The held actions, then `last` (the move that completes the turn, if
    /// any), as logged moves in the order they were submitted and as the
    /// joint action the plugin applies (by seat).
    pub(crate) fn turn_moves(&self, last: Option<(Move, i64)>) -> (Vec<Move>, Vec<TimedMove>) {
        let version = self.version();
        let mut timed: Vec<TimedMove> = self
            .pending
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
