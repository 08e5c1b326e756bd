//! A second, deliberately simple move generator, written only to check the
//! plugin's counts. It shares nothing with the plugin's move generation: it
//! reads a position through the plugin's notation parser (the only code it
//! shares), copies it into plain maps keyed by coordinates, and brute-forces
//! every rule from the text of the rulings.

use std::collections::{BTreeMap, BTreeSet};

use war::position::{Phase, Position};
use war::{Side, TileKind, UnitKind};

type Xy = (i32, i32);

#[derive(Clone)]
pub struct Simple {
    labels: BTreeMap<Xy, String>,
    /// Printed segments by unordered end pair (stored with the smaller end first).
    printed: BTreeMap<(Xy, Xy), &'static str>,
    units: BTreeMap<Xy, (Side, UnitKind)>,
    /// Tiles by segment: (kind, owner).
    tiles: BTreeMap<(Xy, Xy), (TileKind, Side)>,
    hand: BTreeMap<(Side, TileKind), u32>,
    seized: BTreeSet<Xy>,
    fortress: BTreeMap<Side, Vec<Xy>>,
    to_move: Side,
    over: bool,
}

fn key(a: Xy, b: Xy) -> (Xy, Xy) {
    if a <= b { (a, b) } else { (b, a) }
}

const STEPS: [(i32, i32, &str); 8] = [
    (0, 1, "N"),
    (1, 1, "NE"),
    (1, 0, "E"),
    (1, -1, "SE"),
    (0, -1, "S"),
    (-1, -1, "SW"),
    (-1, 0, "W"),
    (-1, 1, "NW"),
];

impl Simple {
    pub fn from_position(p: &Position) -> Simple {
        let b = p.board();
        let xy = |i: u8| (b.points()[i as usize].x, b.points()[i as usize].y);
        let mut s = Simple {
            labels: b
                .points()
                .iter()
                .map(|q| ((q.x, q.y), q.id.clone()))
                .collect(),
            printed: BTreeMap::new(),
            units: BTreeMap::new(),
            tiles: BTreeMap::new(),
            hand: BTreeMap::new(),
            seized: p.seized().iter().map(|&i| xy(i)).collect(),
            fortress: BTreeMap::new(),
            to_move: p.to_move(),
            over: matches!(p.phase(), Phase::Over(_)),
        };
        assert!(
            !matches!(p.phase(), Phase::Setup),
            "the simple generator plays no setup"
        );
        for (i, seg) in b.segments().iter().enumerate() {
            s.printed.insert(key(xy(seg.a), xy(seg.b)), seg.kind.name());
            if let Some(t) = p.tile(i as u16) {
                s.tiles.insert(key(xy(seg.a), xy(seg.b)), (t.kind, t.owner));
            }
        }
        for i in 0..b.len() as u8 {
            if let Some(u) = p.unit(i) {
                s.units.insert(xy(i), (u.side, u.kind));
            }
        }
        for side in Side::BOTH {
            for kind in [TileKind::Entrenchment, TileKind::Railway] {
                s.hand
                    .insert((side, kind), u32::from(p.in_hand(side, kind)));
            }
            s.fortress
                .insert(side, b.fortress(side).iter().map(|&i| xy(i)).collect());
        }
        s
    }

    fn label(&self, p: Xy) -> &str {
        &self.labels[&p]
    }

    /// The segment's kind now: "black", "red", "rail", or None for no segment
    /// or an entrenchment.
    fn kind(&self, a: Xy, b: Xy) -> Option<&'static str> {
        let k = key(a, b);
        let printed = *self.printed.get(&k)?;
        match self.tiles.get(&k) {
            Some((TileKind::Entrenchment, _)) => None,
            Some((TileKind::Railway, _)) => Some("rail"),
            None => Some(printed),
        }
    }

    fn seg_text(&self, a: Xy, b: Xy) -> String {
        // Ordered by rank (y), then file (x).
        let (lo, hi) = if (a.1, a.0) <= (b.1, b.0) {
            (a, b)
        } else {
            (b, a)
        };
        format!("{}-{}", self.label(lo), self.label(hi))
    }

    fn captures(&self, side: Side) -> Vec<String> {
        let mut out = Vec::new();
        for (&a, &(s, kind)) in &self.units {
            if s != side {
                continue;
            }
            for (dx, dy, name) in STEPS {
                if kind == UnitKind::Cannon {
                    if !self.shot(a, (dx, dy), side).is_empty() {
                        out.push(format!("{}!{}", self.label(a), name));
                    }
                    continue;
                }
                let b = (a.0 + dx, a.1 + dy);
                let c = (b.0 + dx, b.1 + dy);
                let enemy = matches!(self.units.get(&b), Some((s2, _)) if *s2 != side);
                if enemy
                    && self.kind(a, b).is_some()
                    && self.kind(b, c).is_some()
                    && !self.units.contains_key(&c)
                {
                    out.push(format!("{}x{}", self.label(a), self.label(c)));
                }
            }
        }
        out
    }

    fn shot(&self, from: Xy, (dx, dy): Xy, side: Side) -> Vec<Xy> {
        let mut hits = Vec::new();
        let mut cur = from;
        loop {
            let next = (cur.0 + dx, cur.1 + dy);
            if self.kind(cur, next).is_none() {
                return hits;
            }
            match self.units.get(&next) {
                None => {}
                Some((s, _)) if *s == side => return hits,
                Some(_) => {
                    let beyond = (next.0 + dx, next.1 + dy);
                    if self.kind(next, beyond).is_none() || self.units.contains_key(&beyond) {
                        return hits;
                    }
                    hits.push(next);
                }
            }
            cur = next;
        }
    }

    fn unit_moves(&self, side: Side) -> Vec<String> {
        let mut out = BTreeSet::new();
        for (&a, &(s, kind)) in &self.units {
            if s != side || (kind == UnitKind::Cannon && self.seized.contains(&a)) {
                continue;
            }
            let mut ends = BTreeSet::new();
            let walk = |p: Xy, q: Xy| matches!(self.kind(p, q), Some("black" | "rail"));
            let free = |q: Xy| self.labels.contains_key(&q) && !self.units.contains_key(&q);
            for (dx, dy, _) in STEPS {
                let b = (a.0 + dx, a.1 + dy);
                if !(free(b) && walk(a, b)) {
                    continue;
                }
                ends.insert(b);
                if kind == UnitKind::Cavalry {
                    for (ex, ey, _) in STEPS {
                        let c = (b.0 + ex, b.1 + ey);
                        if c != a && free(c) && walk(b, c) {
                            ends.insert(c);
                        }
                    }
                }
            }
            // Rail: every path of 1 to 3 rail segments, no point twice.
            let mut paths: Vec<Vec<Xy>> = vec![vec![a]];
            for _ in 0..3 {
                let mut longer = Vec::new();
                for path in &paths {
                    let last = *path.last().unwrap();
                    for (dx, dy, _) in STEPS {
                        let n = (last.0 + dx, last.1 + dy);
                        if free(n) && !path.contains(&n) && self.kind(last, n) == Some("rail") {
                            let mut p = path.clone();
                            p.push(n);
                            ends.insert(n);
                            longer.push(p);
                        }
                    }
                }
                paths = longer;
            }
            for e in ends {
                out.insert(format!("{}-{}", self.label(a), self.label(e)));
            }
        }
        out.into_iter().collect()
    }

    fn tile_moves(&self, side: Side) -> Vec<String> {
        let mut out = Vec::new();
        for (&(a, b), &printed) in &self.printed {
            match self.tiles.get(&(a, b)) {
                Some((_, owner)) if *owner == side => out.push(format!("-{}", self.seg_text(a, b))),
                Some(_) => {}
                None => {
                    let enemy_on = |p: Xy| matches!(self.units.get(&p), Some((s, _)) if *s != side);
                    if printed == "rail" || enemy_on(a) || enemy_on(b) {
                        continue;
                    }
                    if self.hand[&(side, TileKind::Entrenchment)] > 0 {
                        out.push(format!("#{}", self.seg_text(a, b)));
                    }
                    if self.hand[&(side, TileKind::Railway)] > 0 {
                        out.push(format!("={}", self.seg_text(a, b)));
                    }
                }
            }
        }
        out
    }

    /// Every legal action in notation, sorted.
    pub fn legal(&self) -> Vec<String> {
        if self.over {
            return Vec::new();
        }
        let mut out = self.captures(self.to_move);
        if out.is_empty() {
            out = self.unit_moves(self.to_move);
            out.extend(self.tile_moves(self.to_move));
        }
        out.sort();
        out
    }

    fn point(&self, label: &str) -> Xy {
        *self.labels.iter().find(|(_, l)| *l == label).unwrap().0
    }

    fn count(&self, side: Side) -> usize {
        self.units.values().filter(|(s, _)| *s == side).count()
    }

    /// Plays a legal action given in notation.
    pub fn play(&self, action: &str) -> Simple {
        let mut s = self.clone();
        let side = s.to_move;
        let enemy = side.opponent();
        let mut moved = None;
        if let Some(seg) = action.strip_prefix('#').or(action.strip_prefix('=')) {
            let (a, b) = seg.split_once('-').unwrap();
            let kind = if action.starts_with('#') {
                TileKind::Entrenchment
            } else {
                TileKind::Railway
            };
            *s.hand.get_mut(&(side, kind)).unwrap() -= 1;
            s.tiles.insert(key(s.point(a), s.point(b)), (kind, side));
        } else if let Some(seg) = action.strip_prefix('-') {
            let (a, b) = seg.split_once('-').unwrap();
            let (kind, _) = s.tiles.remove(&key(s.point(a), s.point(b))).unwrap();
            *s.hand.get_mut(&(side, kind)).unwrap() += 1;
        } else if let Some((from, dir)) = action.split_once('!') {
            let (dx, dy, _) = STEPS.iter().find(|(_, _, n)| *n == dir).unwrap();
            for hit in s.shot(s.point(from), (*dx, *dy), side) {
                s.units.remove(&hit);
            }
        } else if let Some((from, to)) = action.split_once('x') {
            let (a, c) = (s.point(from), s.point(to));
            s.units.remove(&((a.0 + c.0) / 2, (a.1 + c.1) / 2));
            let u = s.units.remove(&a).unwrap();
            s.units.insert(c, u);
            moved = Some(c);
        } else {
            let (from, to) = action.split_once('-').unwrap();
            let u = s.units.remove(&s.point(from)).unwrap();
            s.units.insert(s.point(to), u);
            moved = Some(s.point(to));
        }
        // Tiles change hands when the non-owner holds both ends.
        let snapshot = s.units.clone();
        for ((a, b), (_, owner)) in s.tiles.iter_mut() {
            let other = owner.opponent();
            let held = |p: &Xy| matches!(snapshot.get(p), Some((x, _)) if *x == other);
            if held(a) && held(b) {
                *owner = other;
            }
        }
        let fortress_taken = s.fortress[&enemy]
            .iter()
            .all(|p| matches!(s.units.get(p), Some((x, _)) if *x == side));
        if fortress_taken || s.count(enemy) <= 2 {
            s.over = true;
            return s;
        }
        let mut seized = BTreeSet::new();
        if let Some(m) = moved {
            for (dx, dy, _) in STEPS {
                let q = (m.0 + dx, m.1 + dy);
                if s.kind(m, q).is_some() && s.units.get(&q) == Some(&(enemy, UnitKind::Cannon)) {
                    seized.insert(q);
                }
            }
        }
        for old in std::mem::replace(&mut s.seized, seized) {
            s.units.remove(&old);
        }
        s.to_move = enemy;
        // Destroyed by the removal, or encircled.
        s.over =
            s.count(side) <= 2 || (s.captures(enemy).is_empty() && s.unit_moves(enemy).is_empty());
        s
    }
}
