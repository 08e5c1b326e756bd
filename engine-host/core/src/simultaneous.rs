//! Held simultaneous moves: in a turn where several seats move at once, each
//! seat's action is checked and held (only the submitter learns it was
//! legal; the others learn only *that* it acted) until every mover has
//! acted, then applied as one joint action (see [`Match::submit`]).

use tabletop_sdk::{ActionId, Move, Player, PlayerSet};

use crate::Match;
use crate::error::{HostError, HostResult};
use crate::game_match::Submitted;

impl Match {
    /// Puts back the held simultaneous actions after a restart: (seat, action,
    /// submitted at ms). Each must belong to a seat to move now.
    pub fn restore_pending(&mut self, pending: &[(u32, u64, i64)]) -> HostResult<()> {
        if pending.is_empty() {
            return Ok(());
        }
        let movers = self.movers()?;
        for &(seat, action, at) in pending {
            if !movers.contains(seat) {
                return Err(HostError::Internal(format!(
                    "seat {seat} holds a pending action but is not to move"
                )));
            }
            self.pending.insert(seat, (action, at));
            self.charge(seat, at);
        }
        Ok(())
    }

    /// The actions held for the current simultaneous turn, as stored:
    /// (seat, action, submitted at ms), by seat.
    pub fn held_actions(&self) -> Vec<(u32, u64, i64)> {
        self.pending
            .iter()
            .map(|(&seat, &(action, at))| (seat, action, at))
            .collect()
    }

    /// The held actions as one joint action, each with its submission time.
    pub(crate) fn held_joint_action(&self) -> Vec<(Move, i64)> {
        self.pending
            .iter()
            .map(|(&player, &(action, at))| (Move { player, action }, at))
            .collect()
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
            return Err(HostError::IllegalAction(format!(
                "action {action} is not legal for seat {seat}"
            )));
        }
        self.pending.insert(seat, (action, now));
        if self.pending.len() < movers.len() {
            self.charge(seat, now);
            self.publish_seat_acted(seat);
            return Ok(Submitted::Pending);
        }
        let timed = self.held_joint_action();
        let result = self.apply_timed_moves(&timed, now);
        if result.is_err() {
            // The joint action was refused as a whole (a plugin bug, since each
            // part was legal): drop only this seat's part so the others stand.
            self.pending.remove(&seat);
        }
        result.map(|()| Submitted::Applied)
    }
}
