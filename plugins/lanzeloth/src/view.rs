//! What a viewer sees (ruling Z11): JSON views, text, and events.
//!
//! Nobody sees a face-down tile, so every viewer sees the same; only the
//! `you` field differs. After the end everything is shown.

use std::fmt::Write as _;

use serde_json::{Value, json};
use tabletop_sdk::{Player, Viewer};

use crate::fit::Place;
use crate::notation::place_to_text;
use crate::position::{Phase, Position, Source, Stage};
use crate::turn::Step;

fn source_name(source: Source) -> &'static str {
    match source {
        Source::FaceDown => "face-down",
        Source::Open => "open",
    }
}

fn place_json(place: Place, holder: Player) -> Value {
    match place {
        Place::NewMiddle => json!({ "kind": "new-middle" }),
        Place::Middle(i) => json!({ "kind": "middle", "index": i }),
        Place::Pile(q) if q == holder => json!({ "kind": "own-pile", "seat": q }),
        Place::Pile(q) => json!({ "kind": "pile", "seat": q }),
    }
}

impl Position {
    /// The JSON view for `viewer`. Seats are 0-based, piles bottom first,
    /// middle stacks given by their tops (a stack holds 1..=top).
    pub fn view(&self, viewer: Viewer) -> Value {
        let n = self.rules.players;
        let (phase, turn, stage) = match self.phase {
            Phase::Deal => ("deal", None, None),
            Phase::FirstPlayer => ("first-player", None, None),
            Phase::Play { turn, stage } => (
                "play",
                Some(turn),
                Some(match stage {
                    Stage::Start => "start",
                    Stage::Continue => "continue",
                    Stage::Hand { .. } => "hand",
                }),
            ),
            Phase::Over { .. } => ("over", None, None),
        };
        let over = matches!(self.phase, Phase::Over { .. });
        let mut view = json!({
            "game": "lanzeloth",
            "players": n,
            "you": match viewer { Viewer::Seat(p) => json!(p), Viewer::Spectator => Value::Null },
            "phase": phase,
            "turn": turn,
            "stage": stage,
            "hand": self.hand().map(|(tile, from)| json!({ "tile": tile, "from": source_name(from) })),
            "face_down": (0..n).map(|p| self.face_down_len(p)).collect::<Vec<_>>(),
            "open": (0..n).map(|p| self.open(p)).collect::<Vec<_>>(),
            "middle": self.middle,
            "donkey": self.donkey,
            "out": self.out,
            "removed": self.removed.len(),
            "reveals": self.reveals,
            "max_turns": self.rules.max_turns,
            "winner": self.winner(),
            "options": {
                "max_number": self.rules.max_number,
                "copies": self.rules.copies,
                "esel": self.rules.esel.as_str(),
                "scoring": self.rules.scoring.as_str(),
            },
        });
        if over {
            // The game is over: nothing is hidden any more.
            view["scores"] = json!((0..n).map(|p| self.score(p)).collect::<Vec<_>>());
            view["face_down_tiles"] = json!(
                (0..n)
                    .map(|p| self
                        .face_down(p)
                        .iter()
                        .map(|t| t.number)
                        .collect::<Vec<_>>())
                    .collect::<Vec<_>>()
            );
            view["removed_tiles"] = json!(self.removed);
        }
        view
    }

    /// An 80-column text rendering for `viewer`; players are P1..P6.
    pub fn render(&self, viewer: Viewer) -> String {
        let n = self.rules.players;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "Lanzeloth  {n} players  esel={}  scoring={}  reveals {}/{}",
            self.rules.esel.as_str(),
            self.rules.scoring.as_str(),
            self.reveals,
            self.rules.max_turns
        );
        let middle = if self.middle.is_empty() {
            "(none)".to_string()
        } else {
            self.middle
                .iter()
                .enumerate()
                .map(|(i, top)| {
                    let done = if *top == self.rules.max_number {
                        " done"
                    } else {
                        ""
                    };
                    format!("m{}:1-{top}{done}", i + 1)
                })
                .collect::<Vec<_>>()
                .join("  ")
        };
        let _ = writeln!(out, "Middle: {middle}");
        for p in 0..n {
            let marker = if self.turn() == Some(p) { '>' } else { ' ' };
            let open = self.open(p);
            let shown: Vec<String> = open
                .iter()
                .rev()
                .take(12)
                .rev()
                .map(u8::to_string)
                .collect();
            let more = if open.len() > 12 { "… " } else { "" };
            let _ = writeln!(
                out,
                "{marker} P{}{}  face-down {:>3}  open {:>3}: {more}{}{}",
                p + 1,
                if viewer == Viewer::Seat(p) {
                    " (you)"
                } else {
                    ""
                },
                self.face_down_len(p),
                open.len(),
                if open.is_empty() {
                    "-".to_string()
                } else {
                    shown.join(" ")
                },
                if self.donkey == Some(p) {
                    "  [donkey]"
                } else {
                    ""
                }
            );
        }
        match self.phase {
            Phase::Deal => out.push_str("Waiting for the deal.\n"),
            Phase::FirstPlayer => out.push_str("Waiting for the draw of the starting player.\n"),
            Phase::Play { turn, stage } => {
                let what = match stage {
                    Stage::Start => "flip".to_string(),
                    Stage::Continue => "flip or play-open".to_string(),
                    Stage::Hand { tile, from } => format!(
                        "place tile {tile} (from the {} {})",
                        source_name(from),
                        if from == Source::FaceDown {
                            "stack"
                        } else {
                            "pile"
                        }
                    ),
                };
                let _ = writeln!(out, "P{} to move: {what}", turn + 1);
            }
            Phase::Over { winner } => {
                match winner {
                    Some(w) => {
                        let _ = writeln!(out, "Game over: P{} wins.", w + 1);
                    }
                    None => out.push_str("Game over: the turn limit was reached.\n"),
                }
                let scores: Vec<String> = (0..n)
                    .map(|p| format!("P{} {}", p + 1, self.score(p)))
                    .collect();
                let _ = writeln!(
                    out,
                    "Scores ({}): {}",
                    self.rules.scoring.as_str(),
                    scores.join("  ")
                );
            }
        }
        out
    }
}

/// The JSON of the steps of one action (all public, see [`Step`]).
pub(crate) fn steps_json(steps: &[Step]) -> Vec<Value> {
    steps
        .iter()
        .map(|step| match *step {
            Step::TurnOver { player, tiles } => {
                json!({ "step": "turn-over", "player": player, "tiles": tiles })
            }
            Step::Reveal { player, tile } => {
                json!({ "step": "reveal", "player": player, "tile": tile })
            }
            Step::TakeOpen { player, tile } => {
                json!({ "step": "take-open", "player": player, "tile": tile })
            }
            Step::Put {
                player,
                tile,
                place,
                correct,
            } => json!({
                "step": "put",
                "player": player,
                "tile": tile,
                "to": place_json(place, player),
                "notation": place_to_text(place),
                "correct": correct,
            }),
            Step::Esel { player, from } => {
                json!({ "step": "esel", "player": player, "donkey_from": from })
            }
            Step::Gift {
                from,
                to,
                source,
                tile,
            } => json!({
                "step": "gift",
                "from": from,
                "to": to,
                "source": source_name(source),
                "tile": tile,
            }),
            Step::Win { player } => json!({ "step": "win", "player": player }),
            Step::TurnPasses { player } => json!({ "step": "turn", "player": player }),
            Step::TurnLimit => json!({ "step": "turn-limit" }),
        })
        .collect()
}
