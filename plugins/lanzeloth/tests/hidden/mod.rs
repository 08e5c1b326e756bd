//! Ruling Z11: face-down tiles are hidden from everyone, their owner included.

use lanzeloth::{EselMode, FaceDownTile, Lanzeloth, Position, RawPosition};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use tabletop_sdk::{Game, Move, Status, Transition, Viewer};

use crate::support::{apply, random_transition, setup, viewers};

/// The view of `state` for `viewer`, as the JSON a client reads.
fn view(state: &Position, viewer: Viewer) -> Value {
    serde_json::to_value(Lanzeloth.view(state, viewer)).unwrap()
}

/// A dealt game with the first player drawn, from `seed`.
fn dealt(players: u32, esel: &str, seed: u64) -> Position {
    let mut state = Lanzeloth
        .new_state(&setup(players, &[("esel", esel)]))
        .unwrap();
    Lanzeloth.apply_chance(&mut state, seed).unwrap();
    Lanzeloth
        .apply_chance(&mut state, seed % u64::from(players))
        .unwrap();
    state
}

/// Everything `viewer` can observe directly.
fn observe(state: &Position, viewer: Viewer) -> (Value, String, Vec<u64>, Option<String>) {
    let mut legal = Vec::new();
    let mut refusal = None;
    if let Viewer::Seat(p) = viewer {
        Lanzeloth.legal_actions(state, p, &mut legal);
        let mut copy = state.clone();
        refusal = Lanzeloth
            .apply(
                &mut copy,
                &[Move {
                    player: p,
                    action: 999,
                }],
            )
            .err()
            .map(|e| e.message);
    }
    (
        view(state, viewer),
        Lanzeloth.render_text(state, viewer),
        legal,
        refusal,
    )
}

/// The tiles revealed by an event, in order.
fn revealed(event: &Value) -> Vec<u64> {
    event["steps"]
        .as_array()
        .map(|steps| {
            steps
                .iter()
                .filter(|s| s["step"] == "reveal")
                .filter_map(|s| s["tile"].as_u64())
                .collect()
        })
        .unwrap_or_default()
}

/// How two deals that differ only in face-down order are made.
#[derive(Debug, Clone, Copy)]
enum Swap {
    /// The top of P1's stack with the deepest tile of another number in it.
    WithinAStack,
    /// The tops of two players' stacks.
    BetweenStacks,
    /// The top of P1's stack with a removed tile.
    WithRemoved,
}

/// Swaps two never-seen tiles of different numbers; returns them (a, b), a
/// being the one that ends up on top of P1's stack in the original.
fn swap(raw: &mut RawPosition, how: Swap) -> Option<(u8, u8)> {
    let top = raw.face_down[0].len().checked_sub(1)?;
    let a = raw.face_down[0][top].number;
    match how {
        Swap::WithinAStack => {
            let i = raw.face_down[0].iter().position(|t| t.number != a)?;
            let b = raw.face_down[0][i].number;
            raw.face_down[0].swap(i, top);
            Some((a, b))
        }
        Swap::BetweenStacks => {
            let other = raw.face_down.len() - 1;
            let j = raw.face_down[other].len().checked_sub(1)?;
            let b = raw.face_down[other][j].number;
            if a == b {
                return None;
            }
            raw.face_down[other][j] = FaceDownTile::hidden(a);
            raw.face_down[0][top] = FaceDownTile::hidden(b);
            Some((a, b))
        }
        Swap::WithRemoved => {
            let i = raw.removed.iter().position(|&t| t != a)?;
            let b = raw.removed[i];
            raw.removed[i] = a;
            raw.face_down[0][top] = FaceDownTile::hidden(b);
            Some((a, b))
        }
    }
}

/// Plays the same random actions in two deals that differ only in face-down
/// order; every viewer must see identical views and events until a differing
/// tile is revealed. Returns whether that moment came.
fn differential(players: u32, esel: &str, seed: u64, how: Swap) -> bool {
    let mut a = dealt(players, esel, seed);
    let mut raw = a.to_raw();
    let Some((x, y)) = swap(&mut raw, how) else {
        return false;
    };
    let mut b = Position::from_raw(*a.rules(), raw).expect("a swapped deal is valid");
    assert_ne!(a.to_text(), b.to_text());
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for _ in 0..5000 {
        for v in viewers(players) {
            assert_eq!(
                observe(&a, v),
                observe(&b, v),
                "{v:?} tells the deals apart ({how:?})"
            );
        }
        if Lanzeloth.status(&a) == Status::Terminal {
            return false;
        }
        let transition = random_transition(&a, &mut rng);
        assert!(matches!(transition, Transition::Moves(_)));
        let (before_a, before_b) = (a.clone(), b.clone());
        apply(&mut a, &transition);
        apply(&mut b, &transition);
        let events: Vec<(Value, Value)> = viewers(players)
            .into_iter()
            .map(|v| {
                (
                    Lanzeloth.event(&before_a, &transition, &a, v),
                    Lanzeloth.event(&before_b, &transition, &b, v),
                )
            })
            .collect();
        let same_views = viewers(players)
            .into_iter()
            .all(|v| view(&a, v) == view(&b, v));
        if same_views {
            for (ea, eb) in &events {
                assert_eq!(ea, eb, "an event tells the deals apart ({how:?})");
            }
            continue;
        }
        // The first difference anyone sees is the reveal of a swapped tile.
        let (ea, eb) = &events[0];
        let (ra, rb) = (revealed(ea), revealed(eb));
        assert_eq!(ra.len(), 1, "{ea}");
        assert_eq!(rb.len(), 1, "{eb}");
        assert_ne!(ra, rb);
        assert!(
            [u64::from(x), u64::from(y)].contains(&ra[0])
                && [u64::from(x), u64::from(y)].contains(&rb[0]),
            "the differing reveal is one of the swapped tiles: {ra:?} {rb:?}"
        );
        return true;
    }
    false
}

#[test]
fn deals_differing_only_in_face_down_order_look_the_same_until_a_reveal() {
    let mut reached = 0;
    let mut runs = 0;
    for players in 2..=6 {
        for esel in ["penalty", "forced"] {
            for (i, how) in [Swap::WithinAStack, Swap::BetweenStacks, Swap::WithRemoved]
                .into_iter()
                .enumerate()
            {
                if matches!(how, Swap::WithRemoved) && 120 % players == 0 {
                    continue; // nothing is removed with the default set
                }
                for seed in 0..2u64 {
                    runs += 1;
                    if differential(players, esel, seed * 7 + i as u64 + u64::from(players), how) {
                        reached += 1;
                    }
                }
            }
        }
    }
    // A removed tile is never revealed, but a swapped top of P1's stack is,
    // as soon as P1 flips it.
    assert!(
        reached >= runs / 2,
        "only {reached} of {runs} runs reached a differing reveal"
    );
}

#[test]
fn removed_tiles_never_show() {
    // With 5 players and tiles 1–7 twice, 4 tiles are removed; swapping one
    // for a face-down tile changes nothing anyone sees until that one is flipped.
    let options = [("max_number", "7"), ("copies", "2"), ("first_player", "1")];
    let mut a = Lanzeloth.new_state(&setup(5, &options)).unwrap();
    Lanzeloth.apply_chance(&mut a, 11).unwrap();
    assert_eq!(a.removed().len(), 4);
    let mut raw = a.to_raw();
    let (x, y) = swap(&mut raw, Swap::WithRemoved).expect("a removed tile differs from P1's top");
    let b = Position::from_raw(*a.rules(), raw).unwrap();
    for v in viewers(5) {
        assert_eq!(observe(&a, v), observe(&b, v));
    }
    let flip = [Move {
        player: 0,
        action: 0,
    }];
    let (mut a2, mut b2) = (a.clone(), b.clone());
    Lanzeloth.apply(&mut a2, &flip).unwrap();
    Lanzeloth.apply(&mut b2, &flip).unwrap();
    let ea = Lanzeloth.event(&a, &Transition::Moves(flip.to_vec()), &a2, Viewer::Seat(0));
    let eb = Lanzeloth.event(&b, &Transition::Moves(flip.to_vec()), &b2, Viewer::Seat(0));
    assert_eq!(revealed(&ea), [u64::from(x)]);
    assert_eq!(revealed(&eb), [u64::from(y)]);
}

#[test]
fn every_viewer_sees_the_same_even_the_owner() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut state = dealt(4, "penalty", 5);
    for _ in 0..300 {
        if Lanzeloth.status(&state) == Status::Terminal {
            break;
        }
        let spectator = view(&state, Viewer::Spectator);
        for p in 0..4 {
            let mut view = view(&state, Viewer::Seat(p));
            assert_eq!(view["you"], p);
            view["you"] = Value::Null;
            assert_eq!(view, spectator);
            // Sizes only, never numbers.
            assert!(view["face_down"][p as usize].is_u64());
        }
        let t = random_transition(&state, &mut rng);
        apply(&mut state, &t);
    }
}

#[test]
fn the_deal_event_reveals_nothing() {
    let event = |seed| {
        let before = Lanzeloth.new_state(&setup(3, &[])).unwrap();
        let mut after = before.clone();
        Lanzeloth.apply_chance(&mut after, seed).unwrap();
        Lanzeloth.event(&before, &Transition::Chance(seed), &after, Viewer::Seat(0))
    };
    assert_eq!(event(1), event(2));
    assert_eq!(event(1)["tiles_each"], 40);
}

#[test]
fn resampling_keeps_public_tiles_and_reshuffles_the_rest() {
    // Play until someone has turned a pile over (known face-down tiles).
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut state = dealt(2, "forced", 3);
    let rules = lanzeloth::Rules {
        max_number: 5,
        ..*state.rules()
    };
    let _ = rules;
    let mut saw_known = false;
    let mut saw_change = false;
    for _ in 0..4000 {
        if Lanzeloth.status(&state) == Status::Terminal {
            break;
        }
        for r in 0..3u64 {
            let other = state.resample(r);
            for v in viewers(2) {
                assert_eq!(observe(&state, v), observe(&other, v));
            }
            for p in 0..2 {
                for (mine, theirs) in state.face_down(p).iter().zip(other.face_down(p)) {
                    assert_eq!(mine.known, theirs.known);
                    if mine.known {
                        saw_known = true;
                        assert_eq!(mine, theirs, "a public tile stays in place");
                    }
                }
            }
            saw_change |= other.to_text() != state.to_text();
            let multiset = |s: &Position| {
                let mut all: Vec<u8> = (0..2)
                    .flat_map(|p| s.face_down(p).iter().map(|t| t.number).collect::<Vec<_>>())
                    .chain(s.removed().iter().copied())
                    .collect();
                all.sort_unstable();
                all
            };
            assert_eq!(multiset(&state), multiset(&other));
        }
        let t = random_transition(&state, &mut rng);
        apply(&mut state, &t);
    }
    assert!(saw_change, "resampling never changed a hidden tile");
    assert!(saw_known, "no pile was turned over in 4000 steps");
    let _ = EselMode::Forced;
}
