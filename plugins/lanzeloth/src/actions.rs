//! The actions (ruling Z6) and their stable integer ids.

use tabletop_sdk::{ActionId, Player};

use crate::fit::Place;
use crate::position::Position;
use crate::position::{Phase, Source, Stage};
use crate::rules::{MAX_PLAYERS, Rules};

/// One action of the player on turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    /// Reveal the top tile of the own face-down stack (`flip`).
    Flip,
    /// Take the top tile of the own open pile to play it (`play-open`).
    PlayOpen,
    /// Put the tile in hand at a place (`place new`, `place m2`, `place p3`).
    Place(Place),
}

const FLIP: ActionId = 0;
const PLAY_OPEN: ActionId = 1;
const PLACE_NEW: ActionId = 2;
const PLACE_PILE: ActionId = 3;
/// The first id after the piles of the most players; ids from here up to
/// [`PLACE_MIDDLE`] name no action.
const PLACE_PILE_END: ActionId = PLACE_PILE + MAX_PLAYERS as ActionId;
/// The id of `place m1`.
pub(crate) const PLACE_MIDDLE: ActionId = 16;

/// How many action ids a match under `rules` can use: every id it can ever
/// make legal is below this. Middle stacks start with a 1, so there are at
/// most `copies` of them.
pub fn action_space(rules: &Rules) -> ActionId {
    PLACE_MIDDLE + ActionId::from(rules.copies)
}

impl Action {
    /// The stable id: `flip` 0, `play-open` 1, `place new` 2, `place p<k>`
    /// 2 + k (k from 1 to 6), `place m<k>` 15 + k (k counted from 1).
    pub fn id(self) -> ActionId {
        match self {
            Action::Flip => FLIP,
            Action::PlayOpen => PLAY_OPEN,
            Action::Place(Place::NewMiddle) => PLACE_NEW,
            Action::Place(Place::Pile(q)) => PLACE_PILE + ActionId::from(q),
            Action::Place(Place::Middle(i)) => PLACE_MIDDLE + i as ActionId,
        }
    }

    /// The action with id `id`, if the id is well-formed (legality is separate).
    pub fn from_id(id: ActionId) -> Option<Action> {
        match id {
            FLIP => Some(Action::Flip),
            PLAY_OPEN => Some(Action::PlayOpen),
            PLACE_NEW => Some(Action::Place(Place::NewMiddle)),
            PLACE_PILE..PLACE_PILE_END => {
                Some(Action::Place(Place::Pile((id - PLACE_PILE) as Player)))
            }
            PLACE_PILE_END..PLACE_MIDDLE => None,
            _ => usize::try_from(id - PLACE_MIDDLE)
                .ok()
                .filter(|&i| i < 256)
                .map(|i| Action::Place(Place::Middle(i))),
        }
    }
}

impl Position {
    /// The legal actions of `player`, ascending by id; empty unless on turn.
    pub fn legal_actions(&self, player: Player, out: &mut Vec<ActionId>) {
        out.clear();
        let Phase::Play { turn, stage } = self.phase else {
            return;
        };
        if player != turn {
            return;
        }
        match stage {
            Stage::Start => out.push(FLIP),
            Stage::Continue => {
                if !self.face_down[turn as usize].is_empty() {
                    out.push(FLIP);
                }
                if self.open_top_fits(turn) {
                    out.push(PLAY_OPEN);
                }
            }
            Stage::Hand { tile, from } => {
                if tile == 1 {
                    out.push(PLACE_NEW);
                }
                for q in 0..self.rules.players {
                    let own = q == turn && from == Source::FaceDown;
                    if own || self.fits(tile, turn, Place::Pile(q)) {
                        out.push(Action::Place(Place::Pile(q)).id());
                    }
                }
                for (i, _) in self.middle.iter().enumerate() {
                    if self.fits(tile, turn, Place::Middle(i)) {
                        out.push(Action::Place(Place::Middle(i)).id());
                    }
                }
            }
        }
    }

    /// Whether `action` is legal for the player on turn (without building the list).
    pub(crate) fn is_legal(&self, turn: Player, stage: Stage, action: Action) -> bool {
        match (stage, action) {
            (Stage::Start, Action::Flip) => true,
            (Stage::Continue, Action::Flip) => !self.face_down[turn as usize].is_empty(),
            (Stage::Continue, Action::PlayOpen) => self.open_top_fits(turn),
            (Stage::Hand { tile, from }, Action::Place(place)) => {
                (place == Place::Pile(turn) && from == Source::FaceDown)
                    || self.fits(tile, turn, place)
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip() {
        let actions = [
            Action::Flip,
            Action::PlayOpen,
            Action::Place(Place::NewMiddle),
            Action::Place(Place::Pile(0)),
            Action::Place(Place::Pile(5)),
            Action::Place(Place::Middle(0)),
            Action::Place(Place::Middle(39)),
        ];
        for a in actions {
            assert_eq!(Action::from_id(a.id()), Some(a));
        }
        // Ids grow in the order the legal list is built.
        let ids: Vec<_> = actions.iter().map(|a| a.id()).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(Action::from_id(u64::MAX), None);
        // Ids between the sixth player's pile and the first middle stack are unused.
        assert_eq!(Action::from_id(8), Some(Action::Place(Place::Pile(5))));
        assert!((9..16).all(|id| Action::from_id(id).is_none()));
    }
}
