//! Property tests (proptest): over random positions and orders on all three
//! boards, no piece is lost or duplicated, no two pieces share a field after a
//! turn, and the result is the same under every order of the order list.

use std::collections::BTreeMap;

use lanza::Lanza;
use lanza::adjudicate::{Fate, PieceOrder, adjudicate};
use lanza::board::{BoardKind, Dir};
use lanza::notation::{parse_position, position_to_string};
use lanza::orders::Orders;
use lanza::piece::PieceId;
use proptest::prelude::*;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabletop_sdk::{Game, Move, Setup, Status};

/// A random set of pieces on distinct fields with legal orders (ruling L5:
/// different cards within a seat). Pieces are crowded onto few fields often,
/// so conflicts are common.
fn random_orders(players: u32, seed: u64) -> (BoardKind, Vec<PieceOrder>) {
    let kind = BoardKind::for_players(players).unwrap();
    let board = kind.board();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut fields: Vec<_> = board.fields().collect();
    fields.shuffle(&mut rng);
    // Crowd the pieces into a small region around a random field half the time.
    if rng.random_bool(0.5) {
        let centre = board.coords(fields[0]);
        fields.sort_by_key(|&f| {
            let (q, r) = board.coords(f);
            let (dq, dr) = (q - centre.0, r - centre.1);
            (dq.abs() + dr.abs() + (dq + dr).abs(), f)
        });
    }
    let mut pieces: Vec<PieceId> = (0..3 * players as usize)
        .filter_map(PieceId::from_index)
        .collect();
    pieces.shuffle(&mut rng);
    let count = rng.random_range(1..=pieces.len());
    let orders: Vec<Orders> = (0..players)
        .map(|_| {
            let ids = Orders::all_ids();
            Orders::from_id(ids[rng.random_range(0..ids.len())]).unwrap()
        })
        .collect();
    let list = pieces[..count]
        .iter()
        .zip(&fields)
        .map(|(&piece, &origin)| PieceOrder {
            piece,
            origin,
            card: orders[piece.player() as usize].card(piece.rank()),
        })
        .collect();
    (kind, list)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn no_piece_is_lost_or_duplicated_and_no_field_is_shared(players in 2u32..=4, seed in any::<u64>()) {
        let (kind, orders) = random_orders(players, seed);
        let board = kind.board();
        let result = adjudicate(board, &orders).unwrap();
        let mut given: Vec<PieceId> = orders.iter().map(|o| o.piece).collect();
        given.sort();
        let got: Vec<PieceId> = result.resolutions().iter().map(|r| r.piece).collect();
        prop_assert_eq!(&got, &given, "every piece is decided exactly once");
        let mut ends: Vec<_> = result.resolutions().iter().filter_map(|r| r.end()).collect();
        let on_board = ends.len();
        ends.sort();
        ends.dedup();
        prop_assert_eq!(ends.len(), on_board, "two pieces share a field: {:?}", result);
        for r in result.resolutions() {
            if let Fate::Captured { by, .. } = r.fate {
                prop_assert!(by != r.piece);
                prop_assert!(given.contains(&by), "the captor had an order");
            }
            prop_assert_eq!(r.target, board.target(r.origin, r.card));
        }
        let captured = result.captures().count() as u32;
        let chips: u32 = result.chips().iter().sum();
        prop_assert!(chips <= captured);
    }

    #[test]
    fn the_result_does_not_depend_on_the_order_of_the_list(players in 2u32..=4, seed in any::<u64>()) {
        let (kind, mut orders) = random_orders(players, seed);
        let board = kind.board();
        let reference = adjudicate(board, &orders).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
        for _ in 0..12 {
            orders.shuffle(&mut rng);
            prop_assert_eq!(&adjudicate(board, &orders).unwrap(), &reference);
        }
        orders.reverse();
        prop_assert_eq!(&adjudicate(board, &orders).unwrap(), &reference);
    }
}

/// Every permutation of `0..n`.
fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for rest in permutations(n - 1) {
        for i in 0..=rest.len() {
            let mut p = rest.clone();
            p.insert(i, n - 1);
            out.push(p);
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Random matches through `Game::apply`: every joint action is applied in
    /// every order of the players' moves with identical results, and after
    /// every transition the position re-validates (all pieces on the board or
    /// queued for re-entry, no shared fields).
    #[test]
    fn whole_matches_are_independent_of_the_move_order(players in 2u32..=4, seed in any::<u64>()) {
        let setup = Setup::validate(&Lanza.manifest(), players, &BTreeMap::new()).unwrap();
        let mut state = Lanza.new_state(&setup).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut legal = Vec::new();
        let perms = permutations(players as usize);
        for _ in 0..60 {
            match Lanza.status(&state) {
                Status::Terminal => break,
                Status::Chance => {
                    let outcome = match Lanza.chance(&state) {
                        tabletop_sdk::Chance::Sampled => rng.random(),
                        tabletop_sdk::Chance::Explicit(o) => o[rng.random_range(0..o.len())].0,
                    };
                    Lanza.apply_chance(&mut state, outcome).unwrap();
                }
                Status::ToMove(movers) => {
                    let moves: Vec<Move> = movers
                        .iter()
                        .map(|p| {
                            Lanza.legal_actions(&state, p, &mut legal);
                            Move { player: p, action: legal[rng.random_range(0..legal.len())] }
                        })
                        .collect();
                    let mut reference = state.clone();
                    Lanza.apply(&mut reference, &moves).unwrap();
                    if moves.len() > 1 {
                        for perm in &perms {
                            let shuffled: Vec<Move> = perm.iter().map(|&i| moves[i]).collect();
                            let mut other = state.clone();
                            Lanza.apply(&mut other, &shuffled).unwrap();
                            prop_assert_eq!(&other, &reference);
                        }
                    }
                    state = reference;
                }
            }
            let text = position_to_string(&state);
            let again = parse_position(&text, players, state.max_turns());
            prop_assert!(again.is_ok(), "{} does not re-validate: {:?}", text, again.err());
            let on_board = state.pieces().filter(|&p| state.field_of(p).is_some()).count();
            let queued = match state.phase() {
                lanza::position::Phase::Reentry(q) | lanza::position::Phase::Place(q) => q.len(),
                _ => 0,
            };
            if state.phase() != &lanza::position::Phase::Over {
                prop_assert_eq!(on_board + queued, 3 * players as usize, "{}", text);
            }
        }
    }
}

#[test]
fn cards_that_never_repeat_still_reach_every_neighbour() {
    // Ruling L5/L6: every piece can always order; every card moves somewhere.
    for kind in [BoardKind::Hex19, BoardKind::Hex27, BoardKind::Hex37] {
        let board = kind.board();
        for field in board.fields() {
            let mut targets: Vec<_> = Dir::ALL.iter().map(|&d| board.target(field, d)).collect();
            targets.sort();
            targets.dedup();
            let expected = if board.is_edge(field) {
                6 - Dir::ALL
                    .iter()
                    .filter(|&&d| board.bounces(field, d))
                    .count()
            } else {
                6
            };
            assert_eq!(targets.len(), expected);
        }
    }
}
