//! The game state: piles (ruling Z3), whose turn it is, and the donkey.
//!
//! A [`RawPosition`] is any assignment of tiles to places; [`Position::from_raw`]
//! checks it against the rules and only then yields a [`Position`], the one
//! type the game plays on.

use std::fmt;

use tabletop_sdk::Player;

use crate::rules::{EselMode, Rules};
use crate::seats::seat;
use crate::tile::{FaceDownTile, Number};

/// Where a tile in hand came from (it matters for ruling Z7: a tile taken from
/// the own open pile cannot go back onto it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// Revealed from the top of the own face-down stack.
    FaceDown,
    /// Taken from the top of the own open pile.
    Open,
}

/// Where the player on turn is within their turn (ruling Z6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    /// The turn has begun: the only action is `flip` (which first turns the
    /// open pile over if the face-down stack is empty, ruling Z8).
    Start,
    /// The last tile went to its priority place: `flip` or `play-open`.
    Continue,
    /// `esel = penalty` only: a tile that fits somewhere is in hand and the
    /// player chooses where to put it (`place <where>`).
    Hand {
        /// The tile in hand (public: it has been revealed).
        tile: Number,
        /// Where it came from.
        from: Source,
    },
}

/// The phase of the match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Chance shuffles and deals the tiles (ruling Z2, a sampled chance node).
    Deal,
    /// Chance picks the starting player (ruling Z2, explicit, uniform).
    FirstPlayer,
    /// `turn` is to act.
    Play {
        /// The player on turn.
        turn: Player,
        /// Where they are in their turn.
        stage: Stage,
    },
    /// The game is over: `winner` emptied their piles first (ruling Z9), or
    /// `None` when the turn limit ended it (ruling Z10).
    Over {
        /// The first player without tiles.
        winner: Option<Player>,
    },
}

/// An unvalidated position: every field public, any values.
/// Stacks and piles list tiles bottom first, top last.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RawPosition {
    /// The phase.
    pub phase: Phase,
    /// Each player's face-down stack (Z3).
    pub face_down: Vec<Vec<FaceDownTile>>,
    /// Each player's open pile (Z3).
    pub open: Vec<Vec<Number>>,
    /// The tops of the middle stacks, oldest first; a stack holds 1..=top (Z3, Z4).
    pub middle: Vec<Number>,
    /// Tiles removed face down at the deal (Z2).
    pub removed: Vec<Number>,
    /// Who holds the donkey tile, if anyone (Z7).
    pub donkey: Option<Player>,
    /// Tiles revealed so far (Z10).
    pub reveals: u32,
    /// Seats taken out of the game by the host (clock `out`), in the order
    /// they left; see [`Position::remove`].
    pub out: Vec<Player>,
}

/// Why a [`RawPosition`] is not a valid position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PositionError(pub(crate) String);

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PositionError {}

fn invalid(message: impl Into<String>) -> PositionError {
    PositionError(message.into())
}

/// A validated game state.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) rules: Rules,
    pub(crate) phase: Phase,
    pub(crate) face_down: Vec<Vec<FaceDownTile>>,
    pub(crate) open: Vec<Vec<Number>>,
    pub(crate) middle: Vec<Number>,
    pub(crate) removed: Vec<Number>,
    pub(crate) donkey: Option<Player>,
    pub(crate) reveals: u32,
    /// Seats taken out, in the order they left ([`Position::remove`]).
    pub(crate) out: Vec<Player>,
}

impl Position {
    /// The start of a match: nothing dealt yet, chance to deal (ruling Z2).
    pub fn new(rules: Rules) -> Position {
        let n = rules.players as usize;
        Position {
            rules,
            phase: Phase::Deal,
            face_down: vec![Vec::new(); n],
            open: vec![Vec::new(); n],
            middle: Vec::new(),
            removed: Vec::new(),
            donkey: None,
            reveals: 0,
            out: Vec::new(),
        }
    }

    /// Validates `raw` under `rules`: the right number of players, tile numbers
    /// in range, every tile of the set exactly once (once dealt), a phase and
    /// stage that the game can actually reach.
    pub fn from_raw(rules: Rules, raw: RawPosition) -> Result<Position, PositionError> {
        // One piece: the checks in the order their errors are reported, each
        // a few lines over the same raw position.
        let n = rules.players as usize;
        if raw.face_down.len() != n || raw.open.len() != n {
            return Err(invalid(format!(
                "this position is for {} players; the match has {n}",
                raw.face_down.len().max(raw.open.len())
            )));
        }
        // Seats before tiles: every seat the position names must exist.
        for seat in [raw.donkey, phase_seat(&raw.phase)]
            .into_iter()
            .flatten()
            .chain(raw.out.iter().copied())
        {
            if seat >= rules.players {
                return Err(invalid(format!(
                    "p{} names no seat: this match has P1 to P{}",
                    u64::from(seat) + 1,
                    rules.players
                )));
            }
        }
        let max = rules.max_number;
        let in_range = |t: Number| (1..=max).contains(&t);
        let all_numbers = raw
            .face_down
            .iter()
            .flatten()
            .map(|t| t.number)
            .chain(raw.open.iter().flatten().copied())
            .chain(raw.removed.iter().copied())
            .chain(raw.middle.iter().copied());
        for t in all_numbers {
            if !in_range(t) {
                return Err(invalid(format!("tile {t} is outside 1..{max}")));
            }
        }
        if raw.middle.len() > usize::from(rules.copies) {
            return Err(invalid(format!(
                "{} middle stacks, but there are only {} tiles numbered 1",
                raw.middle.len(),
                rules.copies
            )));
        }
        for (i, &out) in raw.out.iter().enumerate() {
            if raw.out[..i].contains(&out) {
                return Err(invalid(format!("the out list names {} twice", seat(out))));
            }
        }
        if !raw.out.is_empty() {
            if raw.out.len() >= n {
                return Err(invalid("at least one player is still in"));
            }
            if matches!(raw.phase, Phase::Deal | Phase::FirstPlayer) {
                return Err(invalid("players are taken out only during play"));
            }
            if let Some(out) = phase_seat(&raw.phase).filter(|s| raw.out.contains(s)) {
                return Err(invalid(format!(
                    "{} is out, so it is neither on turn nor the winner",
                    seat(out)
                )));
            }
        }
        let hand = match raw.phase {
            Phase::Play {
                stage: Stage::Hand { tile, .. },
                ..
            } => {
                if !in_range(tile) {
                    return Err(invalid(format!("tile {tile} is outside 1..{max}")));
                }
                Some(tile)
            }
            _ => None,
        };

        if raw.phase == Phase::Deal {
            let empty = raw.face_down.iter().all(Vec::is_empty)
                && raw.open.iter().all(Vec::is_empty)
                && raw.middle.is_empty()
                && raw.removed.is_empty();
            if !empty || raw.donkey.is_some() || raw.reveals != 0 {
                return Err(invalid("before the deal every pile is empty"));
            }
        } else {
            // Every tile of the set is somewhere, exactly once (Z1, Z2).
            let mut count = vec![0usize; usize::from(max) + 1];
            for t in raw.face_down.iter().flatten() {
                count[usize::from(t.number)] += 1;
            }
            for &t in raw.open.iter().flatten().chain(&raw.removed).chain(&hand) {
                count[usize::from(t)] += 1;
            }
            for &top in &raw.middle {
                for t in 1..=top {
                    count[usize::from(t)] += 1;
                }
            }
            if let Some(t) = (1..=max).find(|&t| count[usize::from(t)] != usize::from(rules.copies))
            {
                return Err(invalid(format!(
                    "the position holds {} tiles numbered {t}, the set has {}",
                    count[usize::from(t)],
                    rules.copies
                )));
            }
            if raw.removed.len() != rules.removed_count() {
                return Err(invalid(format!(
                    "{} tiles are removed, but dealing {} tiles to {n} players removes {}",
                    raw.removed.len(),
                    rules.total_tiles(),
                    rules.removed_count()
                )));
            }
        }

        let position = Position {
            rules,
            phase: raw.phase,
            face_down: raw.face_down,
            open: raw.open,
            middle: raw.middle,
            removed: raw.removed,
            donkey: raw.donkey,
            reveals: raw.reveals,
            out: raw.out,
        };
        position.check_phase()?;
        Ok(position)
    }

    /// The phase-specific invariants the play loop maintains.
    fn check_phase(&self) -> Result<(), PositionError> {
        let n = self.rules.players;
        match self.phase {
            Phase::Deal => Ok(()),
            Phase::FirstPlayer | Phase::Play { .. } => {
                if self.rules.first_player.is_some() && self.phase == Phase::FirstPlayer {
                    return Err(invalid(
                        "the first player is fixed by option, so chance does not pick one",
                    ));
                }
                let holder = match self.phase {
                    Phase::Play {
                        turn,
                        stage: Stage::Hand { .. },
                    } => Some(turn),
                    _ => None,
                };
                // Z9: an empty player would already have won (players taken
                // out race no more).
                if let Some(p) = (0..n)
                    .find(|&p| Some(p) != holder && !self.is_out(p) && self.tiles_held(p) == 0)
                {
                    return Err(invalid(format!(
                        "{} has no tiles left, so the game would be over (Z9)",
                        seat(p)
                    )));
                }
                let Phase::Play { turn, stage } = self.phase else {
                    return Ok(());
                };
                match stage {
                    Stage::Start if self.reveals >= self.rules.max_turns => Err(invalid(
                        "the turn limit is reached, so no new turn starts (ruling Z10)",
                    )),
                    Stage::Start => Ok(()),
                    Stage::Continue => {
                        if self.face_down[turn as usize].is_empty() && !self.open_top_fits(turn) {
                            Err(invalid(
                                "the player on turn can neither flip nor play the open pile, so the \
                                 turn would have passed (ruling Z6)",
                            ))
                        } else {
                            Ok(())
                        }
                    }
                    Stage::Hand { tile, .. } => {
                        if self.rules.esel == EselMode::Forced {
                            Err(invalid("with esel = forced no tile waits in hand"))
                        } else if self.priority_place(tile, turn).is_none() {
                            Err(invalid(format!(
                                "tile {tile} in hand fits nowhere, so it would be on the own open pile"
                            )))
                        } else {
                            Ok(())
                        }
                    }
                }
            }
            Phase::Over { winner } => match winner {
                // The last player in wins when the others were taken out.
                Some(w) if self.tiles_held(w) != 0 && self.players_in().count() > 1 => {
                    Err(invalid(format!(
                        "{} is named the winner but still holds tiles (Z9)",
                        seat(w)
                    )))
                }
                None if self.reveals < self.rules.max_turns => Err(invalid(
                    "a game without a winner ends only at the turn limit (ruling Z10)",
                )),
                _ => Ok(()),
            },
        }
    }

    /// The position as a [`RawPosition`] (hidden tiles included).
    pub fn to_raw(&self) -> RawPosition {
        RawPosition {
            phase: self.phase,
            face_down: self.face_down.clone(),
            open: self.open.clone(),
            middle: self.middle.clone(),
            removed: self.removed.clone(),
            donkey: self.donkey,
            reveals: self.reveals,
            out: self.out.clone(),
        }
    }

    /// Whether `player` was taken out of the game ([`Position::remove`]).
    pub fn is_out(&self, player: Player) -> bool {
        self.out.contains(&player)
    }

    /// Seats taken out, in the order they left.
    pub fn out(&self) -> &[Player] {
        &self.out
    }

    /// The seats still in, ascending.
    pub fn players_in(&self) -> impl Iterator<Item = Player> + '_ {
        (0..self.rules.players).filter(|&p| !self.is_out(p))
    }

    /// The rules of the match.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The player on turn, during play.
    pub fn turn(&self) -> Option<Player> {
        match self.phase {
            Phase::Play { turn, .. } => Some(turn),
            _ => None,
        }
    }

    /// The winner, once the game is over with one (Z9).
    pub fn winner(&self) -> Option<Player> {
        match self.phase {
            Phase::Over { winner } => winner,
            _ => None,
        }
    }

    /// The size of `player`'s face-down stack: all anyone sees of it (Z11).
    pub fn face_down_len(&self, player: Player) -> usize {
        self.face_down.get(player as usize).map_or(0, Vec::len)
    }

    /// `player`'s face-down stack, bottom first. **Hidden information**: for
    /// tests, records and the end of the game, never for a player's view.
    pub fn face_down(&self, player: Player) -> &[FaceDownTile] {
        self.face_down
            .get(player as usize)
            .map_or(&[], Vec::as_slice)
    }

    /// `player`'s open pile, bottom first (public, Z11).
    pub fn open(&self, player: Player) -> &[Number] {
        self.open.get(player as usize).map_or(&[], Vec::as_slice)
    }

    /// The tops of the middle stacks, oldest first.
    pub fn middle(&self) -> &[Number] {
        &self.middle
    }

    /// The removed tiles. **Hidden information**, like [`Position::face_down`].
    pub fn removed(&self) -> &[Number] {
        &self.removed
    }

    /// Who holds the donkey tile.
    pub fn donkey(&self) -> Option<Player> {
        self.donkey
    }

    /// Tiles revealed so far (the count ruling Z10 limits).
    pub fn reveals(&self) -> u32 {
        self.reveals
    }

    /// The tile in hand, if the player on turn holds one.
    pub fn hand(&self) -> Option<(Number, Source)> {
        match self.phase {
            Phase::Play {
                stage: Stage::Hand { tile, from },
                ..
            } => Some((tile, from)),
            _ => None,
        }
    }

    /// Tiles `player` holds: face-down stack plus open pile (Z9; the donkey
    /// tile and a tile in hand are not counted).
    pub fn tiles_held(&self, player: Player) -> usize {
        self.face_down_len(player) + self.open(player).len()
    }
}

fn phase_seat(phase: &Phase) -> Option<Player> {
    match *phase {
        Phase::Play { turn, .. } => Some(turn),
        Phase::Over { winner } => winner,
        _ => None,
    }
}
