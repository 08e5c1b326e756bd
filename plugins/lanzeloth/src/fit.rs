//! Where a tile fits (ruling Z4) and where it must go (ruling Z5).

use tabletop_sdk::Player;

use crate::position::Position;
use crate::tile::Number;

/// A place a tile can be put.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Place {
    /// A new middle stack (only a 1 starts one).
    NewMiddle,
    /// An existing middle stack, by index, oldest first.
    Middle(usize),
    /// A player's open pile (the holder's own pile is where a tile that fits
    /// nowhere goes, and, in `penalty` mode, a possible wrong placement).
    Pile(Player),
}

impl Position {
    /// Whether `tile`, held by `holder`, fits at `place` (ruling Z4). A tile never
    /// fits on its holder's own pile; a complete middle stack (top `max_number`)
    /// takes nothing; there is no wrap-around.
    pub fn fits(&self, tile: Number, holder: Player, place: Place) -> bool {
        match place {
            Place::NewMiddle => tile == 1,
            Place::Middle(i) => self.middle.get(i).is_some_and(|&top| tile == top + 1),
            Place::Pile(q) => {
                // A player taken out left the table: nothing fits on its pile.
                q != holder
                    && !self.is_out(q)
                    && self
                        .open
                        .get(q as usize)
                        .and_then(|pile| pile.last())
                        .is_some_and(|&top| tile.abs_diff(top) == 1)
            }
        }
    }

    /// The one legal place for `tile` held by `holder` (ruling Z5): a new middle
    /// stack for a 1; else the oldest middle stack it fits; else the open pile of
    /// the nearest player to the left that it fits. `None`: it fits nowhere.
    pub fn priority_place(&self, tile: Number, holder: Player) -> Option<Place> {
        if tile == 1 {
            return Some(Place::NewMiddle);
        }
        if let Some(i) = self.middle.iter().position(|&top| tile == top + 1) {
            return Some(Place::Middle(i));
        }
        let n = self.rules.players;
        (1..n)
            .map(|k| (holder + k) % n)
            .map(Place::Pile)
            .find(|&place| self.fits(tile, holder, place))
    }

    /// Whether the top of `player`'s open pile fits somewhere (ruling Z6's
    /// condition for `play-open`).
    pub fn open_top_fits(&self, player: Player) -> bool {
        self.open(player)
            .last()
            .is_some_and(|&top| self.priority_place(top, player).is_some())
    }

    /// Puts `tile` at `place`: a new middle stack is appended (so indices of
    /// older stacks never change).
    pub(crate) fn put(&mut self, tile: Number, place: Place) {
        match place {
            Place::NewMiddle => self.middle.push(tile),
            Place::Middle(i) => {
                if let Some(top) = self.middle.get_mut(i) {
                    *top = tile;
                }
            }
            Place::Pile(q) => {
                if let Some(pile) = self.open.get_mut(q as usize) {
                    pile.push(tile);
                }
            }
        }
    }
}
