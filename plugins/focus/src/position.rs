//! A validated, playable position: move generation (F5), overflow (F6),
//! elimination and the end (F7, F8, F10) and the symmetry countermeasures (F9).

use crate::board::{Direction, Square};
use crate::error::PositionError;
use crate::illegal::IllegalMove;
use crate::moves::{DROP_BASE, Move, SWAP_BASE, swap_code};
use crate::rules::{OpeningSwap, Rules};
use crate::seats::label_of;
use crate::setup::{Mirror, RawPosition, Side, pieces_per_player};
use crate::tower::{Colour, Stack, Tower};

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// Ruling F7: one player (or team) is left.
    LastStanding,
    /// Ruling F8: a three-player win by captures or removals.
    Domination,
    /// Ruling F10: the move limit was reached.
    TurnLimit,
    /// Ruling F9: every move of player 2 restored the symmetry.
    SymmetryRule,
}

/// The result of a finished game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// Bit `s` set: seat `s` shares first place.
    pub winners: u8,
    /// How the game ended.
    pub reason: EndReason,
}

impl Outcome {
    /// Whether `seat` is among the winners.
    pub fn is_winner(self, seat: Colour) -> bool {
        self.winners & (1 << seat) != 0
    }
}

/// A legal Focus position together with the rules it is played under.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Position {
    rules: Rules,
    towers: [Tower; 64],
    reserves: [u32; 4],
    captures: [[u32; 4]; 4],
    removed: [u32; 4],
    out: [Colour; 4],
    out_len: u8,
    side: Side,
    moves: u32,
    mirror: Mirror,
}

impl Position {
    /// The start position under `rules` (F2–F4), with the opening swap
    /// pending when the rules ask for one (F9).
    pub fn start(rules: Rules) -> Position {
        let mut raw = RawPosition::start(rules.players()).unwrap_or_else(|| RawPosition::empty(2));
        if rules.opening_swap() != OpeningSwap::None {
            raw.side = Side::Swap;
        }
        // The start positions satisfy every check by construction; fall
        // back to a hand-built copy only to avoid a panic path.
        Position::from_raw(&raw, rules).unwrap_or_else(|_| Position::unchecked(&raw, rules))
    }

    fn unchecked(raw: &RawPosition, rules: Rules) -> Position {
        let mut out = [0; 4];
        for (slot, &c) in out.iter_mut().zip(&raw.out) {
            *slot = c;
        }
        Position {
            rules,
            towers: raw.towers,
            reserves: raw.reserves,
            captures: raw.captures,
            removed: raw.removed,
            out,
            out_len: raw.out.len().min(4) as u8,
            side: raw.side,
            moves: raw.moves,
            mirror: raw.mirror,
        }
    }

    /// Checks `raw` against the rules: piece counts add up, nothing sits off
    /// the board, the side to move can move (F7), and a position marked over
    /// has really ended (and a running one has not).
    pub fn from_raw(raw: &RawPosition, rules: Rules) -> Result<Position, PositionError> {
        // One piece: the checks in the order their errors are reported, each
        // a few lines over the same raw position.
        let n = rules.players();
        if raw.players != n {
            return Err(err(format!(
                "this position is for {} players; the match has {n}",
                raw.players
            )));
        }
        for (i, t) in raw.towers.iter().enumerate() {
            if Square::from_index(i as u8).is_none() && !t.is_empty() {
                return Err(err(format!(
                    "square index {i} does not exist but holds pieces"
                )));
            }
            if t.pieces().any(|c| usize::from(c) >= n) {
                return Err(err(format!(
                    "a tower holds a piece of no seat of this {n}-player match"
                )));
            }
        }
        for p in n..4 {
            if raw.reserves[p] != 0
                || raw.removed[p] != 0
                || raw.captures[p].iter().any(|&c| c != 0)
            {
                return Err(err(format!(
                    "a {n}-player match has no seat {p}, but the position gives it pieces"
                )));
            }
        }
        let total = pieces_per_player(n);
        for c in 0..n {
            if raw.captures[c][c] != 0 {
                return Err(err(format!(
                    "{} captured own pieces; own overflow goes to the reserve (F6)",
                    label_of(c as Colour)
                )));
            }
            let on_board: u32 = raw.towers.iter().map(|t| t.count(c as Colour) as u32).sum();
            let captured: u32 = (0..4).map(|m| raw.captures[m][c]).sum();
            let counted = u64::from(on_board) + u64::from(raw.reserves[c]) + u64::from(captured);
            if counted != u64::from(total) {
                return Err(err(format!(
                    "{} has {on_board} on the board, {} in reserve and {captured} captured: \
                     {counted}, not {total} (F2–F4)",
                    label_of(c as Colour),
                    raw.reserves[c]
                )));
            }
            let own_captures: u64 = raw.captures[c].iter().map(|&x| u64::from(x)).sum();
            if u64::from(raw.removed[c]) < own_captures {
                return Err(err(format!(
                    "{} removed fewer pieces ({}) than they captured ({own_captures}) (F8)",
                    label_of(c as Colour),
                    raw.removed[c]
                )));
            }
        }
        let mut seen = 0u8;
        for &c in &raw.out {
            if usize::from(c) >= n || seen & (1 << c) != 0 {
                return Err(err(
                    "the out list names a player twice or a player who does not exist",
                ));
            }
            seen |= 1 << c;
            // A player put out by F7 has no reserve, but one removed by the
            // host (`Position::remove`, clock `out`) may: those pieces stay
            // in the reserve, unused, so the piece count still adds up.
        }
        if n != 2 && raw.mirror != Mirror::Untested {
            return Err(err("the symmetry bookkeeping (F9) is for two players only"));
        }
        let pos = Position::unchecked(raw, rules);
        if pos.in_mask() == 0 {
            return Err(err("every player is out"));
        }
        let ended = pos.end_condition().map_err(PositionError::new)?;
        match raw.side {
            Side::Over if ended.is_none() => {
                return Err(err(
                    "the position is marked over, but no end condition holds",
                ));
            }
            Side::Over => {}
            _ if ended.is_some() => {
                return Err(err("the game has ended here; mark the side to move `-`"));
            }
            Side::Swap => {
                if rules.opening_swap() == OpeningSwap::None {
                    return Err(err(
                        "an opening swap is pending, but `opening_swap` is none",
                    ));
                }
                if raw.moves != 0 || raw.mirror != Mirror::Untested {
                    return Err(err("the opening swap comes before the first move (F9)"));
                }
                if pos.allowed_swaps().next().is_none() {
                    return Err(err(
                        "an opening swap is pending, but no pair is allowed (F9)",
                    ));
                }
            }
            Side::ToMove(p) => {
                if usize::from(p) >= n || pos.is_out(p) {
                    return Err(err(format!("{} cannot be to move", label_of(p))));
                }
                if !pos.can_move(p) {
                    return Err(err(format!(
                        "{} is to move but has no tower and no reserve (F7)",
                        label_of(p)
                    )));
                }
            }
        }
        Ok(pos)
    }

    /// The position as plain data.
    pub fn to_raw(&self) -> RawPosition {
        RawPosition {
            players: self.rules.players(),
            towers: self.towers,
            reserves: self.reserves,
            captures: self.captures,
            removed: self.removed,
            out: self.out_order().to_vec(),
            side: self.side,
            moves: self.moves,
            mirror: self.mirror,
        }
    }

    /// The rules in play.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// The number of players.
    pub fn players(&self) -> usize {
        self.rules.players()
    }

    /// The tower on `square`.
    pub fn tower(&self, square: Square) -> Tower {
        self.towers[square.index()]
    }

    /// Pieces in `seat`'s reserve.
    pub fn reserve(&self, seat: Colour) -> u32 {
        self.reserves.get(usize::from(seat)).copied().unwrap_or(0)
    }

    /// Pieces of `colour` captured by `seat` (F6).
    pub fn captured(&self, seat: Colour, colour: Colour) -> u32 {
        self.captures
            .get(usize::from(seat))
            .and_then(|row| row.get(usize::from(colour)))
            .copied()
            .unwrap_or(0)
    }

    /// Ruling F8's removal count of `seat`.
    pub fn removed(&self, seat: Colour) -> u32 {
        self.removed.get(usize::from(seat)).copied().unwrap_or(0)
    }

    /// Seats that are out, in the order they went out.
    pub fn out_order(&self) -> &[Colour] {
        &self.out[..usize::from(self.out_len)]
    }

    /// Whether `seat` is out (F7).
    pub fn is_out(&self, seat: Colour) -> bool {
        self.out_order().contains(&seat)
    }

    /// Who acts next.
    pub fn side(&self) -> Side {
        self.side
    }

    /// The seat to move, if a player (not chance) acts next.
    pub fn to_move(&self) -> Option<Colour> {
        match self.side {
            Side::ToMove(p) => Some(p),
            Side::Swap if self.rules.opening_swap() == OpeningSwap::Chosen => Some(0),
            _ => None,
        }
    }

    /// Whether chance acts next (F9, `opening_swap = random`).
    pub fn is_chance(&self) -> bool {
        self.side == Side::Swap && self.rules.opening_swap() == OpeningSwap::Random
    }

    /// Moves made so far (F10).
    pub fn moves(&self) -> u32 {
        self.moves
    }

    /// Ruling F9's bookkeeping.
    pub fn mirror(&self) -> Mirror {
        self.mirror
    }

    fn in_mask(&self) -> u8 {
        let all = (1u8 << self.players()) - 1;
        self.out_order().iter().fold(all, |m, &c| m & !(1 << c))
    }

    /// Ruling F7: a player can move if they own a tower or hold a reserve.
    pub fn can_move(&self, seat: Colour) -> bool {
        self.reserve(seat) > 0 || self.towers.iter().any(|t| t.top() == Some(seat))
    }

    /// Ruling F8: three players only; at least 3 captured of each other
    /// colour, or at least 10 removed in total.
    fn dominates(&self, seat: Colour) -> bool {
        let n = self.players();
        n == 3
            && (self.removed[usize::from(seat)] >= 10
                || (0..n as Colour)
                    .filter(|&c| c != seat)
                    .all(|c| self.captures[usize::from(seat)][usize::from(c)] >= 3))
    }

    /// Which end condition holds, if any; an error for an impossible mix.
    fn end_condition(&self) -> Result<Option<EndReason>, String> {
        let dominating = (0..self.players() as Colour)
            .filter(|&c| self.dominates(c))
            .count();
        if dominating > 1 {
            return Err("two players meet the three-player win (F8) at once".to_string());
        }
        if dominating == 1 {
            return Ok(Some(EndReason::Domination));
        }
        let teams_in = self.teams_in();
        if teams_in <= 1 {
            return Ok(Some(EndReason::LastStanding));
        }
        if self.moves >= self.rules.max_turns() {
            return Ok(Some(EndReason::TurnLimit));
        }
        Ok(None)
    }

    fn teams_in(&self) -> usize {
        let mask = self.in_mask();
        let mut teams = 0u8;
        for seat in 0..self.players() as Colour {
            if mask & (1 << seat) != 0 {
                teams |= 1 << self.rules.team(seat);
            }
        }
        teams.count_ones() as usize
    }

    /// The result, once the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        if self.side != Side::Over {
            return None;
        }
        let n = self.players() as Colour;
        let reason = self.end_condition().ok().flatten()?;
        // F9: however the game ended, the symmetry rule overrides it.
        if self.rules.symmetry_rule() && self.mirror == Mirror::Holding {
            return Some(Outcome {
                winners: 1,
                reason: EndReason::SymmetryRule,
            });
        }
        let winners = match reason {
            EndReason::Domination => (0..n)
                .filter(|&c| self.dominates(c))
                .fold(0, |m, c| m | (1 << c)),
            // F7 and F10: every player whose team still has someone in
            // shares first place.
            _ => {
                let mask = self.in_mask();
                (0..n)
                    .filter(|&c| {
                        (0..n).any(|d| {
                            mask & (1 << d) != 0 && self.rules.team(d) == self.rules.team(c)
                        })
                    })
                    .fold(0, |m, c| m | (1 << c))
            }
        };
        Some(Outcome { winners, reason })
    }

    /// Ruling F9: the pairs (R square, G square) of single R and G pieces
    /// that may exchange places; half-turn images of each other are not
    /// allowed. Ascending by R square, then G square.
    pub fn allowed_swaps(&self) -> impl Iterator<Item = (Square, Square)> + '_ {
        let single = move |colour: Colour| {
            Square::all().filter(move |&s| {
                let t = self.towers[s.index()];
                t.height() == 1 && t.top() == Some(colour)
            })
        };
        single(0).flat_map(move |r| {
            single(1)
                .filter(move |&g| g != r.rotate_half())
                .map(move |g| (r, g))
        })
    }

    /// Ruling F9: whether the position equals its own half-turn rotation with
    /// the colours swapped, reserves and captures included.
    pub fn is_symmetric(&self) -> bool {
        if self.players() != 2
            || self.reserves[0] != self.reserves[1]
            || self.captures[0][1] != self.captures[1][0]
        {
            return false;
        }
        Square::all().all(|s| {
            self.towers[s.rotate_half().index()] == self.towers[s.index()].recolour(|c| 1 - c)
        })
    }

    /// The legal action ids of `seat`, ascending, into `out` (cleared first).
    pub fn legal_actions(&self, seat: Colour, out: &mut Vec<u64>) {
        out.clear();
        match self.side {
            Side::ToMove(p) if p == seat => self.generate(p, out),
            Side::Swap if seat == 0 && self.rules.opening_swap() == OpeningSwap::Chosen => {
                out.extend(
                    self.allowed_swaps()
                        .map(|(r, g)| SWAP_BASE + swap_code(r, g)),
                );
            }
            _ => {}
        }
    }

    /// Ruling F5 for `p`: every tower of theirs, every direction, every k up
    /// to the height whose destination exists; then a drop on every square
    /// if they hold a reserve.
    fn generate(&self, p: Colour, out: &mut Vec<u64>) {
        for s in Square::all() {
            let t = self.towers[s.index()];
            if t.top() != Some(p) {
                continue;
            }
            let h = t.height();
            for d in Direction::ALL {
                for k in 1..=h {
                    if s.offset(d, k).is_some() {
                        out.push(s.index() as u64 * 20 + d as u64 * 5 + (k as u64 - 1));
                    }
                }
            }
        }
        if self.reserves[usize::from(p)] > 0 {
            out.extend(Square::all().map(|s| DROP_BASE + s.index() as u64));
        }
    }

    /// Whether `mv` is legal for `seat` now, and why not. The reasons are
    /// looked at in a fixed order: a seat the match lacks, a move off the
    /// board (never legal), the end of the game, a seat out, whose turn it
    /// is, and then what the move itself asks of the board.
    pub fn check(&self, seat: Colour, mv: Move) -> Result<(), IllegalMove> {
        if usize::from(seat) >= self.players() {
            return Err(IllegalMove::NoSuchSeat {
                seat: u32::from(seat),
                players: self.players(),
            });
        }
        if let Move::Shift { from, direction, k } = mv
            && from.offset(direction, k).is_none()
        {
            return Err(IllegalMove::OffBoard { from, direction, k });
        }
        if self.side == Side::Over {
            return Err(IllegalMove::GameOver(self.outcome().map(|o| o.reason)));
        }
        if self.is_out(seat) {
            return Err(IllegalMove::PlayerOut(seat));
        }
        match (self.side, mv) {
            (Side::Over, _) => Err(IllegalMove::GameOver(None)),
            (Side::Swap, _) if self.rules.opening_swap() != OpeningSwap::Chosen => {
                Err(IllegalMove::NotYourTurn {
                    seat,
                    to_move: None,
                    ruling: "F9",
                })
            }
            (Side::Swap, _) if seat != 0 => Err(IllegalMove::NotYourTurn {
                seat,
                to_move: Some(0),
                ruling: "F9: P1 chooses the opening swap",
            }),
            (Side::Swap, Move::Swap { r, g }) => self.check_swap(r, g),
            (Side::Swap, _) => Err(IllegalMove::SwapFirst),
            (Side::ToMove(p), _) if p != seat => Err(IllegalMove::NotYourTurn {
                seat,
                to_move: Some(p),
                ruling: match self.players() {
                    2 => "F2: the players alternate, P1 first",
                    3 => "F4: turn order P1, P2, P3",
                    _ => "F3: turn order P1, P3, P2, P4",
                },
            }),
            (Side::ToMove(_), Move::Swap { .. }) => Err(IllegalMove::NoSwapNow {
                in_match: self.rules.opening_swap() != OpeningSwap::None,
            }),
            (Side::ToMove(p), Move::Drop(_)) => {
                if self.reserves[usize::from(p)] == 0 {
                    Err(IllegalMove::NoReserve(p))
                } else {
                    Ok(())
                }
            }
            (Side::ToMove(p), Move::Shift { from, k, .. }) => {
                self.check_tower(p, from, k)?;
                Ok(())
            }
        }
    }

    /// Ruling F5: `seat` owns the tower on `from`, which is at least `k`
    /// pieces high (`k` may come from a text naming more than 5 squares).
    pub(crate) fn check_tower(
        &self,
        seat: Colour,
        from: Square,
        k: usize,
    ) -> Result<(), IllegalMove> {
        let t = self.towers[from.index()];
        match t.top() {
            None => Err(IllegalMove::EmptySquare(from)),
            Some(owner) if owner != seat => Err(IllegalMove::NotYourTower {
                square: from,
                owner,
            }),
            Some(_) if k > t.height() => Err(IllegalMove::TooFar {
                from,
                k,
                height: t.height(),
            }),
            Some(_) => Ok(()),
        }
    }

    /// Ruling F9: whether the pair may be swapped.
    pub fn check_swap(&self, r: Square, g: Square) -> Result<(), IllegalMove> {
        let single = |s: Square, c: Colour| {
            let t = self.towers[s.index()];
            t.height() == 1 && t.top() == Some(c)
        };
        if !single(r, 0) || !single(g, 1) {
            return Err(IllegalMove::SwapWrongPieces { r, g });
        }
        if g == r.rotate_half() {
            return Err(IllegalMove::SwapKeepsSymmetry { r, g });
        }
        Ok(())
    }

    /// Plays `mv` for `seat` if it is legal; otherwise changes nothing.
    pub fn play(&mut self, seat: Colour, mv: Move) -> Result<(), IllegalMove> {
        self.check(seat, mv)?;
        self.play_unchecked(mv);
        Ok(())
    }

    /// Ruling F9, `opening_swap = random`: applies the chance outcome
    /// `r * 64 + g` if it names an allowed pair.
    pub fn apply_swap_outcome(&mut self, r: Square, g: Square) -> Result<(), IllegalMove> {
        if !self.is_chance() {
            return Err(IllegalMove::NoSwapNow {
                in_match: self.rules.opening_swap() != OpeningSwap::None,
            });
        }
        self.check_swap(r, g)?;
        self.play_unchecked(Move::Swap { r, g });
        Ok(())
    }

    fn play_unchecked(&mut self, mv: Move) {
        let p = match (self.side, mv) {
            (Side::Swap, Move::Swap { r, g }) => {
                self.towers.swap(r.index(), g.index());
                // The swap is not a move (F9, F10): player 1 now moves as usual.
                self.side = Side::ToMove(self.rules.turn_order()[0]);
                return;
            }
            (Side::ToMove(p), _) => p,
            _ => return,
        };
        match mv {
            Move::Shift { from, direction, k } => {
                let Some(to) = from.offset(direction, k) else {
                    return;
                };
                let Some((stay, moving)) = self.towers[from.index()].split_top(k) else {
                    return;
                };
                self.towers[from.index()] = stay;
                let pile = self.towers[to.index()].into_stack().stacked(moving);
                self.land(p, to, pile);
            }
            Move::Drop(s) => {
                self.reserves[usize::from(p)] -= 1;
                let pile = self.towers[s.index()]
                    .into_stack()
                    .stacked(Stack::single(p));
                self.land(p, s, pile);
            }
            Move::Swap { .. } => return,
        }
        self.moves += 1;
        if p == 1
            && self.players() == 2
            && self.rules.symmetry_rule()
            && self.mirror != Mirror::Broken
        {
            self.mirror = if self.is_symmetric() {
                Mirror::Holding
            } else {
                Mirror::Broken
            };
        }
        if self.dominates(p) {
            self.side = Side::Over;
            return;
        }
        self.pass_turn(p);
        if self.side != Side::Over && self.moves >= self.rules.max_turns() {
            self.side = Side::Over;
        }
    }

    /// Ruling F6: what rises above five leaves from the bottom; the mover's
    /// own pieces go to their reserve, the rest are captured.
    fn land(&mut self, p: Colour, to: Square, pile: Stack) {
        let mover = usize::from(p);
        let (reserves, captures, removed) = (
            &mut self.reserves,
            &mut self.captures[mover],
            &mut self.removed[mover],
        );
        self.towers[to.index()] = pile.overflow(|c| {
            *removed += 1;
            if c == p {
                reserves[mover] += 1;
            } else {
                captures[usize::from(c)] += 1;
            }
        });
    }

    /// Takes `seat` out of the game for good, as the host does when its clock
    /// runs out under `out`: ruling F7's "out and skipped from then on", without
    /// the F7 condition. Its towers stay on the board and its reserve stays
    /// unused; nobody captures anything. The game ends when one player or team
    /// is left (F7); if `seat` was to move, the turn passes on (F7, no ply).
    /// Refuses, changing nothing, a seat that does not play, is already out, or
    /// a game that is over.
    pub fn remove(&mut self, seat: Colour) -> Result<(), String> {
        if usize::from(seat) >= self.players() {
            return Err(IllegalMove::NoSuchSeat {
                seat: u32::from(seat),
                players: self.players(),
            }
            .to_string());
        }
        if self.side == Side::Over {
            return Err(IllegalMove::GameOver(self.outcome().map(|o| o.reason)).to_string());
        }
        if self.is_out(seat) {
            return Err(format!("{} is already out (F7)", label_of(seat)));
        }
        self.out[usize::from(self.out_len)] = seat;
        self.out_len += 1;
        if self.teams_in() <= 1 {
            self.side = Side::Over;
        } else if self.side == Side::ToMove(seat) {
            self.pass_turn(seat);
        }
        Ok(())
    }

    /// Ruling F7: the turn passes along the turn order; a player reached
    /// who cannot move is out for good (no ply), and the game ends when
    /// only one player or team is left.
    fn pass_turn(&mut self, mover: Colour) {
        let order = self.rules.turn_order();
        let mut i = order.iter().position(|&s| s == mover).unwrap_or(0);
        for _ in 0..order.len() {
            i = (i + 1) % order.len();
            let q = order[i];
            if self.is_out(q) {
                continue;
            }
            if q == mover || self.can_move(q) {
                self.side = Side::ToMove(q);
                return;
            }
            self.out[usize::from(self.out_len)] = q;
            self.out_len += 1;
            if self.teams_in() <= 1 {
                self.side = Side::Over;
                return;
            }
        }
        self.side = Side::Over;
    }
}

fn err(message: impl Into<String>) -> PositionError {
    PositionError::new(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    #[test]
    fn start_counts_ruling_f12_depth_1() {
        let mut out = Vec::new();
        for (players, expected) in [(2, 68), (3, 98), (4, 44)] {
            let pos = Position::start(Rules::standard(players).unwrap());
            pos.legal_actions(0, &mut out);
            assert_eq!(out.len(), expected, "{players} players");
            assert!(out.windows(2).all(|w| w[0] < w[1]));
        }
    }

    #[test]
    fn start_is_symmetric_and_swap_pairs_exclude_images_ruling_f9() {
        let pos = Position::start(Rules::standard(2).unwrap());
        assert!(pos.is_symmetric());
        // 18 R × 18 G, minus the 18 pairs that are half-turn images.
        assert_eq!(pos.allowed_swaps().count(), 18 * 18 - 18);
        assert!(
            pos.check_swap(sq("b2"), sq("g7")).is_err(),
            "b2 and g7 are images"
        );
        assert!(pos.check_swap(sq("b2"), sq("d2")).is_ok());
        assert!(
            pos.check_swap(sq("d2"), sq("b2")).is_err(),
            "R square first"
        );
    }
}
