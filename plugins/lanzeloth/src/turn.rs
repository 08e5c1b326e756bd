//! Playing a turn: reveals, continuation (ruling Z6), the Esel penalty (Z7),
//! turning the open pile over (Z8), the end (Z9) and the turn limit (Z10).

use std::fmt;

use tabletop_sdk::{ActionId, Player};

use crate::actions::Action;
use crate::fit::Place;
use crate::position::{Phase, Position, Source, Stage};
use crate::rules::EselMode;
use crate::seats::seat;
use crate::tile::{FaceDownTile, Number};

/// One thing that happened during an action, in order. Every step holds only
/// public information: a tile's number appears only once it is face up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Step {
    /// `player`'s open pile of `tiles` tiles became their face-down stack (Z8).
    TurnOver {
        /// Whose pile.
        player: Player,
        /// How many tiles it held.
        tiles: usize,
    },
    /// `player` revealed `tile` from their face-down stack.
    Reveal {
        /// Who.
        player: Player,
        /// The tile, now public.
        tile: Number,
    },
    /// `player` took `tile` from the top of their open pile.
    TakeOpen {
        /// Who.
        player: Player,
        /// The tile.
        tile: Number,
    },
    /// `player` put `tile` at `place`; `correct` is false for an overlooked
    /// possibility (Z7).
    Put {
        /// Who.
        player: Player,
        /// The tile.
        tile: Number,
        /// Where (`Place::Pile(player)` is the own open pile).
        place: Place,
        /// Whether this was the tile's priority place, or, for a tile that
        /// fits nowhere, the own pile.
        correct: bool,
    },
    /// `player` overlooked a possibility and took the donkey tile from
    /// `from` (`None`: nobody held it yet).
    Esel {
        /// The offender.
        player: Player,
        /// Who held the donkey tile before.
        from: Option<Player>,
    },
    /// `from` gave the offender `to` a tile from `source`; `tile` is its
    /// number only when it came from the (public) open pile.
    Gift {
        /// The giver.
        from: Player,
        /// The offender.
        to: Player,
        /// The giver's stack the tile came from.
        source: Source,
        /// The number, if it was face up.
        tile: Option<Number>,
    },
    /// `player` has no tiles left and wins (Z9).
    Win {
        /// The winner.
        player: Player,
    },
    /// The turn passes to `player`.
    TurnPasses {
        /// The next player.
        player: Player,
    },
    /// The turn limit ended the game (Z10).
    TurnLimit,
}

/// Collects the [`Step`]s of an action (or ignores them on the hot path).
pub(crate) trait Journal {
    fn note(&mut self, step: Step);
}

impl Journal for () {
    #[inline]
    fn note(&mut self, _: Step) {}
}

impl Journal for Vec<Step> {
    fn note(&mut self, step: Step) {
        self.push(step);
    }
}

/// Why an action was refused. The message names only public facts (Z11).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlayError {
    /// Nobody, or somebody else, is to move.
    NotYourTurn(String),
    /// The action is not legal now.
    Illegal(String),
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayError::NotYourTurn(m) | PlayError::Illegal(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for PlayError {}

impl Position {
    /// Plays action `id` for `player`; refuses (changing nothing) if it is not legal.
    pub fn play(&mut self, player: Player, id: ActionId) -> Result<(), PlayError> {
        self.play_with(player, id, &mut ())
    }

    /// Like [`Position::play`], also returning what happened, step by step.
    pub fn play_logged(&mut self, player: Player, id: ActionId) -> Result<Vec<Step>, PlayError> {
        let mut steps = Vec::new();
        self.play_with(player, id, &mut steps)?;
        Ok(steps)
    }

    pub(crate) fn play_with<J: Journal>(
        &mut self,
        player: Player,
        id: ActionId,
        journal: &mut J,
    ) -> Result<(), PlayError> {
        let Phase::Play { turn, stage } = self.phase else {
            return Err(PlayError::NotYourTurn("no player is to move now".into()));
        };
        if player != turn {
            // Says whose turn it is, or that `player` was taken out.
            let why = self.refusal(player, Action::Flip).map(|r| r.message);
            return Err(PlayError::NotYourTurn(
                why.unwrap_or_else(|| format!("it is {}'s turn (Z6)", seat(turn))),
            ));
        }
        // Checked before any change: a refused action leaves the state as it was.
        let action =
            Action::from_id(id)
                .filter(|&a| self.is_legal(turn, stage, a))
                .ok_or_else(|| {
                    // The explanation is the message, so it says why (and agrees
                    // with the explain-refusal extension).
                    let why = self.refusal_of_id(player, id).map(|r| r.message);
                    PlayError::Illegal(why.unwrap_or_else(|| {
                        format!("action {id} is not legal for {} now", seat(turn))
                    }))
                })?;
        let p = turn as usize;
        match action {
            Action::Flip => {
                if stage == Stage::Start && self.face_down[p].is_empty() {
                    // Z8: the bottom tile of the open pile becomes the top of
                    // the new face-down stack; everyone saw these tiles.
                    let pile = std::mem::take(&mut self.open[p]);
                    journal.note(Step::TurnOver {
                        player: turn,
                        tiles: pile.len(),
                    });
                    self.face_down[p] = pile.into_iter().rev().map(FaceDownTile::known).collect();
                }
                let Some(tile) = self.face_down[p].pop() else {
                    return Ok(()); // unreachable: Start always has tiles (Z9)
                };
                self.reveals = self.reveals.saturating_add(1);
                journal.note(Step::Reveal {
                    player: turn,
                    tile: tile.number,
                });
                self.resolve(turn, tile.number, Source::FaceDown, journal);
            }
            Action::PlayOpen => {
                let Some(tile) = self.open[p].pop() else {
                    return Ok(()); // unreachable: legality needs an open top
                };
                journal.note(Step::TakeOpen { player: turn, tile });
                self.resolve(turn, tile, Source::Open, journal);
            }
            Action::Place(place) => {
                let Stage::Hand { tile, .. } = stage else {
                    return Ok(()); // unreachable: legality needs a tile in hand
                };
                let correct = self.priority_place(tile, turn) == Some(place);
                self.put(tile, place);
                journal.note(Step::Put {
                    player: turn,
                    tile,
                    place,
                    correct,
                });
                if correct {
                    self.after_fit(turn, journal);
                } else {
                    self.esel(turn, journal);
                }
            }
        }
        Ok(())
    }

    /// A tile just came into `turn`'s hand (Z6).
    fn resolve<J: Journal>(&mut self, turn: Player, tile: Number, from: Source, journal: &mut J) {
        match self.priority_place(tile, turn) {
            None => {
                // Fits nowhere: onto the own open pile, automatically, and the turn ends.
                self.open[turn as usize].push(tile);
                journal.note(Step::Put {
                    player: turn,
                    tile,
                    place: Place::Pile(turn),
                    correct: true,
                });
                self.end_turn(turn, journal);
            }
            Some(place) => match self.rules.esel {
                EselMode::Forced => {
                    self.put(tile, place);
                    journal.note(Step::Put {
                        player: turn,
                        tile,
                        place,
                        correct: true,
                    });
                    self.after_fit(turn, journal);
                }
                EselMode::Penalty => {
                    self.phase = Phase::Play {
                        turn,
                        stage: Stage::Hand { tile, from },
                    };
                }
            },
        }
    }

    /// A tile went to its priority place: win (Z9) or continue (Z6).
    fn after_fit<J: Journal>(&mut self, turn: Player, journal: &mut J) {
        if self.tiles_held(turn) == 0 {
            journal.note(Step::Win { player: turn });
            self.phase = Phase::Over { winner: Some(turn) };
            return;
        }
        if !self.face_down[turn as usize].is_empty() || self.open_top_fits(turn) {
            self.phase = Phase::Play {
                turn,
                stage: Stage::Continue,
            };
        } else {
            // Z6: neither option; Z8 waits for the player's next turn.
            self.end_turn(turn, journal);
        }
    }

    /// Ruling Z7: the offender takes the donkey tile and one tile from every
    /// other player, from the left, each placed under the previous one.
    fn esel<J: Journal>(&mut self, offender: Player, journal: &mut J) {
        journal.note(Step::Esel {
            player: offender,
            from: self.donkey,
        });
        self.donkey = Some(offender);
        let n = self.rules.players;
        for k in 1..n {
            let giver = (offender + k) % n;
            if self.is_out(giver) {
                // Taken out of the game: gives nothing.
                continue;
            }
            let g = giver as usize;
            let (gift, source) = if let Some(t) = self.face_down[g].pop() {
                (t, Source::FaceDown)
            } else if let Some(t) = self.open[g].pop() {
                (FaceDownTile::known(t), Source::Open)
            } else {
                continue; // unreachable: an empty player would have won already
            };
            self.face_down[offender as usize].insert(0, gift);
            journal.note(Step::Gift {
                from: giver,
                to: offender,
                source,
                tile: (source == Source::Open).then_some(gift.number),
            });
            if self.tiles_held(giver) == 0 {
                journal.note(Step::Win { player: giver });
                self.phase = Phase::Over {
                    winner: Some(giver),
                };
                return;
            }
        }
        self.end_turn(offender, journal);
    }

    /// The turn passes to the left, unless the turn limit is reached (Z10).
    /// The next player to the left of `player` still in the game (players
    /// taken out leave the turn order).
    fn next_in(&self, player: Player) -> Player {
        let mut next = self.rules.left_of(player);
        for _ in 0..self.rules.players {
            if !self.is_out(next) {
                break;
            }
            next = self.rules.left_of(next);
        }
        next
    }

    /// Takes `player` out of the game, as the host does when its clock runs
    /// out under `out`: it leaves the turn order, its piles stay where they
    /// are but take no more part (nothing fits on its open pile, it gives no
    /// Esel gifts, Z7), and the game goes on. If it was on turn with a tile
    /// in hand, the tile goes onto its own open pile and the turn passes on
    /// (Z6), or the game ends at the turn limit (Z10). If the player on turn
    /// can no longer continue because its tile or open-pile top fitted only
    /// on that pile, its turn ends as Z6 says. With one player left, that
    /// player wins. Refuses, changing nothing, a seat that does not play, one
    /// already out, or a game that is not in play.
    pub fn remove(&mut self, player: Player) -> Result<(), PlayError> {
        if player >= self.rules.players {
            return Err(PlayError::Illegal(format!(
                "there is no seat {player} in a {}-player game",
                self.rules.players
            )));
        }
        let Phase::Play { turn, stage } = self.phase else {
            return Err(PlayError::Illegal(
                "players are taken out only during play".into(),
            ));
        };
        if self.is_out(player) {
            return Err(PlayError::Illegal(format!(
                "{} is already out",
                seat(player)
            )));
        }
        self.out.push(player);
        let still_in: Vec<Player> = self.players_in().collect();
        // A tile in hand goes onto its holder's own open pile (as one that
        // fits nowhere, Z6) if the holder is the removed player or the game
        // ends now; otherwise the holder may still place it.
        if let Stage::Hand { tile, .. } = stage
            && (turn == player || still_in.len() == 1)
        {
            self.open[turn as usize].push(tile);
        }
        if let [last] = still_in[..] {
            self.phase = Phase::Over { winner: Some(last) };
            return Ok(());
        }
        if turn == player {
            self.end_turn(turn, &mut ());
            return Ok(());
        }
        match stage {
            Stage::Continue
                if self.face_down[turn as usize].is_empty() && !self.open_top_fits(turn) =>
            {
                self.end_turn(turn, &mut ());
            }
            Stage::Hand { tile, .. } if self.priority_place(tile, turn).is_none() => {
                self.open[turn as usize].push(tile);
                self.end_turn(turn, &mut ());
            }
            _ => {}
        }
        Ok(())
    }

    fn end_turn<J: Journal>(&mut self, turn: Player, journal: &mut J) {
        if self.reveals >= self.rules.max_turns {
            journal.note(Step::TurnLimit);
            self.phase = Phase::Over { winner: None };
            return;
        }
        let next = self.next_in(turn);
        journal.note(Step::TurnPasses { player: next });
        self.phase = Phase::Play {
            turn: next,
            stage: Stage::Start,
        };
    }
}
