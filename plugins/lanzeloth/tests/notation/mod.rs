//! The notation policy (ruling Z12): every notation the game prints reads
//! back as it is, in any case and with any blanks: the legal actions, an
//! event's `action` and each `put` step's `notation`, and the actions the
//! text rendering lists. Checked along random matches in both Esel modes.

use lanzeloth::{Action, Lanzeloth, Position, Step, action_from_text};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use tabletop_sdk::{Game, Player, Status, Transition, Viewer};

use crate::scenarios::{penalty, start};
use crate::support::{apply, random_transition, scenario, setup};

/// The texts the rendering offers after "to move …:", up to the next line
/// that does not continue the list.
fn rendered_actions(text: &str) -> Vec<String> {
    let mut lines = text.lines().skip_while(|l| !l.contains(" to move"));
    let Some(first) = lines.next() else {
        return Vec::new();
    };
    let mut list = first.split_once(": ").map_or("", |(_, l)| l).to_string();
    for more in lines.take_while(|l| l.starts_with(' ')) {
        list.push_str(more);
    }
    list.split(',').map(|t| t.trim().to_string()).collect()
}

/// `text` and its variants in case and blanks are `player`'s action `id`.
fn reads_back(state: &Position, player: Player, text: &str, id: u64) {
    let variants = [
        text.to_string(),
        text.to_uppercase(),
        format!("  {}\t", text.replace(' ', "   ")),
    ];
    for variant in variants {
        let parsed = Lanzeloth.parse_action(state, player, &variant);
        assert_eq!(parsed.ok(), Some(id), "`{variant}` in {}", state.to_text());
    }
}

#[test]
fn every_printed_notation_reads_back_verbatim() {
    let option_sets: [(u32, &[(&str, &str)]); 4] = [
        (2, &[("max_number", "6"), ("copies", "2")]),
        (3, &[("max_turns", "80")]),
        (4, &[("esel", "forced"), ("max_turns", "80")]),
        (5, &[("max_number", "8"), ("copies", "3")]),
    ];
    let (mut puts, mut own) = (0, 0);
    for (seed, (players, pairs)) in option_sets.iter().enumerate() {
        let mut rng = ChaCha8Rng::seed_from_u64(seed as u64 + 100);
        let mut state = Lanzeloth.new_state(&setup(*players, pairs)).unwrap();
        while Lanzeloth.status(&state) != Status::Terminal {
            let transition = random_transition(&state, &mut rng);
            if let Transition::Moves(moves) = &transition {
                let player = moves[0].player;
                let mut legal = Vec::new();
                Lanzeloth.legal_actions(&state, player, &mut legal);
                for &id in &legal {
                    let text = Lanzeloth.action_to_string(&state, player, id).unwrap();
                    reads_back(&state, player, &text, id);
                }
                let rendered = rendered_actions(&Lanzeloth.render_text(&state, Viewer::Spectator));
                let listed: Vec<String> = legal
                    .iter()
                    .map(|&id| Lanzeloth.action_to_string(&state, player, id).unwrap())
                    .collect();
                assert_eq!(rendered, listed, "{}", state.to_text());

                let before = state.clone();
                apply(&mut state, &transition);
                let event = Lanzeloth.event(&before, &transition, &state, Viewer::Spectator);
                let action = event["action"].as_str().expect("a move names its action");
                reads_back(&before, player, action, moves[0].action);
                let steps = before.clone().play_logged(player, moves[0].action).unwrap();
                let put_steps = steps.iter().filter(|s| matches!(s, Step::Put { .. }));
                let told = event["steps"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|s| s["step"] == "put");
                for (step, json) in put_steps.zip(told) {
                    let Step::Put { place, .. } = *step else {
                        unreachable!()
                    };
                    let notation = json["notation"].as_str().unwrap();
                    assert_eq!(
                        action_from_text(notation, player),
                        Some(Action::Place(place)),
                        "`{notation}`"
                    );
                    if notation == "place own" {
                        own += 1;
                    }
                    puts += 1;
                    if let Value::String(action) = &event["action"]
                        && action.starts_with("place")
                    {
                        assert_eq!(notation, action, "a chosen place is told as chosen");
                    }
                }
            } else {
                apply(&mut state, &transition);
            }
        }
    }
    assert!(puts > 0 && own > 0, "puts {puts}, onto the own pile {own}");
}

#[test]
fn the_own_pile_is_place_own_in_lists_and_events() {
    // P1 holds a 6 revealed from the face-down stack; it fits on P2's 5.
    let text = "phase=play turn=p1 stage=hand-d6 donkey=- reveals=1 winner=- | 8 / 9 | - / 5 \
                | middle - | removed -";
    let mut p = scenario(penalty(2), text, 1);
    let legal: Vec<String> = [3, 4]
        .iter()
        .map(|&id| Lanzeloth.action_to_string(&p, 0, id).unwrap())
        .collect();
    assert_eq!(legal, ["place own", "place p2"]);
    let rendered = Lanzeloth.render_text(&p, Viewer::Seat(0));
    assert!(
        rendered.contains(
            "seat 0 (P1) to move, holding the 6 from the face-down stack: place own, place p2"
        ),
        "{rendered}"
    );
    let before = p.clone();
    let id = Lanzeloth.parse_action(&p, 0, "Place Own").unwrap();
    let moves = vec![tabletop_sdk::Move {
        player: 0,
        action: id,
    }];
    Lanzeloth.apply(&mut p, &moves).unwrap();
    let event = Lanzeloth.event(&before, &Transition::Moves(moves), &p, Viewer::Seat(1));
    assert_eq!(event["action"], "place own");
    assert_eq!(event["steps"][0]["notation"], "place own");
    assert_eq!(
        event["steps"][0]["correct"], false,
        "the 6 fitted on P2 (Z7)"
    );
}

#[test]
fn the_rendering_names_seats_as_the_api_and_the_game_do() {
    let text = format!("{} | 8 / 9 | - / 5 | middle - | removed -", start(2));
    let p = scenario(penalty(2), &text, 0);
    let rendered = Lanzeloth.render_text(&p, Viewer::Spectator);
    assert!(
        rendered.contains("seat 1 (P2) to move: flip\n"),
        "{rendered}"
    );
    let over = "phase=over turn=- stage=- donkey=- reveals=9 winner=p2 | 8 / 9 | - / - \
                | middle - | removed -";
    let over = scenario(penalty(2), over, 0);
    let rendered = Lanzeloth.render_text(&over, Viewer::Spectator);
    assert!(
        rendered.contains("Game over: seat 1 (P2) wins."),
        "{rendered}"
    );
}
