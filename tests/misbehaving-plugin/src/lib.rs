//! `tiles`, a fixture game for the tests of `tabletop plugin check`: a
//! chance node deals each of two seats a secret tile (0 to 3), then the
//! seats take turns guessing the other's tile, three guesses each; the
//! seat with more right guesses wins (a tie ranks both first). Each seat
//! sees its own tile, nobody sees the other's until the end. It offers
//! seat names, an evaluation, an SVG board, action targets and
//! resampling, and passes the conformance kit.
//!
//! Set `TABLETOP_MISBEHAVE` (read when the plugin is loaded) to break one
//! rule of the contract:
//!
//! | value | misbehaviour |
//! | --- | --- |
//! | `leak` | a seat's view shows the other seat's tile |
//! | `nondeterministic` | applying a guess depends on how many guesses the process applied before |
//! | `segfault-svg` | drawing the board kills the process with SIGSEGV |
//! | `bad-target` | a guess names a target that is no element of the board |
//! | `nan-evaluation` | the evaluation gives seat 0 NaN |
//! | `claims-simultaneous` | the manifest claims simultaneous moves, which the game never has |
//! | `infinite-loop` | applying a guess never returns |
//! | `huge-allocation` | the text of a state allocates 1 GiB |

#![forbid(unsafe_code)]

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use tabletop_sdk::{
    ActionId, ActionTargets, Chance, Evaluate, Game, GameError, Manifest, Move, Player,
    PlayerResult, PlayerSet, Resample, SeatNames, Setup, Status, SvgBoard, Viewer, serde_json,
};

/// The misbehaviour `TABLETOP_MISBEHAVE` names (empty: none).
fn misbehaviour() -> &'static str {
    static CHOSEN: OnceLock<String> = OnceLock::new();
    CHOSEN.get_or_init(|| std::env::var("TABLETOP_MISBEHAVE").unwrap_or_default())
}

fn misbehaves(what: &str) -> bool {
    misbehaviour() == what
}

/// Guesses applied by this process (for `nondeterministic`).
static APPLIED: AtomicU64 = AtomicU64::new(0);

/// Tiles are 0 to 3.
const TILES: u64 = 4;

/// Guesses in a match, both seats together.
const GUESSES: usize = 6;

/// The game.
#[derive(Debug, Default)]
pub struct Tiles;

/// The state: the dealt tiles (none before the deal) and the guesses so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct State {
    tiles: Option<[u64; 2]>,
    guesses: Vec<u64>,
}

impl State {
    fn over(&self) -> bool {
        self.guesses.len() >= GUESSES
    }

    fn to_move(&self) -> Option<Player> {
        (self.tiles.is_some() && !self.over()).then_some((self.guesses.len() % 2) as Player)
    }

    /// Right guesses of `seat`.
    fn right(&self, seat: usize) -> usize {
        let Some(tiles) = self.tiles else { return 0 };
        self.guesses
            .iter()
            .enumerate()
            .filter(|&(i, &g)| i % 2 == seat && g == tiles[1 - seat])
            .count()
    }

    /// The tile `viewer` may see of `seat`.
    fn seen_tile(&self, seat: usize, viewer: Viewer) -> Option<u64> {
        let tiles = self.tiles?;
        let visible = self.over()
            || viewer == Viewer::Seat(seat as Player)
            || (misbehaves("leak") && matches!(viewer, Viewer::Seat(_)));
        visible.then_some(tiles[seat])
    }
}

impl Game for Tiles {
    type State = State;
    type View<'a> = serde_json::Value;

    fn manifest(&self) -> Manifest {
        Manifest {
            name: "tiles".into(),
            version: "1.0.0".into(),
            min_players: 2,
            max_players: 2,
            options: Vec::new(),
            rules_summary: "Guess the other seat's secret tile.".into(),
            simultaneous: misbehaves("claims-simultaneous"),
            hidden_information: true,
            chance: true,
            removable_players: false,
        }
    }

    fn new_state(&self, _: &Setup) -> Result<State, GameError> {
        Ok(State {
            tiles: None,
            guesses: Vec::new(),
        })
    }

    fn parse_position(&self, _: &Setup, text: &str) -> Result<State, GameError> {
        // `-/` before the deal, else `AB/` then the guesses' digits.
        let bad = || GameError::invalid_position("expected `-/` or two tiles, `/`, guesses");
        let (tiles, guesses) = text.split_once('/').ok_or_else(bad)?;
        let digits = |s: &str| -> Result<Vec<u64>, GameError> {
            s.chars()
                .map(|c| {
                    c.to_digit(10)
                        .map(u64::from)
                        .filter(|&d| d < TILES)
                        .ok_or_else(bad)
                })
                .collect()
        };
        let tiles = match tiles {
            "-" => None,
            t => match digits(t)?[..] {
                [a, b] => Some([a, b]),
                _ => return Err(bad()),
            },
        };
        let guesses = digits(guesses)?;
        if guesses.len() > GUESSES || (tiles.is_none() && !guesses.is_empty()) {
            return Err(bad());
        }
        Ok(State { tiles, guesses })
    }

    fn position_to_string(&self, state: &State) -> String {
        let tiles = match state.tiles {
            Some([a, b]) => format!("{a}{b}"),
            None => "-".into(),
        };
        let guesses: String = state.guesses.iter().map(|g| g.to_string()).collect();
        format!("{tiles}/{guesses}")
    }

    fn status(&self, state: &State) -> Status {
        if state.tiles.is_none() {
            Status::Chance
        } else if state.over() {
            Status::Terminal
        } else {
            Status::ToMove(PlayerSet::single((state.guesses.len() % 2) as Player))
        }
    }

    fn chance(&self, _: &State) -> Chance {
        let each = 1.0 / (TILES * TILES) as f64;
        Chance::Explicit((0..TILES * TILES).map(|o| (o, each)).collect())
    }

    fn results(&self, state: &State) -> Vec<PlayerResult> {
        let (a, b) = (state.right(0), state.right(1));
        [(a, b), (b, a)]
            .iter()
            .map(|&(mine, theirs)| PlayerResult {
                rank: if mine >= theirs { 1 } else { 2 },
                score: mine as f64,
            })
            .collect()
    }

    fn legal_actions(&self, state: &State, player: Player, out: &mut Vec<ActionId>) {
        out.clear();
        if state.to_move() == Some(player) {
            out.extend(0..TILES);
        }
    }

    fn apply(&self, state: &mut State, moves: &[Move]) -> Result<(), GameError> {
        let [m] = moves else {
            return Err(GameError::illegal("exactly one move is expected"));
        };
        if state.to_move() != Some(m.player) {
            return Err(GameError::not_your_turn("not your turn"));
        }
        if m.action >= TILES {
            return Err(GameError::illegal(format!("no tile {}", m.action)));
        }
        if misbehaves("infinite-loop") {
            loop {
                std::hint::spin_loop();
            }
        }
        let applied = APPLIED.fetch_add(1, Ordering::Relaxed);
        let guess = if misbehaves("nondeterministic") {
            (m.action + applied) % TILES
        } else {
            m.action
        };
        state.guesses.push(guess);
        Ok(())
    }

    fn apply_chance(&self, state: &mut State, outcome: u64) -> Result<(), GameError> {
        if state.tiles.is_some() {
            return Err(GameError::illegal("the tiles are dealt"));
        }
        if outcome >= TILES * TILES {
            return Err(GameError::illegal(format!("no deal {outcome}")));
        }
        state.tiles = Some([outcome / TILES, outcome % TILES]);
        Ok(())
    }

    fn action_to_string(
        &self,
        _: &State,
        _: Player,
        action: ActionId,
    ) -> Result<String, GameError> {
        if action < TILES {
            Ok(format!("guess{action}"))
        } else {
            Err(GameError::invalid_notation(format!("no tile {action}")))
        }
    }

    fn parse_action(
        &self,
        state: &State,
        player: Player,
        text: &str,
    ) -> Result<ActionId, GameError> {
        let action = text
            .strip_prefix("guess")
            .and_then(|d| d.parse::<u64>().ok())
            .filter(|&d| d < TILES)
            .ok_or_else(|| GameError::invalid_notation("say guess0 to guess3"))?;
        if state.to_move() != Some(player) {
            return Err(GameError::not_your_turn("not your turn"));
        }
        Ok(action)
    }

    fn view(&self, state: &State, viewer: Viewer) -> serde_json::Value {
        serde_json::json!({
            "tiles": [state.seen_tile(0, viewer), state.seen_tile(1, viewer)],
            "guesses": state.guesses,
            "dealt": state.tiles.is_some(),
        })
    }

    fn render_text(&self, state: &State, viewer: Viewer) -> String {
        if misbehaves("huge-allocation") {
            let huge = vec![1u8; 1 << 30];
            std::hint::black_box(&huge);
        }
        format!("{}\n", self.view(state, viewer))
    }
}

impl SeatNames for Tiles {
    fn seat_names(&self, _: u32) -> Vec<String> {
        vec!["N".into(), "S".into()]
    }
}

impl Evaluate for Tiles {
    fn evaluate(&self, state: &State) -> Vec<f64> {
        let lead = state.right(0) as f64 - state.right(1) as f64;
        let first = 0.5 + lead / 8.0;
        if misbehaves("nan-evaluation") {
            return vec![f64::NAN, 1.0 - first];
        }
        vec![first, 1.0 - first]
    }
}

impl SvgBoard for Tiles {
    fn render_svg(&self, state: &State, viewer: Viewer) -> String {
        if misbehaves("segfault-svg") {
            let _ = nix::sys::signal::raise(nix::sys::signal::Signal::SIGSEGV);
        }
        let mut svg =
            String::from("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 100 40\">");
        for tile in 0..TILES {
            svg.push_str(&format!(
                "<rect id=\"guess-{tile}\" x=\"{}\" y=\"0\" width=\"20\" height=\"20\"/>",
                tile * 25
            ));
        }
        for seat in 0..2 {
            let shown = state
                .seen_tile(seat, viewer)
                .map_or("?".to_string(), |t| t.to_string());
            svg.push_str(&format!(
                "<text x=\"{}\" y=\"35\">{shown}</text>",
                seat * 50
            ));
        }
        svg.push_str("</svg>");
        svg
    }
}

impl ActionTargets for Tiles {
    fn action_targets(&self, _: &State, _: Player, action: ActionId) -> Vec<String> {
        if misbehaves("bad-target") {
            return vec!["nowhere".into()];
        }
        vec![format!("guess-{action}")]
    }
}

impl Resample for Tiles {
    fn resample(&self, state: &State, viewer: Viewer, random: u64) -> State {
        let Some(tiles) = state.tiles else {
            return state.clone();
        };
        if state.over() {
            return state.clone();
        }
        let mut tiles = tiles;
        for (seat, tile) in tiles.iter_mut().enumerate() {
            if viewer != Viewer::Seat(seat as Player) {
                *tile = (random >> (8 * seat)) % TILES;
            }
        }
        State {
            tiles: Some(tiles),
            guesses: state.guesses.clone(),
        }
    }
}

tabletop_sdk::export_game!(
    Tiles,
    extensions: [Resample, SeatNames, Evaluate, SvgBoard, ActionTargets]
);
