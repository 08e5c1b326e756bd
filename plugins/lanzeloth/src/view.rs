//! What a viewer sees (ruling Z11): JSON views and text (the events are in
//! `events.rs`).
//!
//! Nobody sees a face-down tile, so every viewer sees the same; only the
//! `you` field differs. After the end everything is shown.

use std::fmt::Write as _;
use tabletop_sdk::text::write_joined;

use serde::Serialize;
use tabletop_sdk::{Player, Viewer};

use crate::actions::Action;
use crate::notation::action_to_text;
use crate::position::{Phase, Position, Source, Stage};
use crate::seats::seat;
use crate::tile::Number;

/// The width `render_text` keeps to.
const COLUMNS: usize = 80;

/// The name of a tile's source in views and events.
pub(crate) fn source_name(source: Source) -> &'static str {
    match source {
        Source::FaceDown => "face-down",
        Source::Open => "open",
    }
}

/// The JSON view for one viewer: typed data serialised straight to text
/// instead of a `serde_json::Value` tree built first, the bulk of a full
/// view's cost. Seats are 0-based, piles bottom first, middle stacks given by
/// their tops (a stack holds 1..=top). Fields are in alphabetical order, as
/// clients that compare views as `Value` objects print them.
#[derive(Debug, Serialize)]
pub struct View<'a> {
    donkey: Option<Player>,
    face_down: Vec<usize>,
    /// Only after the end (Z11: face-down tiles are hidden until then).
    #[serde(skip_serializing_if = "Option::is_none")]
    face_down_tiles: Option<Vec<Vec<Number>>>,
    game: &'static str,
    hand: Option<HandView>,
    max_turns: u32,
    middle: &'a [Number],
    open: Vec<&'a [Number]>,
    options: OptionsView,
    out: &'a [Player],
    phase: &'static str,
    players: u32,
    removed: usize,
    /// Only after the end, like `face_down_tiles`.
    #[serde(skip_serializing_if = "Option::is_none")]
    removed_tiles: Option<&'a [Number]>,
    reveals: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    scores: Option<Vec<u32>>,
    stage: Option<&'static str>,
    turn: Option<Player>,
    winner: Option<Player>,
    you: Option<Player>,
}

#[derive(Debug, Serialize)]
struct HandView {
    from: &'static str,
    tile: Number,
}

#[derive(Debug, Serialize)]
struct OptionsView {
    copies: u8,
    esel: &'static str,
    max_number: Number,
    scoring: &'static str,
}

/// Bytes a rendering for six players takes, so it is written into one
/// allocation.
const TEXT_CAPACITY: usize = 1024;

impl Position {
    /// The JSON view for `viewer` (see [`View`]).
    pub fn view(&self, viewer: Viewer) -> View<'_> {
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
        // The game is over: nothing is hidden any more.
        let over = matches!(self.phase, Phase::Over { .. });
        View {
            donkey: self.donkey,
            face_down: (0..n).map(|p| self.face_down_len(p)).collect(),
            face_down_tiles: over.then(|| {
                (0..n)
                    .map(|p| self.face_down(p).iter().map(|t| t.number).collect())
                    .collect()
            }),
            game: "lanzeloth",
            hand: self.hand().map(|(tile, from)| HandView {
                from: source_name(from),
                tile,
            }),
            max_turns: self.rules.max_turns,
            middle: &self.middle,
            open: (0..n).map(|p| self.open(p)).collect(),
            options: OptionsView {
                copies: self.rules.copies,
                esel: self.rules.esel.as_str(),
                max_number: self.rules.max_number,
                scoring: self.rules.scoring.as_str(),
            },
            out: &self.out,
            phase,
            players: n,
            removed: self.removed.len(),
            removed_tiles: over.then_some(self.removed.as_slice()),
            reveals: self.reveals,
            scores: over.then(|| (0..n).map(|p| self.score(p)).collect()),
            stage,
            turn,
            winner: self.winner(),
            you: match viewer {
                Viewer::Seat(p) => Some(p),
                Viewer::Spectator => None,
            },
        }
    }

    /// An 80-column text rendering for `viewer`; players are P1..P6.
    pub fn render(&self, viewer: Viewer) -> String {
        let n = self.rules.players;
        let mut out = String::with_capacity(TEXT_CAPACITY);
        let _ = writeln!(
            out,
            "Lanzeloth  {n} players  esel={}  scoring={}  reveals {}/{}",
            self.rules.esel.as_str(),
            self.rules.scoring.as_str(),
            self.reveals,
            self.rules.max_turns
        );
        out.push_str("Middle: ");
        if self.middle.is_empty() {
            out.push_str("(none)");
        }
        write_joined(
            &mut out,
            self.middle.iter().enumerate(),
            "  ",
            |out, (i, top)| {
                let done = if *top == self.rules.max_number {
                    " done"
                } else {
                    ""
                };
                let _ = write!(out, "m{}:1-{top}{done}", i + 1);
            },
        );
        out.push('\n');
        for p in 0..n {
            let marker = if self.turn() == Some(p) { '>' } else { ' ' };
            let open = self.open(p);
            let more = if open.len() > 12 { "… " } else { "" };
            let _ = write!(
                out,
                "{marker} P{}{}  face-down {:>3}  open {:>3}: {more}",
                p + 1,
                if viewer == Viewer::Seat(p) {
                    " (you)"
                } else {
                    ""
                },
                self.face_down_len(p),
                open.len(),
            );
            if open.is_empty() {
                out.push('-');
            }
            let shown = &open[open.len().saturating_sub(12)..];
            write_joined(&mut out, shown, " ", |out, tile| {
                let _ = write!(out, "{tile}");
            });
            if self.donkey == Some(p) {
                out.push_str("  [donkey]");
            }
            out.push('\n');
        }
        match self.phase {
            Phase::Deal => out.push_str("Waiting for the deal.\n"),
            Phase::FirstPlayer => out.push_str("Waiting for the draw of the starting player.\n"),
            Phase::Play { turn, stage } => {
                let _ = write!(out, "{} to move", seat(turn));
                if let Stage::Hand { tile, from } = stage {
                    let _ = write!(
                        out,
                        ", holding the {tile} from the {} {}",
                        source_name(from),
                        if from == Source::FaceDown {
                            "stack"
                        } else {
                            "pile"
                        }
                    );
                }
                out.push(':');
                self.write_legal(&mut out, turn);
                out.push('\n');
            }
            Phase::Over { winner } => {
                match winner {
                    Some(w) => {
                        let _ = writeln!(out, "Game over: {} wins.", seat(w));
                    }
                    None => out.push_str("Game over: the turn limit was reached.\n"),
                }
                let _ = write!(out, "Scores ({}): ", self.rules.scoring.as_str());
                write_joined(&mut out, 0..n, "  ", |out, p| {
                    let _ = write!(out, "P{} {}", p + 1, self.score(p));
                });
                out.push('\n');
            }
        }
        out
    }

    /// Appends `turn`'s legal actions in their notation, comma-separated,
    /// wrapping lines at [`COLUMNS`]: what a player can type, verbatim.
    fn write_legal(&self, out: &mut String, turn: Player) {
        let mut legal = Vec::new();
        self.legal_actions(turn, &mut legal);
        let mut column = out.len() - out.rfind('\n').map_or(0, |i| i + 1);
        for (i, &id) in legal.iter().enumerate() {
            let Some(action) = Action::from_id(id) else {
                continue;
            };
            let text = action_to_text(action, turn);
            let width = text.len() + usize::from(i + 1 < legal.len());
            if column + 1 + width > COLUMNS {
                out.push_str("\n ");
                column = 1;
            } else {
                out.push(' ');
                column += 1;
            }
            out.push_str(&text);
            if i + 1 < legal.len() {
                out.push(',');
            }
            column += width;
        }
    }
}
