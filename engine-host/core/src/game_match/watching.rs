//! Watching: what each viewer is shown of the match (its view, and a
//! spectator's under the spectator delay) and the events live watchers are
//! sent. A view reads every part, and an event is counted by the feed and
//! described with the views of the moment, so both are coordinated here.
//!
//! A sealed match (quarantined, or ended while it was: `Match::is_sealed`)
//! is shown without its plugin: the host's part (seats, clocks, version,
//! stage, labels, the quarantine's reason), no game view, board or
//! position, nobody to move, and a text that says why.

use std::sync::Arc;

use tabletop_sdk::{DynState, Player, Status, Transition, Viewer};

use super::Match;
use crate::delay::SpectatorHorizon;
use crate::error::HostResult;
use crate::fanout::{HostEvent, Subscription, ViewerUpdate};
use crate::log::seq_of_version;
use crate::seat::SeatInfo;
use crate::setup::now_ms;
use crate::view::{MatchView, ViewDetail};

impl Match {
    /// Whether the position text may be shown to anyone: it holds
    /// everything, so only when the game hides nothing or the match is
    /// over (when every game reveals all).
    fn position_is_public(&self) -> bool {
        !self.game.manifest().hidden_information || self.stage.is_finished()
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
                filled: self.seats.is_taken(p),
                to_move: movers.contains(p),
                has_acted: self.held.has(p),
                resigned: self.seats.has_resigned(p),
                out: out[p as usize],
                clock_remaining_ms: self.clock_remaining(p, now),
                player: self.player(p),
                name: names.next(),
            })
            .collect();
        let sealed = self.is_sealed();
        let pending_action = match viewer {
            // Its notation is the plugin's to write.
            _ if sealed => None,
            Viewer::Seat(p) => match self.held.by(p) {
                Some(held) => Some(self.state.action_to_string(p, held.action)?),
                None => None,
            },
            Viewer::Spectator => None,
        };
        let game_view = detail.has_game_view();
        Ok(MatchView {
            match_id: self.setup.match_id.clone(),
            game: self.setup.game.clone(),
            plugin_version: self.setup.plugin_version.clone(),
            plugin_sha256: self.setup.plugin_sha256.clone().unwrap_or_default(),
            version: self.version(),
            lifecycle: self.stage.lifecycle(),
            viewer_seat: match viewer {
                Viewer::Seat(p) => Some(p),
                Viewer::Spectator => None,
            },
            view_json: if game_view && !sealed {
                self.state.view(viewer)?
            } else {
                String::new()
            },
            text: if !game_view {
                String::new()
            } else if sealed {
                self.sealed_text()
            } else {
                self.state.render_text(viewer)?
            },
            to_move: movers.iter().collect(),
            seats,
            results: self.stage.results().to_vec(),
            pending_action,
            labels: self.setup.labels.clone(),
            paused: self.director.is_paused(),
            quarantine_reason: self.quarantine_reason().map(Box::from),
            abort_reason: self.director.abort_reason().map(str::to_owned),
            adjudicated: self.director.is_adjudicated(),
            open_seat_deadline_ms: self
                .setup
                .open_seat_deadline
                .filter(|_| self.stage.is_waiting())
                .map(|d| d.at_ms),
            spectator_delay: self.setup.spectator_delay,
            delayed: false,
            position: if game_view && self.position_is_public() && !sealed {
                Some(self.state.position()?)
            } else {
                None
            },
            svg: match detail {
                ViewDetail::Board if !sealed => self.state.render_svg(viewer)?,
                _ => None,
            },
        })
    }

    /// The text a sealed match's view shows in place of the game's.
    fn sealed_text(&self) -> String {
        let reason = self.quarantine_reason().unwrap_or_default();
        if self.stage.is_finished() {
            format!(
                "This match ended while it was quarantined: {reason}\n\
                 Its game's plugin is not called for it, so its board is not shown.\n"
            )
        } else {
            format!(
                "This match is quarantined: {reason}\n\
                 Its game's plugin failed in a call for this match. No move can be made\n\
                 until the admin lifts the quarantine; a director may abort or adjudicate\n\
                 the match.\n"
            )
        }
    }

    /// Whether spectators see the match behind: it has a spectator delay
    /// and runs (a waiting match has nothing to hide yet, a finished one
    /// nothing left to), and is not quarantined (its view holds nothing of
    /// the game then, and showing it behind would replay its log through
    /// the plugin it may not call).
    pub fn spectator_delay_applies(&self) -> bool {
        self.setup.spectator_delay.is_some() && self.stage.is_running() && !self.is_sealed()
    }

    /// What spectators may see of the match at `now_ms` (see
    /// [`crate::delay`]): the one place that says so.
    pub fn spectator_horizon(&self, now_ms: i64) -> SpectatorHorizon {
        let delay = self
            .setup
            .spectator_delay
            .filter(|_| self.spectator_delay_applies());
        let Some(delay) = delay else {
            return SpectatorHorizon {
                version: self.version(),
                seq: self.feed.seq(),
                delayed: false,
                next_at_ms: None,
            };
        };
        let (version, next_at_ms) = delay.visible_version(self.log.entries(), now_ms);
        SpectatorHorizon {
            version,
            seq: self.seq_of_version(version),
            delayed: true,
            next_at_ms,
        }
    }

    /// The sequence number of the event that produced `version` (0 for
    /// version 0), counted from the log without replaying it: one event
    /// per entry, the seats taken after creation (told after the chance
    /// outcomes drawn at creation), and one per move held for a
    /// simultaneous turn (told at the version it was submitted at). The
    /// same number [`crate::History::seq_of_version`] finds by a walk.
    pub fn seq_of_version(&self, version: u64) -> u64 {
        seq_of_version(self.log.entries(), self.seats.joins().len(), version)
    }

    /// The match as spectators may see it at `now_ms`: under a delay, as
    /// of the delayed version (replayed from the log, its clocks as of
    /// that entry's time), marked delayed; otherwise as it is.
    pub fn spectator_view(&self, detail: ViewDetail, now_ms: i64) -> HostResult<MatchView> {
        let horizon = self.spectator_horizon(now_ms);
        if !horizon.delayed {
            return self.view_as_of(Viewer::Spectator, detail, now_ms);
        }
        let mut view = self.replayed_view(Viewer::Spectator, horizon.version, detail)?;
        view.delayed = true;
        Ok(view)
    }

    /// Subscribes to the events after [`Match::event_seq`]; the ones up to
    /// it come from [`Match::history`]. Live events carry views while at
    /// least one subscription made `with_views` is alive.
    pub fn subscribe(&mut self, with_views: bool) -> Subscription {
        self.feed.subscribe(with_views)
    }

    /// Every viewer: the seats in order, then the spectator.
    pub(crate) fn viewers(&self) -> impl Iterator<Item = Viewer> + use<> {
        (0..self.setup.players)
            .map(Viewer::Seat)
            .chain(std::iter::once(Viewer::Spectator))
    }

    /// Counts the next event and sends `updates` (one per viewer) to live
    /// watchers, if any.
    /// A sealed match's events are kept with their views (see
    /// [`crate::fanout`]).
    fn publish(&mut self, at_ms: i64, updates: Option<Vec<ViewerUpdate>>) {
        let (version, finished) = (self.version(), self.stage.is_finished());
        let keep = self.is_sealed();
        self.feed.publish(version, at_ms, finished, updates, keep);
    }

    /// The views after a change, for every viewer, with the clocks as of
    /// `at_ms` (what a replay of the log shows at the same place); `None`
    /// each when no watcher wants views, unless the match is sealed (its
    /// events are kept, views and all, and its views need no plugin).
    fn views_at(&self, at_ms: i64) -> HostResult<Vec<Option<Arc<MatchView>>>> {
        let wanted = self.feed.wants_views() || self.is_sealed();
        self.viewers()
            .map(|viewer| {
                if !wanted {
                    return Ok(None);
                }
                let view = self.view_as_of(viewer, ViewDetail::Full, at_ms)?;
                Ok(Some(Arc::new(view)))
            })
            .collect()
    }

    /// Publishes a move or a chance outcome, described by the game to each
    /// viewer from `before` (the state before it, taken only while someone
    /// watches). A transition that ends the game finishes the match first.
    pub(crate) fn publish_transition(
        &mut self,
        before: Option<Box<dyn DynState>>,
        transition: Transition,
        at_ms: i64,
    ) -> HostResult<()> {
        // The transition that ends the match must carry the finished view
        // (state and results), not the last running one.
        if !self.stage.is_finished() && self.state.status()? == Status::Terminal {
            self.finish_normally()?;
        }
        let Some(before) = before else {
            self.publish(at_ms, None);
            return Ok(());
        };
        let views = self.views_at(at_ms)?;
        let mut updates = Vec::with_capacity(views.len());
        for (viewer, view) in self.viewers().zip(views) {
            updates.push(ViewerUpdate::Transition {
                event_json: self.state.event(before.as_ref(), &transition, viewer)?,
                view,
            });
        }
        self.publish(at_ms, Some(updates));
        Ok(())
    }

    /// Publishes what the host says happened: every viewer is told the same.
    pub(crate) fn publish_host_event(&mut self, event: &HostEvent, at_ms: i64) -> HostResult<()> {
        if !self.feed.is_watched() && !self.is_sealed() {
            self.publish(at_ms, None);
            return Ok(());
        }
        let event_json = event.to_json();
        let updates = self
            .views_at(at_ms)?
            .into_iter()
            .map(|view| ViewerUpdate::Transition {
                event_json: event_json.clone(),
                view,
            })
            .collect();
        self.publish(at_ms, Some(updates));
        Ok(())
    }

    /// Publishes that `seat` acted in a simultaneous turn (not what it
    /// chose).
    pub(crate) fn publish_seat_acted(&mut self, seat: Player, at_ms: i64) -> HostResult<()> {
        let updates = self.feed.is_watched().then(|| {
            self.viewers()
                .map(|_| ViewerUpdate::SeatActed { seat })
                .collect()
        });
        self.publish(at_ms, updates);
        Ok(())
    }

    /// A copy of the state before a change, only when someone watches (events
    /// need it; unwatched matches skip the clone).
    pub(crate) fn snapshot_if_watched(&self) -> HostResult<Option<Box<dyn DynState>>> {
        if !self.feed.is_watched() {
            return Ok(None);
        }
        Ok(Some(self.state.clone_state()?))
    }
}
