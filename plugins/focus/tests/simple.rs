//! A second, deliberately simple Focus move generator, written only for the
//! tests. It shares no code with the plugin's move generation: squares are
//! `(file, rank)` pairs in a `BTreeMap`, towers are `Vec<u8>`, and the rules
//! (F1, F5–F8, F10) are re-implemented from the rulings. Only reading the
//! position is shared (through the plugin's public accessors), so a bug in
//! the plugin's move generation cannot hide in both.

use std::collections::BTreeMap;

use focus::{Position, Side, Square};

/// Row lengths of ruling F1, rank 1 first; each row is centred.
const ROW_LENGTHS: [i32; 8] = [4, 6, 8, 8, 8, 8, 6, 4];

fn on_board(file: i32, rank: i32) -> bool {
    if !(0..8).contains(&rank) {
        return false;
    }
    let len = ROW_LENGTHS[rank as usize];
    let first = (8 - len) / 2;
    file >= first && file < first + len
}

#[derive(Clone, Debug)]
pub struct Simple {
    players: usize,
    towers: BTreeMap<(i32, i32), Vec<u8>>,
    reserve: Vec<u32>,
    captured: Vec<Vec<u32>>,
    removed: Vec<u32>,
    out: Vec<u8>,
    /// `None` once the game is over.
    to_move: Option<u8>,
    moves: u32,
    max_turns: u32,
}

#[derive(Clone, Copy, Debug)]
enum SimpleMove {
    Shift {
        from: (i32, i32),
        to: (i32, i32),
        k: usize,
    },
    Drop((i32, i32)),
}

impl Simple {
    /// Copies a running (or finished) position out of the plugin's type.
    pub fn from_position(pos: &Position) -> Simple {
        let players = pos.players();
        let mut towers = BTreeMap::new();
        for rank in 0..8 {
            for file in 0..8 {
                if on_board(file, rank) {
                    let square = Square::new(file as u8, rank as u8).expect("square exists");
                    towers.insert((file, rank), pos.tower(square).pieces().collect());
                }
            }
        }
        let seats = 0..players as u8;
        Simple {
            players,
            towers,
            reserve: seats.clone().map(|c| pos.reserve(c)).collect(),
            captured: seats
                .clone()
                .map(|p| seats.clone().map(|c| pos.captured(p, c)).collect())
                .collect(),
            removed: seats.clone().map(|c| pos.removed(c)).collect(),
            out: pos.out_order().to_vec(),
            to_move: match pos.side() {
                Side::ToMove(p) => Some(p),
                _ => None,
            },
            moves: pos.moves(),
            max_turns: pos.rules().max_turns(),
        }
    }

    fn moves_of(&self, p: u8) -> Vec<SimpleMove> {
        let mut list = Vec::new();
        for (&(file, rank), tower) in &self.towers {
            if tower.last() != Some(&p) {
                continue;
            }
            for (df, dr) in [(0, 1), (1, 0), (0, -1), (-1, 0)] {
                for k in 1..=tower.len() {
                    let to = (file + df * k as i32, rank + dr * k as i32);
                    if on_board(to.0, to.1) {
                        list.push(SimpleMove::Shift {
                            from: (file, rank),
                            to,
                            k,
                        });
                    }
                }
            }
        }
        if self.reserve[p as usize] > 0 {
            for &square in self.towers.keys() {
                list.push(SimpleMove::Drop(square));
            }
        }
        list
    }

    fn can_move(&self, p: u8) -> bool {
        self.reserve[p as usize] > 0 || self.towers.values().any(|t| t.last() == Some(&p))
    }

    fn order(&self) -> Vec<u8> {
        if self.players == 4 {
            vec![0, 2, 1, 3]
        } else {
            (0..self.players as u8).collect()
        }
    }

    fn team(&self, p: u8) -> u8 {
        if self.players == 4 { p / 2 } else { p }
    }

    fn play(&mut self, mv: SimpleMove) {
        let p = self.to_move.expect("a running game");
        let to = match mv {
            SimpleMove::Shift { from, to, k } => {
                let source = self.towers.get_mut(&from).expect("source");
                let moving = source.split_off(source.len() - k);
                self.towers.get_mut(&to).expect("target").extend(moving);
                to
            }
            SimpleMove::Drop(square) => {
                self.reserve[p as usize] -= 1;
                self.towers.get_mut(&square).expect("target").push(p);
                square
            }
        };
        let tower = self.towers.get_mut(&to).expect("target");
        while tower.len() > 5 {
            let bottom = tower.remove(0);
            self.removed[p as usize] += 1;
            if bottom == p {
                self.reserve[p as usize] += 1;
            } else {
                self.captured[p as usize][bottom as usize] += 1;
            }
        }
        self.moves += 1;
        if self.players == 3 {
            let others_ok = (0..3u8)
                .filter(|&c| c != p)
                .all(|c| self.captured[p as usize][c as usize] >= 3);
            if others_ok || self.removed[p as usize] >= 10 {
                self.to_move = None;
                return;
            }
        }
        let order = self.order();
        let mut i = order.iter().position(|&s| s == p).expect("mover in order");
        loop {
            i = (i + 1) % order.len();
            let q = order[i];
            if self.out.contains(&q) {
                continue;
            }
            if self.can_move(q) || q == p {
                self.to_move = Some(q);
                break;
            }
            self.out.push(q);
            let mut teams: Vec<u8> = (0..self.players as u8)
                .filter(|c| !self.out.contains(c))
                .map(|c| self.team(c))
                .collect();
            teams.sort();
            teams.dedup();
            if teams.len() <= 1 {
                self.to_move = None;
                return;
            }
        }
        if self.moves >= self.max_turns {
            self.to_move = None;
        }
    }

    /// Ruling F12's count.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let Some(p) = self.to_move else {
            return 0;
        };
        let moves = self.moves_of(p);
        if depth == 1 {
            return moves.len() as u64;
        }
        moves
            .into_iter()
            .map(|mv| {
                let mut next = self.clone();
                next.play(mv);
                next.perft(depth - 1)
            })
            .sum()
    }
}
