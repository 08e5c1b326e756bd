//! The rules: legal actions (W3–W10) and applying them with the end checks
//! (W9, W11).

use crate::board::{DIRECTIONS, Direction, SegmentKind};
use crate::moves::Action;
use crate::position::{LegalIds, Outcome, Phase, Position, Reason};
use crate::side::{Side, Tile, TileKind, Unit, UnitKind};
use tabletop_sdk::ActionId;

/// Whether a segment of this (effective) kind carries ordinary movement (W4).
#[inline]
fn walkable(kind: Option<SegmentKind>) -> bool {
    matches!(kind, Some(SegmentKind::Black | SegmentKind::Rail))
}

impl Position {
    /// The neighbour of `point` in direction `dir` across a segment that is not
    /// a gap now, with that segment's current kind.
    #[inline]
    fn step(&self, point: u8, dir: usize) -> Option<(u8, SegmentKind)> {
        let (q, s) = self.board.link(point, dir)?;
        self.effective_kind(s).map(|k| (q, k))
    }

    /// Whether an enemy on `b`, attacked along direction `dir`, is undefended:
    /// the next point straight on exists, is joined by a segment that is not a
    /// gap, and is empty (W5). Returns that landing point.
    #[inline]
    fn undefended_landing(&self, b: u8, dir: usize) -> Option<u8> {
        let (c, _) = self.step(b, dir)?;
        self.units[c as usize].is_none().then_some(c)
    }

    /// The points a cannon's shot from `from` toward `dir` removes (W7), in order.
    pub(crate) fn shot(&self, from: u8, dir: usize, side: Side, out: &mut Vec<u8>) {
        out.clear();
        let mut cur = from;
        while let Some((next, _)) = self.step(cur, dir) {
            match self.units[next as usize] {
                None => cur = next,
                Some(u) if u.side == side => break,
                Some(_) => {
                    let Some((c, _)) = self.step(next, dir) else {
                        break;
                    };
                    if self.units[c as usize].is_some() {
                        break;
                    }
                    out.push(next);
                    cur = next;
                }
            }
        }
    }

    /// Appends every capture of `side` (W6, W7). Returns whether there is one.
    fn captures(&self, side: Side, out: &mut Vec<Action>) -> bool {
        let mut found = false;
        let mut hits = Vec::new();
        for a in 0..self.units.len() as u8 {
            let Some(u) = self.units[a as usize] else {
                continue;
            };
            if u.side != side {
                continue;
            }
            for (dir, &direction) in DIRECTIONS.iter().enumerate() {
                if u.kind == UnitKind::Cannon {
                    self.shot(a, dir, side, &mut hits);
                    if hits.is_empty() {
                        continue;
                    }
                    found = true;
                    out.push(Action::Fire {
                        from: a,
                        dir: direction,
                    });
                } else {
                    let Some((b, _)) = self.step(a, dir) else {
                        continue;
                    };
                    match self.units[b as usize] {
                        Some(e) if e.side != side => {}
                        _ => continue,
                    }
                    let Some(c) = self.undefended_landing(b, dir) else {
                        continue;
                    };
                    found = true;
                    out.push(Action::Jump { from: a, to: c });
                }
            }
        }
        found
    }

    /// The end points of every move of the unit on `from` (W4), sorted, unique.
    fn destinations(&self, from: u8, kind: UnitKind, out: &mut Vec<u8>) {
        out.clear();
        for dir in 0..8 {
            let Some((q, k)) = self.step(from, dir) else {
                continue;
            };
            if !walkable(Some(k)) || self.units[q as usize].is_some() {
                continue;
            }
            out.push(q);
            if kind == UnitKind::Cavalry {
                for dir2 in 0..8 {
                    let Some((r, k2)) = self.step(q, dir2) else {
                        continue;
                    };
                    if walkable(Some(k2)) && r != from && self.units[r as usize].is_none() {
                        out.push(r);
                    }
                }
            }
        }
        // Rail moves: a simple path of one to three rail segments through empty points.
        let mut path = [from; 4];
        self.rail_paths(&mut path, 0, out);
        out.sort_unstable();
        out.dedup();
    }

    fn rail_paths(&self, path: &mut [u8; 4], len: usize, out: &mut Vec<u8>) {
        if len == 3 {
            return;
        }
        let cur = path[len];
        for dir in 0..8 {
            let Some((q, k)) = self.step(cur, dir) else {
                continue;
            };
            if k != SegmentKind::Rail
                || self.units[q as usize].is_some()
                || path[..=len].contains(&q)
            {
                continue;
            }
            out.push(q);
            path[len + 1] = q;
            self.rail_paths(path, len + 1, out);
        }
    }

    /// Every legal action of the side to move, in no particular order.
    pub fn legal(&self, out: &mut Vec<Action>) {
        out.clear();
        let side = self.to_move;
        match self.phase {
            Phase::Over(_) => {}
            Phase::Setup => {
                for kind in UnitKind::ALL {
                    if self.count_of(side, kind) < kind.army_count() {
                        out.push(Action::Place(kind));
                    }
                }
            }
            Phase::Play => {
                // W8: any capture makes captures the only legal moves.
                if self.captures(side, out) {
                    return;
                }
                let mut dest = Vec::new();
                for a in 0..self.units.len() as u8 {
                    let Some(u) = self.units[a as usize] else {
                        continue;
                    };
                    // W9: a seized cannon may fire but not move.
                    if u.side != side || (u.kind == UnitKind::Cannon && self.seized.contains(&a)) {
                        continue;
                    }
                    self.destinations(a, u.kind, &mut dest);
                    out.extend(dest.iter().map(|&to| Action::Move { from: a, to }));
                }
                self.tile_actions(side, out);
            }
        }
    }

    /// Places first, then removals, each by segment: in id order (see
    /// `moves`), so that sorting a play turn's list (moves, then these)
    /// finds it sorted already.
    fn tile_actions(&self, side: Side, out: &mut Vec<Action>) {
        let enemy = side.opponent();
        let can_place = self.hand[side.index()];
        if can_place != [0, 0] {
            for (i, seg) in self.board.segments().iter().enumerate() {
                // W10: never on a printed railway, never next to an enemy unit.
                if self.tiles[i].is_some() || seg.kind == SegmentKind::Rail {
                    continue;
                }
                let enemy_at = |p: u8| self.units[p as usize].is_some_and(|u| u.side == enemy);
                if enemy_at(seg.a) || enemy_at(seg.b) {
                    continue;
                }
                for kind in TileKind::ALL {
                    if can_place[kind.index()] > 0 {
                        out.push(Action::PlaceTile {
                            segment: i as u16,
                            kind,
                        });
                    }
                }
            }
        }
        for (i, tile) in self.tiles.iter().enumerate() {
            if tile.is_some_and(|t| t.owner == side) {
                out.push(Action::RemoveTile { segment: i as u16 });
            }
        }
    }

    /// Applies `action` if it is legal; otherwise returns `false` and changes nothing.
    pub fn play(&mut self, action: Action) -> bool {
        if self
            .legal_ids()
            .binary_search(&action.id(&self.board))
            .is_err()
        {
            return false;
        }
        self.play_unchecked(action);
        true
    }

    /// The ids of [`Position::legal`], sorted and without repeats; computed
    /// once per position and kept until the next move.
    pub fn legal_ids(&self) -> &[ActionId] {
        self.legal_ids.get_or_compute(|| {
            let mut actions = Vec::new();
            self.legal(&mut actions);
            self.sorted_ids(&actions)
        })
    }

    fn sorted_ids(&self, actions: &[Action]) -> Vec<ActionId> {
        let mut ids: Vec<ActionId> = actions.iter().map(|a| a.id(&self.board)).collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// Plays a legal `action` (see [`Position::play`]).
    pub(crate) fn play_unchecked(&mut self, action: Action) {
        // Dropped before the move, never recomputed in the middle of it: the
        // start-of-turn check at its end may keep the new position's list.
        self.legal_ids = LegalIds::default();
        let side = self.to_move;
        if let Action::Place(kind) = action {
            let Some(n) = self.next_start() else { return };
            let p = self.board.start_point(side, n);
            self.units[p as usize] = Some(Unit { side, kind });
            if n == 24 {
                match side {
                    Side::South => self.to_move = Side::North,
                    Side::North => {
                        self.to_move = Side::South;
                        self.phase = Phase::Play;
                        self.history = vec![self.key()];
                        self.check_start_of_turn(Side::North);
                    }
                }
            }
            return;
        }

        let mut moved: Option<u8> = None;
        let mut removed = false;
        match action {
            Action::Place(_) => {}
            Action::Move { from, to } => {
                self.units[to as usize] = self.units[from as usize].take();
                moved = Some(to);
            }
            Action::Jump { from, to } => {
                let (f, t) = (
                    &self.board.points()[from as usize],
                    &self.board.points()[to as usize],
                );
                let over = Direction::from_delta((t.x - f.x) / 2, (t.y - f.y) / 2)
                    .and_then(|d| self.board.link(from, d.index()));
                if let Some((mid, _)) = over {
                    self.units[mid as usize] = None;
                }
                self.units[to as usize] = self.units[from as usize].take();
                moved = Some(to);
                removed = true;
            }
            Action::Fire { from, dir } => {
                let mut hits = Vec::new();
                self.shot(from, dir.index(), side, &mut hits);
                for p in hits {
                    self.units[p as usize] = None;
                }
                removed = true;
            }
            Action::PlaceTile { segment, kind } => {
                self.hand[side.index()][kind.index()] -= 1;
                self.tiles[segment as usize] = Some(Tile { kind, owner: side });
            }
            Action::RemoveTile { segment } => {
                if let Some(t) = self.tiles[segment as usize].take() {
                    self.hand[side.index()][t.kind.index()] += 1;
                }
            }
        }

        // W10: a tile whose both ends hold the non-owner's units changes owner.
        for (i, seg) in self.board.segments().iter().enumerate() {
            let Some(t) = &mut self.tiles[i] else {
                continue;
            };
            let other = t.owner.opponent();
            let held = |p: u8| self.units[p as usize].is_some_and(|u| u.side == other);
            if held(seg.a) && held(seg.b) {
                t.owner = other;
            }
        }

        let enemy = side.opponent();
        self.moves += 1;
        // W11: the mover wins by the enemy fortress or by destruction.
        let fortress = self.board.fortress(enemy);
        if fortress
            .iter()
            .all(|&p| self.units[p as usize].is_some_and(|u| u.side == side))
        {
            self.end(Some(side), Reason::Fortress);
            return;
        }
        if self.unit_count(enemy) <= 2 {
            self.end(Some(side), Reason::Destroyed);
            return;
        }

        // W9: the unit that moved seizes every enemy cannon joined to its point.
        let mut newly = Vec::new();
        if let Some(p) = moved {
            for dir in 0..8 {
                if let Some((q, _)) = self.step(p, dir)
                    && self.units[q as usize]
                        == Some(Unit {
                            side: enemy,
                            kind: UnitKind::Cannon,
                        })
                {
                    newly.push(q);
                }
            }
        }
        newly.sort_unstable();
        // The mover's own cannons seized on the enemy's last move go now: the
        // enemy's turn starts.
        let old = std::mem::replace(&mut self.seized, newly);
        for p in old {
            if self.units[p as usize]
                == Some(Unit {
                    side,
                    kind: UnitKind::Cannon,
                })
            {
                self.units[p as usize] = None;
                removed = true;
            }
        }
        self.to_move = enemy;
        if removed {
            self.history.clear();
        }
        self.history.push(self.key());
        self.check_start_of_turn(side);
    }

    /// The checks at the start of a turn, after any cannon removal: the
    /// removal's destruction win, encirclement, then the draws (W11). The
    /// encirclement check needs the side's captures and moves, most of its
    /// legal actions, and the host asks for those right after every move:
    /// so the whole list is made here once, answers encirclement (a unit
    /// action in it or not), and is kept if the game goes on.
    pub(crate) fn check_start_of_turn(&mut self, previous: Side) {
        let side = self.to_move;
        if self.unit_count(previous) <= 2 {
            return self.end(Some(side), Reason::Destroyed);
        }
        // Most play turns list a few dozen to a few hundred actions.
        let mut actions = Vec::with_capacity(256);
        self.legal(&mut actions);
        if !actions.iter().any(|a| a.is_unit_action()) {
            self.end(Some(previous), Reason::Encircled);
        } else if self
            .history
            .last()
            .is_some_and(|k| self.history.iter().filter(|h| *h == k).count() >= 3)
        {
            self.end(None, Reason::Repetition);
        } else if self.moves >= self.max_turns {
            self.end(None, Reason::TurnLimit);
        } else {
            self.legal_ids = LegalIds::computed(self.sorted_ids(&actions));
        }
    }

    fn end(&mut self, winner: Option<Side>, reason: Reason) {
        self.phase = Phase::Over(Outcome { winner, reason });
    }
}
