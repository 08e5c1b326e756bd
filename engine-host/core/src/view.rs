//! What one viewer (a seat or a spectator) is shown of a match.

use crate::delay::SpectatorDelay;
use crate::seat::{SeatInfo, SeatResult};
use crate::stage::Lifecycle;

/// A match as one viewer sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchView {
    /// The match.
    pub match_id: String,
    /// The game.
    pub game: String,
    /// The plugin version.
    pub plugin_version: String,
    /// The hex SHA-256 of the plugin file it was created with (see
    /// [`crate::MatchSetup::plugin_sha256`]); empty when not recorded.
    pub plugin_sha256: String,
    /// State changes so far.
    pub version: u64,
    /// Life stage.
    pub lifecycle: Lifecycle,
    /// The viewer's seat (None: spectator).
    pub viewer_seat: Option<u32>,
    /// The game's JSON view (empty when [`ViewDetail::Summary`] leaves it
    /// out, and for a match whose `quarantine_reason` is set).
    pub view_json: String,
    /// The text rendering.
    pub text: String,
    /// Seats to move.
    pub to_move: Vec<u32>,
    /// All seats.
    pub seats: Vec<SeatInfo>,
    /// Results once finished.
    pub results: Vec<SeatResult>,
    /// The viewer's own pending simultaneous action.
    pub pending_action: Option<String>,
    /// The match's labels.
    pub labels: std::collections::BTreeMap<String, String>,
    /// Whether a director has paused it.
    pub paused: bool,
    /// Why the host quarantined it, while it is quarantined, and after a
    /// director ended it while it was: its plugin is not called for it then,
    /// so `view_json`, `position` and `svg` are empty, `to_move` too, and
    /// `text` says why (see `Match::is_sealed`). Boxed, as it is rarely set:
    /// views are moved by value through every answer of the host.
    pub quarantine_reason: Option<Box<str>>,
    /// Why a director aborted it (None: not aborted).
    pub abort_reason: Option<String>,
    /// Whether a director decided its result.
    pub adjudicated: bool,
    /// When its open seats must be taken by, while it waits for players.
    pub open_seat_deadline_ms: Option<i64>,
    /// The match's spectator delay, if it has one.
    pub spectator_delay: Option<SpectatorDelay>,
    /// Whether this is a spectator's view of the match behind, under its
    /// spectator delay (set on views of the match now, not on past views).
    pub delayed: bool,
    /// The position in the game's notation, for a game without hidden
    /// information or a finished match ([`ViewDetail::Full`] and
    /// [`ViewDetail::Board`] only).
    pub position: Option<String>,
    /// The game's SVG board for this viewer ([`ViewDetail::Board`], for a
    /// game that draws).
    pub svg: Option<String>,
}

/// How much of a match a view carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ViewDetail {
    /// Everything, including the game's JSON view and text rendering.
    #[default]
    Full,
    /// Version, life stage, seats and results, without the game's view and
    /// text: building those is the costly part of a response (a plugin call
    /// each).
    Summary,
    /// Everything [`ViewDetail::Full`] carries, and the game's SVG board for
    /// the viewer, drawn from the same state.
    Board,
}

impl ViewDetail {
    /// Whether it carries the game's view, text and position.
    pub(crate) fn has_game_view(self) -> bool {
        self != ViewDetail::Summary
    }
}
