//! The rules: legal actions (W3–W10) and applying them with the end checks
//! (W9, W11).

use crate::board::{Direction, SegmentKind};
use crate::lines::each;
use crate::moves::{Action, IdLayout};
use crate::point_set::PointSet;
use crate::position::{LegalIds, Outcome, Phase, Position, Reason};
use crate::side::{Side, Tile, TileKind, Unit, UnitKind};
use tabletop_sdk::ActionId;

impl Position {
    /// The neighbour of `point` in direction `dir` across a segment that is not
    /// a gap now.
    #[inline]
    pub(crate) fn step(&self, point: u8, dir: usize) -> Option<u8> {
        let open = self.lines.at(point).open;
        (open & (1 << dir) != 0).then(|| self.board.neighbours(point)[dir & 7])
    }

    /// Whether an enemy on `b`, attacked along direction `dir`, is undefended:
    /// the next point straight on exists, is joined by a segment that is not a
    /// gap, and is empty (W5). Returns that landing point.
    #[inline]
    pub(crate) fn undefended_landing(&self, b: u8, dir: usize) -> Option<u8> {
        let c = self.step(b, dir)?;
        self.units[c as usize].is_none().then_some(c)
    }

    /// The points a cannon's shot from `from` toward `dir` removes (W7), in order.
    pub(crate) fn shot(&self, from: u8, dir: usize, side: Side, out: &mut Vec<u8>) {
        out.clear();
        out.extend(self.shot_targets(from, dir, side));
    }

    /// The enemies a shot of `side`'s cannon on `from` toward `dir` removes,
    /// one by one: the move generator asks only for the first.
    #[inline]
    fn shot_targets(&self, from: u8, dir: usize, side: Side) -> ShotTargets<'_> {
        ShotTargets {
            pos: self,
            cur: from,
            dir,
            side,
        }
    }

    /// Appends the ids of every capture of `side` (W6, W7), in id order: the
    /// jumps by jumper, then landing point, then the shots by cannon, then
    /// direction. Returns whether there is one.
    fn captures(&self, side: Side, ids: IdLayout, out: &mut Vec<ActionId>) -> bool {
        let start = out.len();
        let enemies = self.occupied[side.opponent().index()];
        let mut cannons = PointSet::default();
        // `for_each` over point sets, here and below: see `Points::fold`.
        self.occupied[side.index()].iter().for_each(|a| {
            if self.units[a as usize].is_some_and(|u| u.kind == UnitKind::Cannon) {
                cannons.insert(a);
                return;
            }
            // Most units have no enemy beside them, gap or not.
            if !enemies.meets(self.board.adjacent(a)) {
                return;
            }
            let mut landings = PointSet::default();
            let to = self.board.neighbours(a);
            for dir in each(self.lines.at(a).open) {
                let b = to[dir];
                if enemies.contains(b)
                    && let Some(c) = self.undefended_landing(b, dir)
                {
                    landings.insert(c);
                }
            }
            if !landings.is_empty() {
                out.extend(landings.iter().map(|c| ids.jump(a, c)));
            }
        });
        for a in cannons.iter() {
            for dir in 0..8 {
                if self.shot_targets(a, dir, side).next().is_some() {
                    out.push(ids.fire(a, dir));
                }
            }
        }
        out.len() > start
    }

    /// The end points of every move of the unit on `from` (W4); `empty` is
    /// the empty points.
    fn destinations(&self, from: u8, kind: UnitKind, empty: PointSet) -> PointSet {
        let steps = *self.lines.walk_to(from) & empty;
        let mut out = steps;
        // A cavalry's second step goes on from any empty first point; its
        // own point is not empty, so it never ends where it started.
        if kind == UnitKind::Cavalry {
            steps
                .iter()
                .for_each(|q| out |= *self.lines.walk_to(q) & empty);
        }
        // Rail moves: a simple path of one to three rail segments through
        // empty points; most points have no rail to start one. A walk of up
        // to three segments through empty points (never the unit's own
        // point, which is not empty) reaches no other points than simple
        // paths do, so the reach grows ring by ring.
        if self.lines.at(from).rail != 0 {
            let mut ring = *self.lines.rail_to(from) & empty;
            let mut reached = ring;
            for _ in 1..3 {
                let mut next = PointSet::default();
                ring.iter()
                    .for_each(|q| next |= *self.lines.rail_to(q) & empty);
                ring = next.without(reached);
                reached |= ring;
            }
            out |= reached;
        }
        out
    }

    /// Appends the ids of every unit move of `side` (W4), in id order.
    /// Returns whether there is one.
    fn unit_moves(&self, side: Side, ids: IdLayout, out: &mut Vec<ActionId>) -> bool {
        let start = out.len();
        let mut occupied = self.occupied[0];
        occupied |= self.occupied[1];
        let empty = occupied.complement();
        self.occupied[side.index()].iter().for_each(|a| {
            let Some(u) = self.units[a as usize] else {
                return;
            };
            // W9: a seized cannon may fire but not move.
            if u.kind == UnitKind::Cannon && self.seized.contains(&a) {
                return;
            }
            self.destinations(a, u.kind, empty)
                .iter()
                .for_each(|to| out.push(ids.step(a, to)));
        });
        out.len() > start
    }

    /// Appends the ids of every legal action of the side to move, in id
    /// order (so sorted and without repeats, as the blocks of ids follow
    /// the action kinds: see `moves`). Returns whether one of them moves or
    /// captures with a unit, which is what the encirclement check (W11)
    /// asks.
    fn generate(&self, out: &mut Vec<ActionId>) -> bool {
        let side = self.to_move;
        match self.phase {
            Phase::Over(_) => false,
            Phase::Setup => {
                for kind in UnitKind::ALL {
                    if self.count_of(side, kind) < kind.army_count() {
                        out.push(Action::Place(kind).id(&self.board));
                    }
                }
                false
            }
            Phase::Play => {
                let ids = IdLayout::of(&self.board);
                // W8: any capture makes captures the only legal moves.
                if self.captures(side, ids, out) {
                    return true;
                }
                let moves = self.unit_moves(side, ids, out);
                self.tile_actions(side, ids, out);
                moves
            }
        }
    }

    /// Every legal action of the side to move, in id order, computed from
    /// scratch (the host's list is [`Position::legal_ids`], which keeps it).
    pub fn legal(&self, out: &mut Vec<Action>) {
        out.clear();
        let mut ids = Vec::new();
        self.generate(&mut ids);
        out.extend(
            ids.iter()
                .filter_map(|&id| Action::from_id(id, &self.board)),
        );
    }

    /// Appends the ids of the tile actions (W10): places first, then
    /// removals, each by segment, which is id order.
    fn tile_actions(&self, side: Side, ids: IdLayout, out: &mut Vec<ActionId>) {
        let enemy = side.opponent();
        let hand = self.hand[side.index()];
        let kinds = TileKind::ALL.map(|kind| hand[kind.index()] > 0);
        if kinds != [false, false] {
            let enemies = self.occupied[enemy.index()];
            for ((i, seg), tile) in self.board.segments().iter().enumerate().zip(&self.tiles) {
                // W10: never on a printed railway, never next to an enemy unit.
                if tile.is_some()
                    || seg.kind == SegmentKind::Rail
                    || enemies.contains(seg.a)
                    || enemies.contains(seg.b)
                {
                    continue;
                }
                for kind in TileKind::ALL {
                    if kinds[kind.index()] {
                        out.push(ids.place_tile(i as u16, kind));
                    }
                }
            }
        }
        for &s in &self.tiled {
            if self.tiles[s as usize].is_some_and(|t| t.owner == side) {
                out.push(ids.remove_tile(s));
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
            let mut ids = Vec::new();
            self.generate(&mut ids);
            ids
        })
    }

    /// Plays a legal `action` (see [`Position::play`]).
    pub(crate) fn play_unchecked(&mut self, action: Action) {
        // One piece: the move and its consequences in the order the rules
        // apply them (each marked below with its ruling), on the position
        // being changed; it is the hot path of every search and playout.

        // Dropped before the move, never recomputed in the middle of it: the
        // start-of-turn check at its end may keep the new position's list,
        // written into the old list's room rather than a new allocation.
        let spare = self.legal_ids.take();
        let side = self.to_move;
        if let Action::Place(kind) = action {
            let Some(n) = self.next_start() else { return };
            let p = self.board.start_point(side, n);
            self.put(p, Some(Unit { side, kind }));
            if n == 24 {
                match side {
                    Side::South => self.to_move = Side::North,
                    Side::North => {
                        self.to_move = Side::South;
                        self.phase = Phase::Play;
                        self.history = vec![self.key()];
                        self.check_start_of_turn(Side::North, spare);
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
                self.move_unit(from, to);
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
                    self.put(mid, None);
                }
                self.move_unit(from, to);
                moved = Some(to);
                removed = true;
            }
            Action::Fire { from, dir } => {
                let mut hits = Vec::new();
                self.shot(from, dir.index(), side, &mut hits);
                for p in hits {
                    self.put(p, None);
                }
                removed = true;
            }
            Action::PlaceTile { segment, kind } => {
                self.hand[side.index()][kind.index()] -= 1;
                self.set_tile(segment, Some(Tile { kind, owner: side }));
            }
            Action::RemoveTile { segment } => {
                if let Some(t) = self.tiles[segment as usize] {
                    self.hand[side.index()][t.kind.index()] += 1;
                    self.set_tile(segment, None);
                }
            }
        }

        // W10: a tile whose both ends hold the non-owner's units changes owner.
        for &s in &self.tiled {
            let seg = self.board.segments()[s as usize];
            let Some(t) = &mut self.tiles[s as usize] else {
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
                if let Some(q) = self.step(p, dir)
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
                self.put(p, None);
                removed = true;
            }
        }
        self.to_move = enemy;
        if removed {
            self.history.clear();
        }
        self.history.push(self.key());
        self.check_start_of_turn(side, spare);
    }

    /// The checks at the start of a turn, after any cannon removal: the
    /// removal's destruction win, encirclement, then the draws (W11). The
    /// encirclement check needs the side's captures and moves, most of its
    /// legal actions, and the host asks for those right after every move:
    /// so the whole list is made here once, answers encirclement (a unit
    /// action in it or not), and is kept if the game goes on. The list is
    /// written into `ids`, emptied first: the last position's list, whose
    /// room is reused.
    pub(crate) fn check_start_of_turn(&mut self, previous: Side, mut ids: Vec<ActionId>) {
        debug_assert!(self.occupied_in_step(), "occupied points out of step");
        let side = self.to_move;
        if self.unit_count(previous) <= 2 {
            return self.end(Some(side), Reason::Destroyed);
        }
        // Most play turns list a few dozen moves and the tile places, up to
        // two a segment: room for those at once, not by doubling.
        ids.clear();
        ids.reserve(2 * self.board.segments().len() + 128);
        if !self.generate(&mut ids) {
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
            self.legal_ids = LegalIds::computed(ids);
        }
    }

    fn end(&mut self, winner: Option<Side>, reason: Reason) {
        self.phase = Phase::Over(Outcome { winner, reason });
    }
}

/// A cannon's shot along one line (W7): it flies over empty points, removes
/// each undefended enemy it reaches, and stops at a unit of its own side, a
/// defended enemy, a gap or the edge of the board. Yields the removed points
/// in order; once stopped it stays stopped.
struct ShotTargets<'a> {
    pos: &'a Position,
    /// The last point the shot reached.
    cur: u8,
    dir: usize,
    side: Side,
}

impl Iterator for ShotTargets<'_> {
    type Item = u8;

    #[inline]
    fn next(&mut self) -> Option<u8> {
        loop {
            let next = self.pos.step(self.cur, self.dir)?;
            match self.pos.units[next as usize] {
                None => self.cur = next,
                Some(u) if u.side == self.side => return None,
                Some(_) => {
                    self.pos.undefended_landing(next, self.dir)?;
                    self.cur = next;
                    return Some(next);
                }
            }
        }
    }
}
