//! The adjudicator: rulings L7 (adjudication), L8 (own pieces) and L9 (chips).
//!
//! [`adjudicate`] takes every piece's origin and direction card and decides
//! each piece exactly once: it **moves** (ends on its target), **stops** (ends
//! on its origin) or is **captured** (leaves the board). Nothing here knows
//! about players' turns, the game phase or re-entry; it is a pure function of
//! the board and the orders.
//!
//! # How each step of ruling L7 maps to code
//!
//! *Targets (L6).* Each order is turned into a target with
//! [`Board::target`], which applies the bounce. The orders are first copied
//! into a table indexed by [`PieceId`] and a table `occupant[field]` of
//! origins; every later step reads those tables only by piece and by field
//! index, never by the position of an order in the input slice.
//!
//! 1. *Head-on* ([`Step::HeadOn`]). For each piece `p`, `q = occupant[target(p)]`;
//!    if `target(q) == origin(p)` the two meet head-on. Each piece has one
//!    target and each field one occupant, so a piece is in at most one
//!    head-on pair, and the pairs are resolved independently: equal ranks
//!    both stop ([`StopReason::HeadOn`]); otherwise the loser is captured and
//!    the winner is decided as moved and *stands* on the loser's origin.
//! 2. *Contests* ([`Step::Contest`]). Every still-undecided piece is a
//!    contender of exactly one field, its target, so contests are independent
//!    of each other. Per field the contenders are counted by rank: every rank
//!    with two or more contenders stops ([`StopReason::Contest`]); if the ranks
//!    left with exactly one contender are K, Q and J, all three stop
//!    ([`StopReason::ThreeWay`]); if two are left the weaker is captured by the
//!    stronger; the one left (if any) becomes the field's *entrant*, still
//!    undecided. Captures here are final even if the captor is captured later.
//! 3. *Standing pieces* ([`Step::Standing`]). `standing[field]` holds every
//!    stopped piece (on its origin) and every head-on winner (on its new
//!    field). An entrant whose target has a standing piece fights it: stronger
//!    captures it and moves (and, having moved, never blocks), weaker is
//!    captured by it, equal stops ([`StopReason::Standoff`]) and becomes a
//!    standing piece on its own origin, which may start another fight. This
//!    repeats until nothing changes. It is a fixed point, not a sequence: a
//!    field has at most one entrant (step 2), the only piece that can remove
//!    a standing piece is that entrant, and the only way a field gains a
//!    standing piece is its own occupant stopping. So whether a fight happens
//!    and how it ends does not depend on which field is examined first.
//! 4. *Moves* ([`Step::Move`]). Every entrant still undecided moves: chains of
//!    pieces following each other and closed rings all move, because their
//!    targets hold no standing piece.
//!
//! A captured piece remembers where it was captured and, when it was captured
//! where it stood (step 3), what it had been decided before: clients show the
//! stop or the head-on win that left it standing there.
//!
//! *Own pieces (L8)* fight exactly like enemies; *chips (L9)* are counted by
//! [`Adjudication::chips`], one per capture of an enemy piece, credited to the
//! owner of the capturing piece even if it was itself captured later.
//!
//! The result is a function of the *set* of orders: the output lists pieces
//! in [`PieceId`] order whatever order they came in, and the property tests
//! check it under permutations of the input.

use std::cmp::Ordering;
use std::fmt;

use crate::board::{Board, Dir, Field};
use crate::piece::{MAX_PIECES, MAX_PLAYERS, PieceId};

/// The largest board has 37 fields.
const MAX_FIELDS: usize = 37;

/// One piece's order: where it stands and which direction card it plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PieceOrder {
    /// The piece.
    pub piece: PieceId,
    /// The field it stands on before the turn.
    pub origin: Field,
    /// Its direction card (ruling L5).
    pub card: Dir,
}

/// Why a piece stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StopReason {
    /// Step 1: it met a piece of equal rank head-on.
    HeadOn,
    /// Step 2: two or more contenders of its rank wanted the same field.
    Contest,
    /// Step 2: King, Queen and Jack wanted the same field.
    ThreeWay,
    /// Step 3: it tried to enter a field where a piece of equal rank stands.
    Standoff,
}

impl StopReason {
    /// A short lowercase name for events (`head_on`, `contest`, …).
    pub fn name(self) -> &'static str {
        match self {
            StopReason::HeadOn => "head_on",
            StopReason::Contest => "contest",
            StopReason::ThreeWay => "three_way",
            StopReason::Standoff => "standoff",
        }
    }
}

/// The step of ruling L7 at which a piece was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Step {
    /// Step 1, head-on.
    HeadOn = 1,
    /// Step 2, contests.
    Contest = 2,
    /// Step 3, standing pieces.
    Standing = 3,
    /// Step 4, the remaining moves.
    Move = 4,
}

/// What a piece captured where it stood (step 3) had been decided before:
/// the decision that left it standing there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stood {
    /// It had stopped on its origin (steps 1 to 3), for this reason.
    Stopped(StopReason),
    /// It had won a head-on clash and moved onto the loser's field (step 1).
    HeadOnWinner,
}

/// What became of one piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fate {
    /// It ended on its target.
    Moved,
    /// It stayed on its origin.
    Stopped(StopReason),
    /// It was captured by `by` and left the board.
    Captured {
        /// The capturing piece.
        by: PieceId,
        /// The field where the capture happened: the loser's origin in a
        /// head-on clash (the winner moves onto it), the contested field in a
        /// contest, the standing piece's field in step 3.
        at: Field,
        /// What it had been decided before, when it was captured where it
        /// stood (step 3); `None` when it was captured undecided.
        stood: Option<Stood>,
    },
}

/// The decision for one piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resolution {
    /// The piece.
    pub piece: PieceId,
    /// Its field before the turn.
    pub origin: Field,
    /// Its direction card.
    pub card: Dir,
    /// Where the card sent it, after the bounce (ruling L6).
    pub target: Field,
    /// Whether the step bounced off the edge.
    pub bounced: bool,
    /// What became of it.
    pub fate: Fate,
    /// When it was decided.
    pub step: Step,
}

impl Resolution {
    /// The field the piece ends the turn on; `None` if captured.
    pub fn end(&self) -> Option<Field> {
        match self.fate {
            Fate::Moved => Some(self.target),
            Fate::Stopped(_) => Some(self.origin),
            Fate::Captured { .. } => None,
        }
    }
}

/// The outcome of one turn: a [`Resolution`] per piece, in [`PieceId`] order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Adjudication {
    resolutions: Vec<Resolution>,
}

impl Adjudication {
    /// Every piece's resolution, in [`PieceId`] order.
    pub fn resolutions(&self) -> &[Resolution] {
        &self.resolutions
    }

    /// The resolution of `piece`, if it had an order.
    pub fn get(&self, piece: PieceId) -> Option<&Resolution> {
        self.resolutions.iter().find(|r| r.piece == piece)
    }

    /// Every capture as `(captor, captured)`, ordered by the captured piece.
    pub fn captures(&self) -> impl Iterator<Item = (PieceId, PieceId)> + '_ {
        self.resolutions.iter().filter_map(|r| match r.fate {
            Fate::Captured { by, .. } => Some((by, r.piece)),
            _ => None,
        })
    }

    /// Chips won this turn per seat (rulings L8, L9): one per enemy piece
    /// captured, none for own pieces.
    pub fn chips(&self) -> [u32; MAX_PLAYERS] {
        let mut chips = [0; MAX_PLAYERS];
        for (by, victim) in self.captures() {
            if by.player() != victim.player() {
                chips[by.player() as usize] += 1;
            }
        }
        chips
    }
}

/// Orders the adjudicator refuses: they describe no position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdjudicationError {
    /// The same piece has two orders.
    DuplicatePiece(PieceId),
    /// Two pieces stand on the same field.
    SharedOrigin(Field),
    /// A field index that is not on this board.
    NotOnBoard(Field),
}

impl fmt::Display for AdjudicationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AdjudicationError::DuplicatePiece(p) => write!(f, "piece {p} has two orders"),
            AdjudicationError::SharedOrigin(field) => {
                write!(f, "two pieces stand on field #{}", field.index())
            }
            AdjudicationError::NotOnBoard(field) => {
                write!(f, "field #{} is not on the board", field.index())
            }
        }
    }
}

impl std::error::Error for AdjudicationError {}

fn captured(by: PieceId, at: Field, stood: Option<Stood>) -> Fate {
    Fate::Captured { by, at, stood }
}

#[derive(Debug, Clone, Copy)]
enum State {
    Undecided,
    Decided(Fate, Step),
}

/// Decides a turn (ruling L7); see the module docs for the algorithm.
pub fn adjudicate(board: &Board, orders: &[PieceOrder]) -> Result<Adjudication, AdjudicationError> {
    // One piece: the four steps of ruling L7 in order (marked below), each
    // reading and deciding entries of the same per-piece and per-field tables.

    // The tables below are indexed by piece and by field only, which is what
    // makes the result independent of the order of `orders`.
    let mut order_of: [Option<PieceOrder>; MAX_PIECES] = [None; MAX_PIECES];
    let mut occupant: [Option<PieceId>; MAX_FIELDS] = [None; MAX_FIELDS];
    for order in orders {
        if order.origin.index() >= board.len() {
            return Err(AdjudicationError::NotOnBoard(order.origin));
        }
        let slot = &mut order_of[order.piece.index()];
        if slot.is_some() {
            return Err(AdjudicationError::DuplicatePiece(order.piece));
        }
        *slot = Some(*order);
        let here = &mut occupant[order.origin.index()];
        if here.is_some() {
            return Err(AdjudicationError::SharedOrigin(order.origin));
        }
        *here = Some(order.piece);
    }
    let pieces: Vec<PieceOrder> = order_of.iter().flatten().copied().collect();
    let mut target: [Field; MAX_PIECES] = [Field(0); MAX_PIECES];
    for o in &pieces {
        target[o.piece.index()] = board.target(o.origin, o.card);
    }
    let origin = |p: PieceId| order_of[p.index()].map(|o| o.origin);
    let mut state = [State::Undecided; MAX_PIECES];
    let undecided =
        |state: &[State; MAX_PIECES], p: PieceId| matches!(state[p.index()], State::Undecided);
    let mut standing: [Option<PieceId>; MAX_FIELDS] = [None; MAX_FIELDS];

    // Step 1: head-on.
    for o in &pieces {
        let p = o.piece;
        let Some(q) = occupant[target[p.index()].index()] else {
            continue;
        };
        if target[q.index()] != o.origin || q <= p {
            // Not head-on, or the pair is handled when its lower piece comes up.
            continue;
        }
        match p.rank().fight(q.rank()) {
            Ordering::Equal => {
                state[p.index()] = State::Decided(Fate::Stopped(StopReason::HeadOn), Step::HeadOn);
                state[q.index()] = State::Decided(Fate::Stopped(StopReason::HeadOn), Step::HeadOn);
            }
            ordering => {
                let (winner, loser) = if ordering == Ordering::Greater {
                    (p, q)
                } else {
                    (q, p)
                };
                // The winner moves onto the loser's field: that is where the
                // loser is captured.
                let at = if loser == p {
                    o.origin
                } else {
                    target[p.index()]
                };
                state[loser.index()] = State::Decided(captured(winner, at, None), Step::HeadOn);
                state[winner.index()] = State::Decided(Fate::Moved, Step::HeadOn);
            }
        }
    }

    // Step 2: contests, one per field, each on its own contenders.
    let mut entrant: [Option<PieceId>; MAX_FIELDS] = [None; MAX_FIELDS];
    for field in board.fields() {
        let mut by_rank: [Vec<PieceId>; 3] = [Vec::new(), Vec::new(), Vec::new()];
        for o in &pieces {
            if target[o.piece.index()] == field && undecided(&state, o.piece) {
                by_rank[o.piece.rank() as usize].push(o.piece);
            }
        }
        let mut singles: Vec<PieceId> = Vec::new();
        for group in &by_rank {
            match group.len() {
                0 => {}
                1 => singles.push(group[0]),
                _ => {
                    for &p in group {
                        state[p.index()] =
                            State::Decided(Fate::Stopped(StopReason::Contest), Step::Contest);
                    }
                }
            }
        }
        match singles[..] {
            [a, b, c] => {
                for p in [a, b, c] {
                    state[p.index()] =
                        State::Decided(Fate::Stopped(StopReason::ThreeWay), Step::Contest);
                }
            }
            [a, b] => {
                let (winner, loser) = if a.rank().beats(b.rank()) {
                    (a, b)
                } else {
                    (b, a)
                };
                state[loser.index()] = State::Decided(captured(winner, field, None), Step::Contest);
                entrant[field.index()] = Some(winner);
            }
            [a] => entrant[field.index()] = Some(a),
            _ => {}
        }
    }

    // Step 3: standing pieces.
    for o in &pieces {
        match state[o.piece.index()] {
            State::Decided(Fate::Stopped(_), _) => standing[o.origin.index()] = Some(o.piece),
            State::Decided(Fate::Moved, Step::HeadOn) => {
                standing[target[o.piece.index()].index()] = Some(o.piece)
            }
            _ => {}
        }
    }
    let mut changed = true;
    while changed {
        changed = false;
        for field in board.fields() {
            let (Some(e), Some(s)) = (entrant[field.index()], standing[field.index()]) else {
                continue;
            };
            entrant[field.index()] = None;
            changed = true;
            match e.rank().fight(s.rank()) {
                Ordering::Greater => {
                    let stood = match state[s.index()] {
                        State::Decided(Fate::Stopped(why), _) => Some(Stood::Stopped(why)),
                        State::Decided(Fate::Moved, _) => Some(Stood::HeadOnWinner),
                        _ => None,
                    };
                    state[s.index()] = State::Decided(captured(e, field, stood), Step::Standing);
                    state[e.index()] = State::Decided(Fate::Moved, Step::Standing);
                    standing[field.index()] = None;
                }
                Ordering::Less => {
                    state[e.index()] = State::Decided(captured(s, field, None), Step::Standing);
                }
                Ordering::Equal => {
                    state[e.index()] =
                        State::Decided(Fate::Stopped(StopReason::Standoff), Step::Standing);
                    if let Some(home) = origin(e) {
                        standing[home.index()] = Some(e);
                    }
                }
            }
        }
    }

    // Step 4: every remaining entrant moves.
    let resolutions = pieces
        .iter()
        .map(|o| {
            let (fate, step) = match state[o.piece.index()] {
                State::Decided(fate, step) => (fate, step),
                State::Undecided => (Fate::Moved, Step::Move),
            };
            Resolution {
                piece: o.piece,
                origin: o.origin,
                card: o.card,
                target: target[o.piece.index()],
                bounced: board.bounces(o.origin, o.card),
                fate,
                step,
            }
        })
        .collect();
    Ok(Adjudication { resolutions })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::BoardKind;
    use crate::piece::Rank;

    fn order(board: &Board, piece: &str, field: &str, card: u8) -> PieceOrder {
        PieceOrder {
            piece: PieceId::parse(piece).unwrap(),
            origin: board.parse_field(field).unwrap(),
            card: Dir::new(card).unwrap(),
        }
    }

    #[test]
    fn refuses_orders_that_describe_no_position() {
        let board = BoardKind::Hex19.board();
        let a = order(board, "AK", "c3", 1);
        let b = order(board, "BK", "c3", 2);
        assert_eq!(
            adjudicate(board, &[a, b]),
            Err(AdjudicationError::SharedOrigin(a.origin))
        );
        assert_eq!(
            adjudicate(board, &[a, a]),
            Err(AdjudicationError::DuplicatePiece(a.piece))
        );
        let far = PieceOrder {
            origin: Field(30),
            ..a
        };
        assert_eq!(
            adjudicate(board, &[far]),
            Err(AdjudicationError::NotOnBoard(Field(30)))
        );
    }

    #[test]
    fn a_lone_piece_moves() {
        let board = BoardKind::Hex19.board();
        let result = adjudicate(board, &[order(board, "AQ", "c3", 1)]).unwrap();
        let r = result.get(PieceId::new(0, Rank::Queen).unwrap()).unwrap();
        assert_eq!(r.fate, Fate::Moved);
        assert_eq!(r.step, Step::Move);
        assert_eq!(board.name(r.end().unwrap()), "c2");
    }

    /// The fate of `piece` in `result`, with its capture field's name.
    fn capture(
        board: &Board,
        result: &Adjudication,
        piece: &str,
    ) -> (String, String, Option<Stood>, Step) {
        let r = result.get(PieceId::parse(piece).unwrap()).unwrap();
        match r.fate {
            Fate::Captured { by, at, stood } => {
                (by.to_string(), board.name(at).to_string(), stood, r.step)
            }
            other => panic!("{piece} was not captured: {other:?}"),
        }
    }

    #[test]
    fn a_head_on_loser_is_captured_on_its_own_field() {
        let board = BoardKind::Hex19.board();
        // AK c2 steps S onto c3, BQ c3 steps N onto c2: the King wins.
        let result = adjudicate(
            board,
            &[order(board, "AK", "c2", 4), order(board, "BQ", "c3", 1)],
        )
        .unwrap();
        assert_eq!(
            capture(board, &result, "BQ"),
            ("AK".into(), "c3".into(), None, Step::HeadOn)
        );
    }

    #[test]
    fn a_contest_loser_is_captured_on_the_contested_field() {
        let board = BoardKind::Hex19.board();
        // AK c2 and BQ c4 both target c3.
        let result = adjudicate(
            board,
            &[order(board, "AK", "c2", 4), order(board, "BQ", "c4", 1)],
        )
        .unwrap();
        assert_eq!(
            capture(board, &result, "BQ"),
            ("AK".into(), "c3".into(), None, Step::Contest)
        );
    }

    #[test]
    fn a_stopped_piece_captured_later_keeps_its_stop_reason() {
        let board = BoardKind::Hex19.board();
        // The Kings meet head-on and stop; AJ c4 then enters c3, where BK
        // stands, and captures it (step 3).
        let result = adjudicate(
            board,
            &[
                order(board, "AK", "c2", 4),
                order(board, "BK", "c3", 1),
                order(board, "AJ", "c4", 1),
            ],
        )
        .unwrap();
        assert_eq!(
            capture(board, &result, "BK"),
            (
                "AJ".into(),
                "c3".into(),
                Some(Stood::Stopped(StopReason::HeadOn)),
                Step::Standing
            )
        );
        let stopped = result.get(PieceId::parse("AK").unwrap()).unwrap();
        assert_eq!(stopped.fate, Fate::Stopped(StopReason::HeadOn));
    }

    #[test]
    fn a_head_on_winner_can_be_captured_where_it_stands() {
        let board = BoardKind::Hex19.board();
        // AK wins head-on against BQ and stands on c3; BJ c4 enters c3 and
        // captures the King there.
        let result = adjudicate(
            board,
            &[
                order(board, "AK", "c2", 4),
                order(board, "BQ", "c3", 1),
                order(board, "BJ", "c4", 1),
            ],
        )
        .unwrap();
        assert_eq!(
            capture(board, &result, "AK"),
            (
                "BJ".into(),
                "c3".into(),
                Some(Stood::HeadOnWinner),
                Step::Standing
            )
        );
        assert_eq!(capture(board, &result, "BQ").1, "c3");
    }
}
