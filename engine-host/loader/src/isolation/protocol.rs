//! What the host and a plugin worker say to each other: one request, one
//! reply, each a length-prefixed frame of `postcard` bytes on a unix
//! socket.
//!
//! Each connection carries one call at a time (the host keeps a pool of
//! them, so calls of different matches run side by side). A state lives
//! in the worker under a handle the host chose; every request that makes a
//! state names the handle it gets, so making one costs no extra round
//! trip. [`Request::Drop`] alone has no reply.

use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tabletop_sdk::{
    ActionId, Chance, ErrorKind, GameError, Move, Player, PlayerResult, Refusal, SeatOut, Status,
    Transition, Viewer,
};

/// The largest frame either side accepts: a plugin's answers are bounded by
/// the reply cap long before this; a length beyond it is a broken peer.
pub(crate) const MAX_FRAME: usize = 256 << 20;

/// A state's handle in its worker.
pub(crate) type Handle = u64;

/// How a state came to be, from the start: what a fresh worker replays to
/// make it again (see [`Recipe`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum Origin {
    /// `DynGame::new_state`.
    New {
        players: u32,
        options: BTreeMap<String, String>,
        position: Option<String>,
    },
    /// A resample of another state, for `viewer`, from `random`.
    Resampled {
        of: Box<Recipe>,
        viewer: Viewer,
        random: u64,
    },
}

/// A change made to a state after its origin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum Step {
    /// A joint action.
    Apply(Vec<Move>),
    /// A chance outcome.
    Chance(u64),
    /// A player taken out.
    Remove(Player),
}

/// Everything that made a state: its origin and the changes since. The
/// host keeps one per state, so a worker that died costs its states
/// nothing but a replay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Recipe {
    pub origin: Origin,
    pub steps: Vec<Step>,
}

/// What a refusal was asked about (the owned form of
/// [`tabletop_sdk::Attempt`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum AttemptText {
    Id(ActionId),
    Text(String),
}

/// A call from the host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum Request {
    /// The game's manifest, seat names and extensions.
    Describe,
    /// Makes `handle` from `recipe`: a new state, or one made again.
    Make {
        handle: Handle,
        recipe: Recipe,
    },
    /// Makes `handle` a copy of `of`.
    Clone {
        of: Handle,
        handle: Handle,
    },
    /// Makes `handle` a resample of `of` for `viewer`.
    Resample {
        of: Handle,
        handle: Handle,
        viewer: Viewer,
        random: u64,
    },
    /// Forgets a state; no reply.
    Drop {
        handle: Handle,
    },
    Status {
        handle: Handle,
    },
    Chance {
        handle: Handle,
    },
    Results {
        handle: Handle,
    },
    Legal {
        handle: Handle,
        player: Player,
    },
    /// Applies, then gives the status and the legal actions of `player`
    /// (or of the lowest mover) as `DynState::apply_and_lend_legal`.
    ApplyAndLegal {
        handle: Handle,
        moves: Vec<Move>,
        player: Option<Player>,
    },
    /// Applies a chance outcome, then gives what `ApplyAndLegal` gives for
    /// the lowest mover.
    ApplyChance {
        handle: Handle,
        outcome: u64,
    },
    View {
        handle: Handle,
        viewer: Viewer,
    },
    Text {
        handle: Handle,
        viewer: Viewer,
    },
    Event {
        handle: Handle,
        before: Handle,
        transition: Transition,
        viewer: Viewer,
    },
    Position {
        handle: Handle,
    },
    ActionText {
        handle: Handle,
        player: Player,
        action: ActionId,
    },
    ActionTexts {
        handle: Handle,
        player: Player,
        ids: Vec<ActionId>,
    },
    ParseAction {
        handle: Handle,
        player: Player,
        text: String,
    },
    ExpandNotation {
        handle: Handle,
        player: Player,
        text: String,
    },
    RemovePlayer {
        handle: Handle,
        player: Player,
    },
    SeatsOut {
        handle: Handle,
    },
    ExplainRefusal {
        handle: Handle,
        player: Player,
        attempt: AttemptText,
    },
    ActionSpace {
        handle: Handle,
    },
    Evaluate {
        handle: Handle,
        seats: u32,
    },
    Svg {
        handle: Handle,
        viewer: Viewer,
    },
    Targets {
        handle: Handle,
        player: Player,
        ids: Vec<ActionId>,
    },
    /// A bot's choice for `seat`, searched in the worker (see
    /// `tabletop_mcts::Bot::think_within`).
    Think {
        handle: Handle,
        spec: String,
        players: u32,
        seat: Player,
        seed: u64,
        limit: Duration,
    },
}

impl Request {
    /// The call's name, for the log line of a worker that died in it.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Request::Describe => "describe",
            Request::Make { .. } => "new_state",
            Request::Clone { .. } => "clone",
            Request::Resample { .. } => "resample",
            Request::Drop { .. } => "drop",
            Request::Status { .. } => "status",
            Request::Chance { .. } => "chance",
            Request::Results { .. } => "results",
            Request::Legal { .. } => "legal_actions",
            Request::ApplyAndLegal { .. } => "apply",
            Request::ApplyChance { .. } => "apply_chance",
            Request::View { .. } => "view",
            Request::Text { .. } => "render_text",
            Request::Event { .. } => "event",
            Request::Position { .. } => "position",
            Request::ActionText { .. } | Request::ActionTexts { .. } => "action_to_string",
            Request::ParseAction { .. } => "parse_action",
            Request::ExpandNotation { .. } => "expand_notation",
            Request::RemovePlayer { .. } => "remove_player",
            Request::SeatsOut { .. } => "seats_out",
            Request::ExplainRefusal { .. } => "explain_refusal",
            Request::ActionSpace { .. } => "action_space",
            Request::Evaluate { .. } => "evaluate",
            Request::Svg { .. } => "render_svg",
            Request::Targets { .. } => "action_targets",
            Request::Think { .. } => "bot search",
        }
    }
}

/// What the game is, as a worker describes it once it has loaded the file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Description {
    /// The manifest as JSON (checked by the SDK's import in the worker).
    pub manifest_json: String,
    /// Seat names per player count from the manifest's fewest.
    pub seat_names: Vec<Vec<String>>,
    /// The ABI extensions it offers.
    pub extensions: Vec<String>,
}

/// A bot's choice, as the worker's search made it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Thought {
    pub action: ActionId,
    pub iterations: u64,
    pub nodes: u64,
    pub elapsed: Duration,
}

/// What a change (an action, a chance outcome) left: everything the host
/// asks of a state after a move, so a move costs one round trip — the
/// status, the legal actions of the lowest mover (or of the player the
/// request named) and of every other mover (the host lists each seat to
/// move after a change), the first list's notations (which the next
/// move's log entry takes) and the seats out of the game. What the plugin
/// could not say is left out (`None`, or a mover missing from `others`):
/// the change stands, and the host asks for it when needed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Changed {
    pub status: Status,
    pub legal: Vec<ActionId>,
    /// The legal actions of each other player to move.
    pub others: Vec<(Player, Vec<ActionId>)>,
    /// The notations of `legal` joined, with each one's end offset; none
    /// for a list longer than the host keeps.
    pub notations: Option<(String, Vec<u32>)>,
    pub seats_out: Option<Vec<SeatOut>>,
}

/// The most notations a state keeps, and a change's answer carries.
pub(crate) const KNOWN_NOTATIONS: usize = 1024;

/// A successful answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum Answer {
    Done,
    Described(Description),
    Status(Status),
    Chance(Chance),
    Results(Vec<PlayerResult>),
    Actions(Vec<ActionId>),
    Changed(Changed),
    Text(String),
    /// Notations and their end offsets (`DynState::actions_to_strings`).
    Texts(String, Vec<u32>),
    Action(ActionId),
    Expanded(Option<Vec<String>>),
    SeatsOut(Vec<SeatOut>),
    Refusal(Option<Refusal>),
    Number(u64),
    Values(Option<Vec<f64>>),
    MaybeText(Option<String>),
    Targets(Option<Vec<Vec<String>>>),
    Thought(Thought),
}

/// A reply: an answer, or the game's error (its kind's ABI code and its
/// message).
pub(crate) type Reply = Result<Answer, (i32, String)>;

/// `error` as it crosses to the host.
pub(crate) fn error_reply(error: GameError) -> Reply {
    Err((error.kind as i32, error.message))
}

/// A reply's error as the host reads it.
pub(crate) fn game_error((code, message): (i32, String)) -> GameError {
    GameError::new(ErrorKind::from_code(code), message)
}

/// Writes `value` as one frame.
pub(crate) fn write_frame<T: Serialize>(out: &mut impl Write, value: &T) -> io::Result<()> {
    let bytes = postcard::to_stdvec(value).map_err(io::Error::other)?;
    if bytes.len() > MAX_FRAME {
        return Err(io::Error::other(format!(
            "a frame of {} bytes is over the {MAX_FRAME}-byte cap",
            bytes.len()
        )));
    }
    // Both sides write to a buffered writer: the length and the bytes
    // leave in one write when it is flushed.
    out.write_all(&(bytes.len() as u32).to_le_bytes())?;
    out.write_all(&bytes)
}

/// Reads one frame; `Ok(None)` at a clean end of the stream.
pub(crate) fn read_frame<T: for<'de> Deserialize<'de>>(
    input: &mut impl Read,
    buffer: &mut Vec<u8>,
) -> io::Result<Option<T>> {
    let mut length = [0u8; 4];
    match input.read_exact(&mut length) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let length = u32::from_le_bytes(length) as usize;
    if length > MAX_FRAME {
        return Err(io::Error::other(format!(
            "a frame of {length} bytes is over the {MAX_FRAME}-byte cap"
        )));
    }
    buffer.clear();
    buffer.resize(length, 0);
    input.read_exact(buffer)?;
    postcard::from_bytes(buffer)
        .map(Some)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_reads_back_as_written_and_an_oversized_length_is_refused() {
        let request = Request::ApplyAndLegal {
            handle: 7,
            moves: vec![Move {
                player: 1,
                action: 42,
            }],
            player: None,
        };
        let mut bytes = Vec::new();
        write_frame(&mut bytes, &request).unwrap();
        let mut buffer = Vec::new();
        let read: Option<Request> = read_frame(&mut bytes.as_slice(), &mut buffer).unwrap();
        assert_eq!(read, Some(request));
        let ended: Option<Request> = read_frame(&mut [].as_slice(), &mut buffer).unwrap();
        assert_eq!(ended, None);
        let hostile = (u32::MAX).to_le_bytes();
        assert!(read_frame::<Request>(&mut hostile.as_slice(), &mut buffer).is_err());
    }
}
