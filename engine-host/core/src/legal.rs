//! Legal-action lists kept between calls.
//!
//! A bot asks for its legal actions after every move. Computing them means
//! calling the plugin (the list, then one notation per action). So a match
//! that has been asked for its legal actions keeps the lists of every seat
//! to move, for the current version only, and refreshes them while it
//! applies the next action (under the lock it holds anyway). The next ask is
//! answered from host memory, with no plugin call and no wait for the lock.
//!
//! Notation is written only when someone asks for it: a bot that picks by id
//! ([`LegalDetail::IdsOnly`]) costs one plugin call per mover and move, and
//! the first ask with notation writes the seat's whole list once.
//!
//! The lists take memory (a few hundred bytes to a few KiB per match), so
//! only a bounded number of matches keep them: [`CachedMatches`] admits
//! matches first come, first evicted. A match that is never asked (a client
//! that plays by notation, an idle match) never holds a list.

use std::collections::VecDeque;
use std::sync::Mutex;

use tabletop_sdk::{ActionId, DynState, Player};

use crate::error::HostResult;

/// How much of each legal action a list carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LegalDetail {
    /// Ids and notation.
    #[default]
    Full,
    /// Ids only; every notation is left empty.
    IdsOnly,
}

/// Every notation of a seat's list, packed in one string cut at `ends`, and
/// the board elements each action involves (empty for a game that does not
/// name them).
#[derive(Debug)]
struct Notation {
    text: Box<str>,
    ends: Box<[u32]>,
    targets: Box<[Vec<String>]>,
}

/// One seat's legal actions: the ids, and their notation once asked for.
#[derive(Debug)]
struct SeatList {
    seat: Player,
    ids: Box<[ActionId]>,
    notation: Option<Notation>,
}

impl SeatList {
    /// The (id, notation) pairs; `None` when notation is asked for but not
    /// written yet.
    fn unpack(&self, detail: LegalDetail) -> Option<Vec<(ActionId, String)>> {
        let notation = match (detail, &self.notation) {
            (LegalDetail::IdsOnly, _) => {
                return Some(self.ids.iter().map(|&id| (id, String::new())).collect());
            }
            (LegalDetail::Full, None) => return None,
            (LegalDetail::Full, Some(notation)) => notation,
        };
        let mut start = 0;
        Some(
            self.ids
                .iter()
                .zip(notation.ends.iter())
                .map(|(&id, &end)| {
                    let end = end as usize;
                    let text = notation.text[start..end].to_owned();
                    start = end;
                    (id, text)
                })
                .collect(),
        )
    }

    fn write_notation(&mut self, state: &dyn DynState) -> HostResult<()> {
        let mut text = String::new();
        let mut ends = Vec::with_capacity(self.ids.len());
        // One crossing for the whole list through a plugin. A notation
        // longer than 4 GiB in total is refused, not wrapped.
        state.actions_to_strings(self.seat, &self.ids, &mut text, &mut ends)?;
        let targets = state
            .action_targets(self.seat, &self.ids)?
            .unwrap_or_default();
        self.notation = Some(Notation {
            text: text.into_boxed_str(),
            ends: ends.into_boxed_slice(),
            targets: targets.into_boxed_slice(),
        });
        Ok(())
    }
}

/// The legal actions of every seat to move at one version of a match.
#[derive(Debug)]
pub struct LegalLists {
    version: u64,
    seats: Vec<SeatList>,
}

impl LegalLists {
    /// Lists the legal action ids of each of `seats` in `state` (the match
    /// at `version`); notation comes later, if asked for
    /// ([`LegalLists::write_notation`]). `scratch` is reused for the ids.
    pub fn compute(
        state: &dyn DynState,
        version: u64,
        seats_to_list: impl IntoIterator<Item = Player>,
        scratch: &mut Vec<ActionId>,
    ) -> HostResult<LegalLists> {
        let mut seats = Vec::new();
        for seat in seats_to_list {
            state.legal_actions(seat, scratch)?;
            seats.push(SeatList {
                seat,
                ids: scratch.as_slice().into(),
                notation: None,
            });
        }
        Ok(LegalLists { version, seats })
    }

    /// Writes the notation of `seat`'s list (a no-op when it is written, or
    /// the seat has no list). `state` is the match at this version.
    pub fn write_notation(&mut self, state: &dyn DynState, seat: Player) -> HostResult<()> {
        match self.seats.iter_mut().find(|s| s.seat == seat) {
            Some(list) if list.notation.is_none() => list.write_notation(state),
            _ => Ok(()),
        }
    }

    /// The board elements each action of `seat`'s list involves, in the
    /// list's order, once its notation is written; empty otherwise and for
    /// a game that does not name them.
    pub fn targets_for_seat(&self, seat: Player) -> Vec<Vec<String>> {
        self.seats
            .iter()
            .find(|s| s.seat == seat)
            .and_then(|list| list.notation.as_ref())
            .map(|notation| notation.targets.to_vec())
            .unwrap_or_default()
    }

    /// The match version these lists belong to.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// `seat`'s list as (id, notation) pairs (empty when the seat is not
    /// to move at this version); `None` when `detail` asks for notation
    /// that is not written yet.
    pub fn for_seat(&self, seat: Player, detail: LegalDetail) -> Option<Vec<(ActionId, String)>> {
        match self.seats.iter().find(|s| s.seat == seat) {
            Some(list) => list.unpack(detail),
            None => Some(Vec::new()),
        }
    }
}

/// Which matches may keep [`LegalLists`]: at most `capacity`, the earliest
/// admitted leaving first.
#[derive(Debug)]
pub struct CachedMatches {
    capacity: usize,
    order: Mutex<VecDeque<String>>,
}

impl CachedMatches {
    /// Room for `capacity` matches (at least one).
    pub fn new(capacity: usize) -> CachedMatches {
        CachedMatches {
            capacity: capacity.max(1),
            order: Mutex::new(VecDeque::new()),
        }
    }

    /// Admits `match_id`, which has just started keeping lists; returns the
    /// matches that must drop theirs to stay within the capacity.
    pub fn admit(&self, match_id: &str) -> Vec<String> {
        let mut order = self.order.lock().unwrap_or_else(|e| e.into_inner());
        order.push_back(match_id.to_owned());
        let excess = order.len().saturating_sub(self.capacity);
        order.drain(..excess).collect()
    }

    /// Puts `match_id` back at the end of the line without evicting anyone:
    /// it was due to leave but could not drop its lists just now.
    pub fn readmit(&self, match_id: String) {
        self.order
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push_back(match_id);
    }

    /// How many matches are admitted now.
    pub fn len(&self) -> usize {
        self.order.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Whether no match is admitted.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A match's kept legal-action lists (none until asked for), and a buffer
/// for listing one seat's legal actions, kept to spare an allocation per
/// action.
#[derive(Debug, Default)]
pub(crate) struct LegalCache {
    kept: Option<LegalLists>,
    scratch: Vec<ActionId>,
}

impl LegalCache {
    /// The kept lists, if they belong to `version`.
    pub(crate) fn at(&self, version: u64) -> Option<&LegalLists> {
        self.kept.as_ref().filter(|kept| kept.version() == version)
    }

    /// Whether lists are kept (of any version).
    pub(crate) fn is_kept(&self) -> bool {
        self.kept.is_some()
    }

    /// Whether lists are kept, of another version than `version`.
    pub(crate) fn is_stale(&self, version: u64) -> bool {
        self.kept
            .as_ref()
            .is_some_and(|kept| kept.version() != version)
    }

    /// Lists and keeps the legal actions of `seats` in `state` (the match at
    /// `version`). On an error the lists kept before stay.
    pub(crate) fn keep(
        &mut self,
        state: &dyn DynState,
        version: u64,
        seats: impl IntoIterator<Item = Player>,
    ) -> HostResult<()> {
        let lists = LegalLists::compute(state, version, seats, &mut self.scratch)?;
        self.kept = Some(lists);
        Ok(())
    }

    /// Writes the notation of `seat`'s kept list (see
    /// [`LegalLists::write_notation`]); nothing when no list is kept.
    pub(crate) fn write_notation(&mut self, state: &dyn DynState, seat: Player) -> HostResult<()> {
        match self.kept.as_mut() {
            Some(kept) => kept.write_notation(state, seat),
            None => Ok(()),
        }
    }

    /// Drops the kept lists.
    pub(crate) fn forget(&mut self) {
        self.kept = None;
    }

    /// Whether `action` is legal for `seat` in `state`, listed afresh.
    pub(crate) fn is_legal(
        &mut self,
        state: &dyn DynState,
        seat: Player,
        action: ActionId,
    ) -> HostResult<bool> {
        state.legal_actions(seat, &mut self.scratch)?;
        Ok(self.scratch.binary_search(&action).is_ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admitting_past_the_capacity_evicts_the_earliest_first() {
        let cached = CachedMatches::new(2);
        assert!(cached.admit("a").is_empty());
        assert!(cached.admit("b").is_empty());
        assert_eq!(cached.admit("c"), vec!["a".to_owned()]);
        assert_eq!(cached.admit("d"), vec!["b".to_owned()]);
        assert_eq!(cached.len(), 2);
    }

    #[test]
    fn a_packed_list_unpacks_to_the_pairs_it_was_built_from() {
        let mut list = SeatList {
            seat: 1,
            ids: vec![7, 9, 11].into(),
            notation: None,
        };
        assert_eq!(list.unpack(LegalDetail::Full), None, "no notation yet");
        assert_eq!(
            list.unpack(LegalDetail::IdsOnly),
            Some(vec![
                (7, String::new()),
                (9, String::new()),
                (11, String::new())
            ])
        );
        list.notation = Some(Notation {
            text: "a1b2c33".into(),
            ends: vec![2, 4, 7].into(),
            targets: Box::new([]),
        });
        assert_eq!(
            list.unpack(LegalDetail::Full),
            Some(vec![(7, "a1".into()), (9, "b2".into()), (11, "c33".into())])
        );
        let lists = LegalLists {
            version: 3,
            seats: vec![list],
        };
        assert_eq!(
            lists.for_seat(1, LegalDetail::Full).map(|l| l.len()),
            Some(3)
        );
        assert_eq!(lists.for_seat(0, LegalDetail::Full), Some(Vec::new()));
    }
}
