//! Helpers shared by the scenario tests: positions from text, moves by notation.

use std::collections::BTreeMap;

use tabletop_sdk::{DynGame, DynState, InProcess, Move, Status};
use war::War;

pub fn game() -> InProcess<War> {
    InProcess::new(War)
}

pub fn options(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Fillers that keep both armies above two units and far from the action:
/// South holds its own fortress, North its own.
pub const FILLERS: &str = "I@c1 I@d1 I@e1 i@c12 i@d12 i@e12";

/// A play position with `units` plus the fillers, `side` to move.
pub fn position(side: &str, units: &str) -> Box<dyn DynState> {
    position_with(side, &format!("{units} {FILLERS}"), "")
}

/// A play position with exactly `units` and extra directive lines.
pub fn position_with(side: &str, units: &str, extra: &str) -> Box<dyn DynState> {
    let text = format!("to-move {side}\nunits {units}\n{extra}\n");
    game()
        .new_state(2, &BTreeMap::new(), Some(&text))
        .unwrap_or_else(|e| panic!("position refused: {}\n{text}", e.message))
}

pub fn seat(state: &dyn DynState) -> u32 {
    match state.status().unwrap() {
        Status::ToMove(set) => set.iter().next().unwrap(),
        other => panic!("nobody to move: {other:?}"),
    }
}

/// Every legal action of the side to move, in notation, sorted.
pub fn legal(state: &dyn DynState) -> Vec<String> {
    let mut ids = Vec::new();
    if let Status::ToMove(set) = state.status().unwrap() {
        let p = set.iter().next().unwrap();
        state.legal_actions(p, &mut ids).unwrap();
        let mut out: Vec<String> = ids
            .iter()
            .map(|&a| state.action_to_string(p, a).unwrap())
            .collect();
        out.sort();
        return out;
    }
    Vec::new()
}

/// Plays `text` for the side to move, panicking if it is refused.
pub fn play(state: &mut dyn DynState, text: &str) {
    let p = seat(state);
    let action = state.parse_action(p, text).unwrap_or_else(|e| {
        panic!(
            "`{text}` refused: {}\n{}",
            e.message,
            state.render_text(tabletop_sdk::Viewer::Spectator).unwrap()
        )
    });
    state.apply(&[Move { player: p, action }]).unwrap();
}

/// Whether `text` is a legal action of the side to move.
pub fn is_legal(state: &dyn DynState, text: &str) -> bool {
    legal(state).iter().any(|a| a == text)
}

/// The unit letter on `point` from the JSON view, if any.
pub fn unit_at(state: &dyn DynState, point: &str) -> Option<String> {
    let view: serde_json::Value =
        serde_json::from_str(&state.view(tabletop_sdk::Viewer::Spectator).unwrap()).unwrap();
    view["units"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["point"] == point)
        .map(|u| {
            format!(
                "{} {}",
                u["side"].as_str().unwrap(),
                u["kind"].as_str().unwrap()
            )
        })
}

pub fn view(state: &dyn DynState) -> serde_json::Value {
    serde_json::from_str(&state.view(tabletop_sdk::Viewer::Spectator).unwrap()).unwrap()
}

/// `(winner, reason)` of a finished game from the view.
pub fn outcome(state: &dyn DynState) -> Option<(String, String)> {
    let v = view(state);
    (v["status"]["phase"] == "over").then(|| {
        (
            v["status"]["winner"].as_str().unwrap_or("draw").to_string(),
            v["status"]["reason"].as_str().unwrap().to_string(),
        )
    })
}
