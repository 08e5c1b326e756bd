//! Helpers shared by the integration tests.

use std::collections::BTreeMap;

use lanzeloth::{EselMode, FaceDownTile, Lanzeloth, Number, Position, RawPosition, Rules, Scoring};
use tabletop_sdk::{Game, Move, Player, Setup, Status, Transition, Viewer};

/// Raw options from pairs.
pub fn options(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A validated setup.
pub fn setup(players: u32, pairs: &[(&str, &str)]) -> Setup {
    Setup::validate(&Lanzeloth.manifest(), players, &options(pairs)).expect("valid setup")
}

/// Small rules for hand-built positions: tiles 1..=10, two of each.
pub fn small_rules(players: u32, esel: EselMode) -> Rules {
    Rules {
        players,
        max_number: 10,
        copies: 2,
        esel,
        scoring: Scoring::Tiles,
        max_turns: 2000,
        first_player: None,
    }
}

/// A position from `text`, completed to the full tile set: tiles the text does
/// not mention go to the removed pile (as many as the deal removes) and the rest
/// under the face-down stack of `sink`, bottom first. The completion is
/// independent of the scenario: it only makes the position a legal one.
pub fn scenario(rules: Rules, text: &str, sink: Player) -> Position {
    Position::from_raw(rules, complete(rules, text, sink)).expect("scenario is a valid position")
}

/// The raw position of [`scenario`], before validation.
pub fn complete(rules: Rules, text: &str, sink: Player) -> RawPosition {
    let mut raw = RawPosition::from_text(rules.players as usize, text).expect("scenario parses");
    let mut count = vec![0usize; usize::from(rules.max_number) + 1];
    let mention = |count: &mut Vec<usize>, t: Number| count[usize::from(t)] += 1;
    for t in raw.face_down.iter().flatten() {
        mention(&mut count, t.number);
    }
    for &t in raw.open.iter().flatten().chain(&raw.removed) {
        mention(&mut count, t);
    }
    for &top in &raw.middle {
        for t in 1..=top {
            mention(&mut count, t);
        }
    }
    if let lanzeloth::Phase::Play {
        stage: lanzeloth::Stage::Hand { tile, .. },
        ..
    } = raw.phase
    {
        mention(&mut count, tile);
    }
    let mut missing = Vec::new();
    for t in 1..=rules.max_number {
        let have = count[usize::from(t)];
        assert!(
            have <= usize::from(rules.copies),
            "scenario has too many {t}s"
        );
        missing.extend(std::iter::repeat_n(t, usize::from(rules.copies) - have));
    }
    let removed_needed = rules.removed_count() - raw.removed.len().min(rules.removed_count());
    // Remove the highest tiles: a scenario rarely cares about them.
    let split = missing.len() - removed_needed;
    raw.removed.extend(missing.drain(split..));
    let stack = &mut raw.face_down[sink as usize];
    let mut completed: Vec<FaceDownTile> = missing.into_iter().map(FaceDownTile::hidden).collect();
    completed.append(stack);
    *stack = completed;
    raw
}

/// Plays `text` for the player on turn and returns the steps.
pub fn play(position: &mut Position, text: &str) -> Vec<lanzeloth::Step> {
    let turn = position.turn().expect("someone is on turn");
    let id = Lanzeloth
        .parse_action(position, turn, text)
        .unwrap_or_else(|e| panic!("`{text}` is not legal: {e}\n{}", position.to_text()));
    position
        .play_logged(turn, id)
        .expect("legal action applies")
}

/// The legal actions of the player on turn, as text.
pub fn legal_texts(position: &Position) -> Vec<String> {
    let Some(turn) = position.turn() else {
        return Vec::new();
    };
    let mut ids = Vec::new();
    position.legal_actions(turn, &mut ids);
    ids.iter()
        .map(|&id| Lanzeloth.action_to_string(position, turn, id).unwrap())
        .collect()
}

/// Every viewer of a `players`-seat game.
pub fn viewers(players: u32) -> Vec<Viewer> {
    (0..players)
        .map(Viewer::Seat)
        .chain([Viewer::Spectator])
        .collect()
}

/// Applies a transition through the [`Game`] trait.
pub fn apply(state: &mut Position, transition: &Transition) {
    match transition {
        Transition::Moves(moves) => Lanzeloth.apply(state, moves).expect("legal move"),
        Transition::Chance(outcome) => Lanzeloth.apply_chance(state, *outcome).expect("outcome"),
    }
}

/// A uniformly random transition from `state` (which must not be terminal).
pub fn random_transition(state: &Position, rng: &mut impl rand::Rng) -> Transition {
    match Lanzeloth.status(state) {
        Status::Chance => match Lanzeloth.chance(state) {
            tabletop_sdk::Chance::Sampled => Transition::Chance(rng.random()),
            tabletop_sdk::Chance::Explicit(outcomes) => {
                Transition::Chance(outcomes[rng.random_range(0..outcomes.len())].0)
            }
        },
        Status::ToMove(movers) => {
            let player = movers.iter().next().expect("a mover");
            let mut legal = Vec::new();
            Lanzeloth.legal_actions(state, player, &mut legal);
            let action = legal[rng.random_range(0..legal.len())];
            Transition::Moves(vec![Move { player, action }])
        }
        Status::Terminal => panic!("no transition from a terminal state"),
    }
}
