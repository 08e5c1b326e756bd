//! What one viewer (a seat or a spectator) is shown of a match.

use tabletop_sdk::Viewer;

use crate::Match;
use crate::error::HostResult;
use crate::seat::{SeatInfo, SeatResult};
use crate::setup::{Lifecycle, now_ms};

/// A match as one viewer sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchView {
    /// The match.
    pub match_id: String,
    /// The game.
    pub game: String,
    /// The plugin version.
    pub plugin_version: String,
    /// State changes so far.
    pub version: u64,
    /// Life stage.
    pub lifecycle: Lifecycle,
    /// The viewer's seat (None: spectator).
    pub viewer_seat: Option<u32>,
    /// The game's JSON view.
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
    /// Why a director aborted it (None: not aborted).
    pub abort_reason: Option<String>,
    /// Whether a director decided its result.
    pub adjudicated: bool,
    /// When its open seats must be taken by, while it waits for players.
    pub open_seat_deadline_ms: Option<i64>,
    /// The match's spectator delay, if it has one.
    pub spectator_delay: Option<crate::SpectatorDelay>,
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
    fn has_game_view(self) -> bool {
        self != ViewDetail::Summary
    }
}

impl Match {
    /// Whether the position text may be shown to anyone: it holds
    /// everything, so only when the game hides nothing or the match is
    /// over (when every game reveals all).
    fn position_is_public(&self) -> bool {
        !self.game.manifest().hidden_information || self.lifecycle == Lifecycle::Finished
    }

    /// The match as `viewer` sees it.
    pub fn view(&self, viewer: Viewer) -> HostResult<MatchView> {
        self.view_with(viewer, ViewDetail::Full)
    }

    /// The match as `viewer` may see it now, with the game's view and text
    /// unless [`ViewDetail::Summary`] (and its board for
    /// [`ViewDetail::Board`]): a spectator of a running match with a
    /// spectator delay sees it behind ([`Match::spectator_view`]).
    pub fn view_with(&self, viewer: Viewer, detail: ViewDetail) -> HostResult<MatchView> {
        match viewer {
            Viewer::Spectator => self.spectator_view(detail, now_ms()),
            Viewer::Seat(_) => self.view_as_of(viewer, detail, now_ms()),
        }
    }

    /// The match as `viewer` sees it now, whatever its spectator delay: for
    /// whom the delay does not hold (a director, with the admin token).
    pub fn undelayed_view(&self, viewer: Viewer, detail: ViewDetail) -> HostResult<MatchView> {
        self.view_as_of(viewer, detail, now_ms())
    }

    /// The view with the clocks read at `now` (ms since the epoch).
    pub(crate) fn view_as_of(
        &self,
        viewer: Viewer,
        detail: ViewDetail,
        now: i64,
    ) -> HostResult<MatchView> {
        let movers = self.movers()?;
        let out = self.out_reasons()?;
        let mut names = self.game.seat_names(self.setup.players)?.into_iter();
        let seats = (0..self.setup.players)
            .map(|p| SeatInfo {
                seat: p,
                filled: self.seats[p as usize].token_hash.is_some(),
                to_move: movers.contains(p),
                has_acted: self.has_held(p),
                resigned: self.seats[p as usize].resigned,
                out: out[p as usize],
                clock_remaining_ms: self.clock_remaining(p, now),
                player: self.player(p),
                name: names.next(),
            })
            .collect();
        let pending_action = match viewer {
            Viewer::Seat(p) => match self.held_by(p) {
                Some(held) => Some(self.state.action_to_string(p, held.action)?),
                None => None,
            },
            Viewer::Spectator => None,
        };
        Ok(MatchView {
            match_id: self.setup.match_id.clone(),
            game: self.setup.game.clone(),
            plugin_version: self.setup.plugin_version.clone(),
            version: self.version(),
            lifecycle: self.lifecycle,
            viewer_seat: match viewer {
                Viewer::Seat(p) => Some(p),
                Viewer::Spectator => None,
            },
            view_json: if detail.has_game_view() {
                self.state.view(viewer)?
            } else {
                String::new()
            },
            text: if detail.has_game_view() {
                self.state.render_text(viewer)?
            } else {
                String::new()
            },
            to_move: movers.iter().collect(),
            seats,
            results: self.results.clone(),
            pending_action,
            labels: self.setup.labels.clone(),
            paused: self.paused_at.is_some(),
            abort_reason: self.aborted.clone(),
            adjudicated: self.adjudicated,
            open_seat_deadline_ms: self
                .setup
                .open_seat_deadline
                .filter(|_| self.lifecycle == Lifecycle::Waiting)
                .map(|d| d.at_ms),
            spectator_delay: self.setup.spectator_delay,
            delayed: false,
            position: if detail.has_game_view() && self.position_is_public() {
                Some(self.state.position()?)
            } else {
                None
            },
            svg: match detail {
                ViewDetail::Board => self.state.render_svg(viewer)?,
                _ => None,
            },
        })
    }
}
