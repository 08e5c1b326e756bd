//! A validated game state ([`Position`]) and the unvalidated description it is
//! built from ([`PositionSetup`]), plus the turn's transitions: setup (L4),
//! adjudication (L7–L9), the end (L11, L12) and re-entry (L10).

use std::fmt;

use rand_xoshiro::SplitMix64;
use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use tabletop_sdk::{Better, competition_ranks};

use crate::adjudicate::{Adjudication, AdjudicationError, PieceOrder, adjudicate};
use crate::board::{Board, BoardKind, Field};
use crate::orders::Orders;
use crate::piece::{MAX_PIECES, MAX_PLAYERS, PieceId, seat_label};

/// Where a seat stands for the ranking, worst first: the order
/// [`Position::ranks`] ranks by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Standing {
    /// Taken out; `order` counts 1 for the first seat out, so a later one
    /// ranks higher.
    Out { order: u8 },
    /// Still in, with its chips.
    In { chips: u32 },
}

/// Where a match stands within its turn.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Before the random setup (ruling L4): a sampled chance node.
    Setup,
    /// Every player orders their pieces at once (ruling L5).
    Orders,
    /// The order of re-entry of these captured pieces (listed in
    /// [`PieceId`] order) is drawn by chance (ruling L10).
    Reentry(Vec<PieceId>),
    /// These pieces re-enter in this order; the owner of the first places it.
    Place(Vec<PieceId>),
    /// The game is over (rulings L11, L12).
    Over,
}

/// A position as written, not yet checked. [`Position::new`] validates it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PositionSetup {
    /// The number of players, 2–4; it decides the board (ruling L2).
    pub players: u32,
    /// Each piece's field (`None`: off the board), indexed by [`PieceId::index`].
    pub fields: [Option<Field>; MAX_PIECES],
    /// Chips per seat.
    pub chips: [u32; MAX_PLAYERS],
    /// Turns adjudicated so far.
    pub turns: u32,
    /// The phase.
    pub phase: Phase,
    /// Per seat: 0 while the seat plays, `k` if it was the `k`-th taken out
    /// of the game by the host (its clock ran out under `out`; see
    /// [`Position::remove`]).
    pub out: [u8; MAX_PLAYERS],
}

/// Why a [`PositionSetup`] is not a legal position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PositionError {
    /// The player count is not 2–4.
    Players(u32),
    /// A piece of a seat that is not playing has a field, or chips.
    ExtraSeat(u32),
    /// A field is not on this board.
    NotOnBoard(PieceId),
    /// Two pieces share a field.
    SharedField(PieceId, PieceId),
    /// The phase does not fit which pieces are on the board.
    Phase(String),
    /// The game should be over, or is marked over but is not.
    End(String),
    /// The seats taken out do not fit (numbering, pieces left on the board).
    Out(String),
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::Players(n) => write!(f, "lanza is played by 2 to 4 players, not {n}"),
            PositionError::ExtraSeat(p) => write!(f, "seat {p} is not playing"),
            PositionError::NotOnBoard(p) => write!(f, "piece {p} is not on a field of this board"),
            PositionError::SharedField(a, b) => write!(f, "pieces {a} and {b} share a field"),
            PositionError::Phase(why) | PositionError::End(why) | PositionError::Out(why) => {
                f.write_str(why)
            }
        }
    }
}

impl std::error::Error for PositionError {}

/// A legal Lanza position: the board, every piece's field, chips, the turn
/// count and the phase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    kind: BoardKind,
    players: u32,
    fields: [Option<Field>; MAX_PIECES],
    chips: [u32; MAX_PLAYERS],
    turns: u32,
    max_turns: u32,
    phase: Phase,
    out: [u8; MAX_PLAYERS],
}

fn factorial(n: usize) -> u64 {
    (1..=n as u64).product()
}

/// Re-entry orders of at most this many pieces are an explicit chance node
/// (4! = 24 outcomes); larger ones are sampled.
pub const EXPLICIT_REENTRY_MAX: usize = 4;

impl Position {
    /// The start of a match: the setup chance node (ruling L4).
    pub fn start(players: u32, max_turns: u32) -> Result<Position, PositionError> {
        Position::new(
            PositionSetup {
                players,
                fields: [None; MAX_PIECES],
                chips: [0; MAX_PLAYERS],
                turns: 0,
                phase: Phase::Setup,
                out: [0; MAX_PLAYERS],
            },
            max_turns,
        )
    }

    /// Validates `setup` into a position, with the turn limit `max_turns`
    /// (ruling L12).
    pub fn new(setup: PositionSetup, max_turns: u32) -> Result<Position, PositionError> {
        // One piece: the checks in the order their errors are reported, each
        // a few lines over the same setup.
        let kind =
            BoardKind::for_players(setup.players).ok_or(PositionError::Players(setup.players))?;
        let board = kind.board();
        let pieces = 3 * setup.players as usize;
        for i in pieces..MAX_PIECES {
            if setup.fields[i].is_some() {
                return Err(PositionError::ExtraSeat((i / 3) as u32));
            }
        }
        for p in setup.players as usize..MAX_PLAYERS {
            if setup.chips[p] != 0 || setup.out[p] != 0 {
                return Err(PositionError::ExtraSeat(p as u32));
            }
        }
        let mut numbers: Vec<u8> = setup.out.iter().copied().filter(|&k| k > 0).collect();
        numbers.sort_unstable();
        if numbers
            .iter()
            .enumerate()
            .any(|(i, &k)| usize::from(k) != i + 1)
        {
            return Err(PositionError::Out(
                "the seats taken out are numbered 1, 2, … in the order they left, once each"
                    .to_string(),
            ));
        }
        if numbers.len() >= setup.players as usize {
            return Err(PositionError::Out(
                "at least one seat is still in".to_string(),
            ));
        }
        for i in 0..pieces {
            if setup.out[i / 3] != 0 && setup.fields[i].is_some() {
                return Err(PositionError::Out(format!(
                    "{} is out, but a piece of it is on the board",
                    seat_label((i / 3) as u32)
                )));
            }
        }
        let mut seen: Vec<Option<PieceId>> = vec![None; board.len()];
        for (i, field) in setup.fields.iter().enumerate().take(pieces) {
            let Some(field) = field else { continue };
            let piece = PieceId::from_index(i).ok_or(PositionError::Players(setup.players))?;
            let slot = seen
                .get_mut(field.index())
                .ok_or(PositionError::NotOnBoard(piece))?;
            if let Some(other) = slot {
                return Err(PositionError::SharedField(*other, piece));
            }
            *slot = Some(piece);
        }
        // Pieces of seats taken out are gone, not waiting to re-enter.
        let off: Vec<PieceId> = (0..pieces)
            .filter(|&i| setup.fields[i].is_none() && setup.out[i / 3] == 0)
            .filter_map(PieceId::from_index)
            .collect();
        let position = Position {
            kind,
            players: setup.players,
            fields: setup.fields,
            chips: setup.chips,
            turns: setup.turns,
            max_turns,
            phase: setup.phase,
            out: setup.out,
        };
        let phase_error = |why: &str| Err(PositionError::Phase(why.to_string()));
        match &position.phase {
            Phase::Setup => {
                if off.len() + 3 * numbers.len() != pieces
                    || position.turns != 0
                    || position.chips.iter().any(|&c| c > 0)
                {
                    return phase_error(
                        "before the setup no piece is placed, no turn played, no chip won",
                    );
                }
            }
            Phase::Orders => {
                if !off.is_empty() {
                    return phase_error(
                        "when orders are given every piece is on the board (ruling L10)",
                    );
                }
            }
            Phase::Reentry(listed) => {
                if off.len() < 2 || *listed != off {
                    return phase_error(
                        "a re-entry draw lists exactly the pieces off the board, at least two, in K Q J order by seat",
                    );
                }
            }
            Phase::Place(queue) => {
                let mut sorted = queue.clone();
                sorted.sort();
                if queue.is_empty() || sorted != off {
                    return phase_error(
                        "the re-entry queue lists exactly the pieces off the board, once each",
                    );
                }
            }
            Phase::Over => {}
        }
        let should_end = position.ends_here();
        let over = position.phase == Phase::Over;
        if should_end && !over && position.phase != Phase::Setup {
            return Err(PositionError::End(
                "the game is over here (rulings L11, L12): its phase must be `over`".to_string(),
            ));
        }
        if over && !should_end {
            return Err(PositionError::End(
                "nobody has won and the turn limit is not reached: the game is not over"
                    .to_string(),
            ));
        }
        Ok(position)
    }

    /// The unvalidated form of this position (for notation and editing).
    pub fn to_setup(&self) -> PositionSetup {
        PositionSetup {
            players: self.players,
            fields: self.fields,
            chips: self.chips,
            turns: self.turns,
            phase: self.phase.clone(),
            out: self.out,
        }
    }

    /// The board.
    pub fn board(&self) -> &'static Board {
        self.kind.board()
    }

    /// The number of players.
    pub fn players(&self) -> u32 {
        self.players
    }

    /// Every piece of the match, in [`PieceId`] order.
    pub fn pieces(&self) -> impl Iterator<Item = PieceId> + use<> {
        (0..3 * self.players as usize).filter_map(PieceId::from_index)
    }

    /// The field of `piece`, `None` if it is off the board.
    pub fn field_of(&self, piece: PieceId) -> Option<Field> {
        self.fields.get(piece.index()).copied().flatten()
    }

    /// The piece on `field`, if any.
    pub fn piece_on(&self, field: Field) -> Option<PieceId> {
        self.pieces().find(|&p| self.field_of(p) == Some(field))
    }

    /// The chips of seat `player`.
    pub fn chips(&self, player: u32) -> u32 {
        self.chips.get(player as usize).copied().unwrap_or(0)
    }

    /// Turns adjudicated so far.
    pub fn turns(&self) -> u32 {
        self.turns
    }

    /// The turn limit (ruling L12).
    pub fn max_turns(&self) -> u32 {
        self.max_turns
    }

    /// The phase.
    pub fn phase(&self) -> &Phase {
        &self.phase
    }

    /// `Some(k)` if seat `player` was the `k`-th taken out of the game.
    pub fn out_order(&self, player: u32) -> Option<u8> {
        self.out.get(player as usize).copied().filter(|&k| k > 0)
    }

    /// Whether seat `player` was taken out of the game ([`Position::remove`]).
    pub fn is_out(&self, player: u32) -> bool {
        self.out.get(player as usize).is_some_and(|&k| k > 0)
    }

    /// The seats still in the game, ascending.
    pub fn players_in(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.players).filter(|&p| !self.is_out(p))
    }

    /// The seat still in with strictly more chips than every other seat still
    /// in, if any (seats taken out race no more, whatever their chips).
    pub fn sole_leader(&self) -> Option<u32> {
        let best = self.players_in().max_by_key(|&p| self.chips(p))?;
        let top = self.chips(best);
        let tied = self.players_in().filter(|&p| self.chips(p) == top).count();
        (tied == 1).then_some(best)
    }

    /// The winner by ruling L11: at least 3 chips and strictly ahead.
    pub fn winner(&self) -> Option<u32> {
        self.sole_leader().filter(|&p| self.chips(p) >= 3)
    }

    /// Whether the game ends at this turn's end (rulings L11, L12), or
    /// because one seat is left after the others were taken out.
    fn ends_here(&self) -> bool {
        self.winner().is_some() || self.turns >= self.max_turns || self.players_in().count() < 2
    }

    /// Each seat's place. Seats still in: 1 + the number of seats still in with
    /// strictly more chips, so tied leaders share first place (ruling L12).
    /// Seats taken out rank below every seat still in, the later out above
    /// the earlier, whatever their chips.
    pub fn ranks(&self) -> Vec<u32> {
        let standings: Vec<Standing> = (0..self.players)
            .map(|p| match self.out[p as usize] {
                0 => Standing::In {
                    chips: self.chips(p),
                },
                order => Standing::Out { order },
            })
            .collect();
        competition_ranks(&standings, Better::Higher)
    }

    /// Takes seat `player` out of the game, as the host does when its clock
    /// runs out under `out`: its pieces leave the board at once and nobody
    /// gets a chip for them (ruling L9 counts captures only); its chips stay
    /// but race no more. Its pieces waiting to re-enter leave the draw or the
    /// queue (ruling L10). The others play on; if one seat is left, or the
    /// removal leaves a sole leader with 3 chips (ruling L11), the game is over.
    /// Refuses, changing nothing, a seat that does not play, is already out,
    /// or a game that is over.
    pub fn remove(&mut self, player: u32) -> Result<(), String> {
        if player >= self.players {
            return Err(format!(
                "there is no seat {player} in a {}-player game",
                self.players
            ));
        }
        if self.phase == Phase::Over {
            return Err("the game is over".to_string());
        }
        if self.is_out(player) {
            return Err(format!("{} is already out", seat_label(player)));
        }
        let order = 1 + self.out.iter().filter(|&&k| k > 0).count() as u8;
        self.out[player as usize] = order;
        for piece in self.pieces().filter(|p| p.player() == player) {
            self.fields[piece.index()] = None;
        }
        self.phase = match std::mem::replace(&mut self.phase, Phase::Over) {
            Phase::Reentry(mut pending) => {
                pending.retain(|p| p.player() != player);
                match pending.len() {
                    0 => Phase::Orders,
                    1 => Phase::Place(pending),
                    _ => Phase::Reentry(pending),
                }
            }
            Phase::Place(mut queue) => {
                queue.retain(|p| p.player() != player);
                if queue.is_empty() {
                    Phase::Orders
                } else {
                    Phase::Place(queue)
                }
            }
            other => other,
        };
        if self.ends_here() {
            self.phase = Phase::Over;
        }
        Ok(())
    }

    /// The owner of the piece to place next, in the placing phase.
    pub fn placer(&self) -> Option<(PieceId, u32)> {
        match &self.phase {
            Phase::Place(queue) => queue.first().map(|&p| (p, p.player())),
            _ => None,
        }
    }

    /// The empty edge fields, ascending (ruling L10).
    pub fn empty_edge_fields(&self) -> impl Iterator<Item = Field> + '_ {
        let board = self.board();
        board
            .fields()
            .filter(move |&f| board.is_edge(f) && self.piece_on(f).is_none())
    }

    /// Ruling L4: shuffles all pieces onto the start fields, derived from one
    /// sampled `u64` by Fisher–Yates over splitmix64.
    pub fn apply_setup(&mut self, random: u64) -> Result<(), &'static str> {
        if self.phase != Phase::Setup {
            return Err("the setup is already done");
        }
        let starts = self.board().start_fields();
        let mut order: Vec<Field> = starts.to_vec();
        // A deterministic generator seeded by the outcome, never thread RNG
        // (plugins are pure).
        let mut rng = SplitMix64::seed_from_u64(random);
        for i in (1..order.len()).rev() {
            let j = (rng.next_u64() % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
        for (i, field) in order.into_iter().enumerate() {
            // A seat taken out before the setup gets no pieces (its start
            // fields stay empty).
            if self.out.get(i / 3).is_some_and(|&k| k == 0) {
                self.fields[i] = Some(field);
            }
        }
        self.phase = Phase::Orders;
        Ok(())
    }

    /// The chance distribution of the re-entry order (ruling L10): for few
    /// pieces every permutation is listed with equal weight (outcome = its
    /// lexicographic rank); otherwise `None` means sampled.
    pub fn reentry_outcomes(&self) -> Option<Vec<(u64, f64)>> {
        let Phase::Reentry(pending) = &self.phase else {
            return None;
        };
        if pending.len() > EXPLICIT_REENTRY_MAX {
            return None;
        }
        let n = factorial(pending.len());
        Some((0..n).map(|i| (i, 1.0 / n as f64)).collect())
    }

    /// Applies the re-entry draw: the permutation of the pending pieces whose
    /// lexicographic rank is `outcome` (explicit node) or `outcome mod k!`
    /// (sampled node; k! ≤ 12! < 2^29, so the bias is below 2^-35).
    pub fn apply_reentry(&mut self, outcome: u64) -> Result<(), &'static str> {
        let Phase::Reentry(pending) = &self.phase else {
            return Err("no re-entry order is being drawn");
        };
        let n = factorial(pending.len());
        let mut index = if pending.len() <= EXPLICIT_REENTRY_MAX {
            if outcome >= n {
                return Err("that re-entry order is not one of the listed outcomes");
            }
            outcome
        } else {
            outcome % n
        };
        let mut pool = pending.clone();
        let mut queue = Vec::with_capacity(pool.len());
        while !pool.is_empty() {
            let f = factorial(pool.len() - 1);
            let pick = (index / f) as usize;
            index %= f;
            queue.push(pool.remove(pick));
        }
        self.phase = Phase::Place(queue);
        Ok(())
    }

    /// Places the next queued piece on `field` (ruling L10); the field must be
    /// an empty edge field.
    pub fn place(&mut self, field: Field) -> Result<(), &'static str> {
        let Phase::Place(queue) = &mut self.phase else {
            return Err("no piece is waiting to re-enter");
        };
        let board = self.kind.board();
        if field.index() >= board.len() || !board.is_edge(field) {
            return Err("a piece re-enters on an edge field (ruling L10)");
        }
        if self.fields.contains(&Some(field)) {
            return Err("that field is not empty");
        }
        let piece = queue.remove(0);
        self.fields[piece.index()] = Some(field);
        if queue.is_empty() {
            self.phase = Phase::Orders;
        }
        Ok(())
    }

    /// Every piece's order for one turn: `orders[p]` are seat p's orders.
    pub fn piece_orders(&self, orders: &[Orders]) -> Vec<PieceOrder> {
        self.pieces()
            .filter_map(|piece| {
                let origin = self.field_of(piece)?;
                let card = orders.get(piece.player() as usize)?.card(piece.rank());
                Some(PieceOrder {
                    piece,
                    origin,
                    card,
                })
            })
            .collect()
    }

    /// Adjudicates one turn (rulings L7–L9) without changing the position.
    pub fn adjudicate(&self, orders: &[Orders]) -> Result<Adjudication, AdjudicationError> {
        adjudicate(self.board(), &self.piece_orders(orders))
    }

    /// Plays one turn: adjudication, chips (L9), the end check (L11, L12),
    /// then the re-entry draw (L10). `orders[p]` are seat p's orders.
    pub fn play_turn(&mut self, orders: &[Orders]) -> Result<Adjudication, AdjudicationError> {
        let result = self.adjudicate(orders)?;
        for r in result.resolutions() {
            self.fields[r.piece.index()] = r.end();
        }
        for (p, won) in result
            .chips()
            .iter()
            .enumerate()
            .take(self.players as usize)
        {
            self.chips[p] += won;
        }
        self.turns += 1;
        let captured: Vec<PieceId> = result.captures().map(|(_, victim)| victim).collect();
        self.phase = if self.ends_here() {
            // Ruling L11: the end is checked after the chips, before re-entry.
            Phase::Over
        } else {
            match captured.len() {
                0 => Phase::Orders,
                // One piece has one order: no draw needed.
                1 => Phase::Place(captured),
                _ => Phase::Reentry(captured),
            }
        };
        Ok(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setup_places_every_piece_on_a_start_field_ruling_l4() {
        for players in 2..=4 {
            let mut position = Position::start(players, 300).unwrap();
            position.apply_setup(42).unwrap();
            let mut fields: Vec<Field> = position
                .pieces()
                .map(|p| position.field_of(p).unwrap())
                .collect();
            fields.sort();
            let mut starts = position.board().start_fields().to_vec();
            starts.sort();
            assert_eq!(fields, starts);
            assert_eq!(position.phase(), &Phase::Orders);
        }
    }

    #[test]
    fn different_seeds_give_different_setups() {
        let mut a = Position::start(4, 300).unwrap();
        let mut b = a.clone();
        a.apply_setup(1).unwrap();
        b.apply_setup(2).unwrap();
        assert_ne!(a, b);
    }

    #[test]
    fn reentry_outcomes_are_all_permutations() {
        let mut position = Position::start(2, 300).unwrap();
        position.apply_setup(7).unwrap();
        let mut setup = position.to_setup();
        let off = [0usize, 2, 4];
        for &i in &off {
            setup.fields[i] = None;
        }
        setup.phase = Phase::Reentry(off.iter().filter_map(|&i| PieceId::from_index(i)).collect());
        let position = Position::new(setup, 300).unwrap();
        let outcomes = position.reentry_outcomes().unwrap();
        assert_eq!(outcomes.len(), 6);
        let mut queues = Vec::new();
        for (o, _) in outcomes {
            let mut p = position.clone();
            p.apply_reentry(o).unwrap();
            let Phase::Place(queue) = p.phase().clone() else {
                panic!()
            };
            queues.push(queue);
        }
        let mut unique = queues.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 6);
        assert!(position.clone().apply_reentry(6).is_err());
    }

    #[test]
    fn ranks_share_first_place_on_ties_ruling_l12() {
        let mut position = Position::start(3, 300).unwrap();
        position.chips = [2, 2, 1, 0];
        assert_eq!(position.ranks(), vec![1, 1, 3]);
        assert_eq!(position.sole_leader(), None);
        position.chips = [3, 4, 1, 0];
        assert_eq!(position.winner(), Some(1));
        position.chips = [4, 4, 1, 0];
        assert_eq!(
            position.winner(),
            None,
            "ruling L11: a tie at the top plays on"
        );
    }
}
