//! Seats played by the host's bots: which seats they are, which of them
//! must act now, and what a bot may search from — the match as its seat sees
//! it, never the state itself.
//!
//! A bot gets a *determinization* of the current state for its seat: the
//! game's resampler ([`DynState::resample`]) deals everything the seat
//! cannot see anew, consistently with everything it can. Whatever the bot
//! then does with that state, it cannot learn a hidden tile or a pending
//! order the seat could not. A game without hidden information resamples
//! to a copy.

use tabletop_sdk::{DynState, Player, Viewer};

use crate::Match;
use crate::error::HostResult;
use crate::setup::{Lifecycle, now_ms};

/// What a bot seat needs to choose its action: the match as the seat sees
/// it, at a version.
pub struct BotTurn {
    /// The seat to act.
    pub seat: Player,
    /// The bot's spec, as the seat's player says.
    pub spec: String,
    /// The match's version: the bot submits with it, so a choice made for
    /// a match that has moved on is refused, not applied.
    pub version: u64,
    /// Seats in the match.
    pub players: u32,
    /// The current state resampled for the seat (see the module docs).
    pub state: Box<dyn DynState>,
    /// Time left on the seat's clock, if the match has one.
    pub clock_remaining_ms: Option<i64>,
}

impl std::fmt::Debug for BotTurn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BotTurn")
            .field("seat", &self.seat)
            .field("spec", &self.spec)
            .field("version", &self.version)
            .field("players", &self.players)
            .field("clock_remaining_ms", &self.clock_remaining_ms)
            .finish_non_exhaustive()
    }
}

impl Match {
    /// Whether any seat is played by the host's bot.
    pub fn has_bots(&self) -> bool {
        (0..self.setup.players).any(|seat| self.player(seat).is_bot())
    }

    /// The bot seats that must act now: the match runs and is not paused,
    /// the seat is to move, and (in a simultaneous turn) has not acted yet.
    pub fn bot_seats_to_act(&self) -> HostResult<Vec<Player>> {
        if self.lifecycle != Lifecycle::Running || self.paused_at.is_some() {
            return Ok(Vec::new());
        }
        let movers = self.movers()?;
        Ok(movers
            .iter()
            .filter(|&seat| !self.has_held(seat) && self.player(seat).is_bot())
            .collect())
    }

    /// What the bot of `seat` searches from, if it must act now (see
    /// [`Match::bot_seats_to_act`]); `random` seeds the resampler.
    pub fn bot_turn(&self, seat: Player, random: u64) -> HostResult<Option<BotTurn>> {
        if !self.bot_seats_to_act()?.contains(&seat) {
            return Ok(None);
        }
        let state = self.state.resample(Viewer::Seat(seat), random)?;
        Ok(Some(BotTurn {
            seat,
            spec: self.player(seat).bot,
            version: self.version(),
            players: self.setup.players,
            state,
            clock_remaining_ms: self.clock_remaining(seat, now_ms()),
        }))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use tabletop_sdk::{DynGame, InProcess};

    use crate::tokens::hash_token;
    use crate::{Match, MatchSetup, SeatPlayer, Submitted};

    /// A two-seat Lanza match (simultaneous orders) with seat 1 played by
    /// the bot `random`.
    fn lanza_with_bot() -> Match {
        let game: Arc<dyn DynGame> = Arc::new(InProcess::new(lanza::Lanza));
        let setup = MatchSetup {
            match_id: "m".into(),
            game: "lanza".into(),
            plugin_version: "1".into(),
            players: 2,
            options: Default::default(),
            seed: 3,
            start_position: None,
            created_at_ms: 0,
            time_control: None,
            labels: Default::default(),
            open_seat_deadline: None,
            spectator_delay: None,
            seat_players: vec![SeatPlayer {
                seat: 1,
                display_name: "random".into(),
                external_id: String::new(),
                bot: "random".into(),
            }],
        };
        let hashes = vec![Some(hash_token("a")), Some(hash_token("unknown"))];
        Match::create(game, setup, hashes).unwrap()
    }

    #[test]
    fn a_bot_seat_acts_until_it_has_acted_in_a_simultaneous_turn() {
        let mut m = lanza_with_bot();
        assert!(m.has_bots());
        assert_eq!(m.bot_seats_to_act().unwrap(), vec![1]);
        assert!(m.bot_turn(0, 1).unwrap().is_none(), "seat 0 is a client's");
        let turn = m.bot_turn(1, 1).unwrap().expect("the bot is to move");
        assert_eq!((turn.seat, turn.version, turn.players), (1, m.version(), 2));
        assert_eq!(turn.spec, "random");
        let mut legal = Vec::new();
        turn.state.legal_actions(1, &mut legal).unwrap();
        let version = m.version();
        assert_eq!(
            m.submit(1, legal[0], Some(version)).unwrap(),
            Submitted::Pending
        );
        assert!(m.bot_seats_to_act().unwrap().is_empty());
        assert!(m.bot_turn(1, 1).unwrap().is_none());
    }

    #[test]
    fn a_bot_searches_a_resample_not_the_match_state() {
        let m = lanza_with_bot();
        let seen = m.state.view(tabletop_sdk::Viewer::Seat(1)).unwrap();
        for random in 0..4 {
            let turn = m.bot_turn(1, random).unwrap().unwrap();
            // Whatever was dealt anew, the seat sees what it saw.
            let view = turn.state.view(tabletop_sdk::Viewer::Seat(1)).unwrap();
            assert_eq!(view, seen);
        }
    }
}
