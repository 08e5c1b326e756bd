//! A director's controls over a match (abort, adjudicate, pause, resume,
//! add time), the host's quarantine and the admin's release of it, and the
//! open-seat deadline. The controls' own state and the checks of their
//! arguments are [`crate::director`]'s; what a control does to the seats,
//! the clocks, the stage and the held turn is coordinated here, in one
//! function (`Match::direct`) used both live and when the log is replayed.
//!
//! While a match is quarantined only an abort, an adjudication and the
//! release apply; none of them calls the plugin.

use std::ops::ControlFlow;
use std::sync::Arc;

use tabletop_sdk::{DynGame, Player, Status};

use super::Match;
use super::replaying::Chronicle;
use crate::clock::AddRefused;
use crate::director::{
    OnDeadline, capped_reason, check_abort_reason, check_added_ms, check_results, refused,
};
use crate::error::{HostError, HostResult};
use crate::fanout::HostEvent;
use crate::log::{LogKind, PluginBuild};
use crate::out::OutReason;
use crate::seat::SeatResult;
use crate::stage::Lifecycle;

impl Match {
    /// Ends the match at `at_ms` without a result.
    pub fn abort(&mut self, reason: &str, at_ms: i64) -> HostResult<()> {
        check_abort_reason(reason)?;
        self.control(
            LogKind::Abort {
                reason: reason.to_string(),
            },
            at_ms,
        )
    }

    /// Ends the running match at `at_ms` with `results`: one per seat, ranks
    /// from 1 (equal ranks share a place).
    pub fn adjudicate(&mut self, mut results: Vec<SeatResult>, at_ms: i64) -> HostResult<()> {
        results.sort_by_key(|r| r.seat);
        self.control(LogKind::Adjudicate { results }, at_ms)
    }

    /// Stops the running match's clocks at `at_ms`; actions are refused
    /// until [`Match::resume`].
    pub fn pause(&mut self, at_ms: i64) -> HostResult<()> {
        self.control(LogKind::Pause, at_ms)
    }

    /// Restarts the paused match's clocks at `at_ms`, each where it stopped.
    pub fn resume(&mut self, at_ms: i64) -> HostResult<()> {
        self.control(LogKind::Resume, at_ms)
    }

    /// Quarantines the match at `at_ms` (the host does, when the plugin's
    /// worker died in one of the match's calls): its clocks stop like a
    /// pause's, actions, resignations and joins are refused with
    /// [`HostError::MatchQuarantined`], no bot moves, and nothing calls the
    /// plugin for the match any more ([`Match::is_sealed`]). `reason` is
    /// cut to [`MAX_ABORT_REASON`](crate::director::MAX_ABORT_REASON)
    /// bytes. Refused ([`HostError::ControlRefused`]) for a match already
    /// quarantined or finished. A director may abort or adjudicate it; the
    /// admin may [`Match::release`] it.
    pub fn quarantine(&mut self, reason: &str, at_ms: i64) -> HostResult<()> {
        let reason = capped_reason(reason);
        self.control(LogKind::Quarantine { reason }, at_ms)
    }

    /// Lifts the quarantine at `at_ms`: play goes on where it stopped, the
    /// clocks restarting where they stopped unless a director's pause still
    /// holds them. Refused ([`HostError::ControlRefused`]) for a match that
    /// is not quarantined.
    pub fn release(&mut self, at_ms: i64) -> HostResult<()> {
        self.control(LogKind::Release { build: None }, at_ms)
    }

    /// Lifts the quarantine at `at_ms` as [`Match::release`] does, the match
    /// playing on with `game`, another build of its game (`build` names it:
    /// a fixed one). The whole log is replayed through it first; if an
    /// entry does not replay, the error names it and the match stays
    /// quarantined with the build it had.
    pub fn release_to(
        &mut self,
        game: Arc<dyn DynGame>,
        build: PluginBuild,
        at_ms: i64,
    ) -> HostResult<()> {
        if !self.is_quarantined() {
            return Err(refused("the match is not quarantined"));
        }
        if game.manifest().name != self.setup.game {
            return Err(refused(format!(
                "{} is not a build of {}",
                game.manifest().name,
                self.setup.game
            )));
        }
        let mut setup = self.setup.clone();
        setup.plugin_version = build.version.clone();
        setup.plugin_sha256 = build.sha256.clone();
        let chronicle = Chronicle {
            token_hashes: self.seats.token_hashes(),
            joins: self.seats.joins(),
            log: self.log.entries(),
            pending: self.held.all(),
            notes_rule_outs: true,
        };
        let replayed = Match::walk(game, setup, chronicle, u64::MAX, &mut |_, _| {
            Ok(ControlFlow::Continue(()))
        })?;
        let game = std::mem::replace(&mut self.game, replayed.game);
        let state = std::mem::replace(&mut self.state, replayed.state);
        let setup = std::mem::replace(&mut self.setup, replayed.setup);
        if let Err(refusal) = self.control(LogKind::Release { build: Some(build) }, at_ms) {
            self.game = game;
            self.state = state;
            self.setup = setup;
            return Err(refusal);
        }
        self.legal.forget();
        Ok(())
    }

    /// Gives `seat` `ms` more time at `at_ms`: on its bank, or on its
    /// current move when the match has no bank.
    pub fn add_time(&mut self, seat: Player, ms: i64, at_ms: i64) -> HostResult<()> {
        // Checked here rather than where a log's AddTime is applied, so a
        // log written before the rule-out was noted still replays.
        if self.seats.is_ruled_out(seat) {
            return Err(refused(format!(
                "{} is out of the game by its rules",
                self.seat_label(seat)
            )));
        }
        self.control(LogKind::AddTime { seat, ms }, at_ms)
    }

    /// Applies the open-seat deadline if it has passed by `now` with seats
    /// still open; returns whether it did.
    pub(crate) fn expire_open_seats(&mut self, now: i64) -> HostResult<bool> {
        let Some(deadline) = self.setup.open_seat_deadline else {
            return Ok(false);
        };
        // A quarantined match's deadline waits, like its clocks: starting
        // without the absent seats would call the plugin.
        if !self.stage.is_waiting() || now < deadline.at_ms || self.is_quarantined() {
            return Ok(false);
        }
        let absent = self.seats.open();
        let present = self.setup.players as usize - absent.len();
        let kind = match deadline.on_deadline {
            OnDeadline::StartWithout if present > 0 => LogKind::Absent { seats: absent },
            _ => LogKind::Abort {
                reason: "the open seats were not taken by the deadline".into(),
            },
        };
        self.control(kind, deadline.at_ms)?;
        Ok(true)
    }

    /// Applies a control live: checked and applied, logged, told to
    /// watchers.
    fn control(&mut self, kind: LogKind, at_ms: i64) -> HostResult<()> {
        let event = self.direct(&kind, at_ms)?;
        self.log.push(at_ms, kind);
        self.publish_host_event(&event, at_ms)
    }

    /// Checks a director's control against the match and applies it (not
    /// its log entry): the one place a control changes a match, live or
    /// replayed. Returns what watchers are told.
    pub(crate) fn direct(&mut self, kind: &LogKind, at_ms: i64) -> HostResult<HostEvent> {
        if self.stage.is_finished() {
            if let LogKind::Quarantine { .. } = kind {
                return Err(refused("the match is over"));
            }
            return Err(HostError::MatchOver {
                clock_ran_out: false,
            });
        }
        // A second quarantine is the director part's to refuse.
        let applies_in_quarantine = matches!(
            kind,
            LogKind::Abort { .. }
                | LogKind::Adjudicate { .. }
                | LogKind::Release { .. }
                | LogKind::Quarantine { .. }
        );
        if let Some(reason) = self.quarantine_reason()
            && !applies_in_quarantine
        {
            return Err(refused(format!(
                "the match is quarantined ({reason}): abort or adjudicate it, or lift the \
                 quarantine first"
            )));
        }
        match kind {
            LogKind::Abort { reason } => {
                self.director.note_abort(reason);
                self.end(Vec::new());
                Ok(HostEvent::Aborted {
                    reason: reason.clone(),
                })
            }
            LogKind::Adjudicate { results } => {
                self.check_running("adjudicate")?;
                check_results(results, self.setup.players)?;
                let results: Vec<SeatResult> = results
                    .iter()
                    .map(|r| SeatResult {
                        resigned: self.seats.has_resigned(r.seat),
                        ..*r
                    })
                    .collect();
                self.director.note_adjudication();
                self.end(results.clone());
                Ok(HostEvent::Adjudicated { results })
            }
            LogKind::Pause => {
                self.check_running("pause")?;
                self.director.pause(at_ms)?;
                Ok(HostEvent::Paused)
            }
            LogKind::Resume => {
                if let Some(stopped_at) = self.director.resume()? {
                    self.restart_clocks(stopped_at, at_ms);
                }
                Ok(HostEvent::Resumed)
            }
            LogKind::Quarantine { reason } => {
                self.director.quarantine(reason, at_ms)?;
                // Kept lists would answer for a match that takes no action.
                self.legal.forget();
                Ok(HostEvent::Quarantined {
                    reason: reason.clone(),
                })
            }
            LogKind::Release { .. } => {
                // Seats are taken again, when the log is replayed, before
                // its first entry after creation: a seat taken after a
                // release would be told before the quarantine.
                if self.is_quarantined() && self.stage.is_waiting() {
                    return Err(refused(
                        "the match was quarantined while it waited for players and is not \
                         released: abort it (nothing was played yet)",
                    ));
                }
                if let Some(stopped_at) = self.director.release()? {
                    self.restart_clocks(stopped_at, at_ms);
                }
                // Told again by replaying the log, as every other event.
                self.feed.forget_kept();
                Ok(HostEvent::Released)
            }
            LogKind::AddTime { seat, ms } => {
                self.check_running("add time to")?;
                self.add_to_clock(*seat, *ms)?;
                Ok(HostEvent::TimeAdded {
                    seat: *seat,
                    ms: *ms,
                })
            }
            LogKind::Absent { seats } => self.start_without(seats, at_ms),
            LogKind::Moves { .. }
            | LogKind::Chance { .. }
            | LogKind::Resign { .. }
            | LogKind::ResignOut { .. }
            | LogKind::Timeout { .. }
            | LogKind::Out { .. } => Err(HostError::Internal(
                "a move, chance or seat change is not a director's control".into(),
            )),
        }
    }

    /// The clocks stopped at `stopped_at` run again at `at_ms`: each running
    /// clock restarts where it stopped, its start moved on by the stop.
    fn restart_clocks(&mut self, stopped_at: i64, at_ms: i64) {
        self.clocks
            .delay_running(at_ms.saturating_sub(stopped_at).max(0));
    }

    fn check_running(&self, what: &str) -> HostResult<()> {
        match self.stage.lifecycle() {
            Lifecycle::Running => Ok(()),
            Lifecycle::Waiting => Err(refused(format!(
                "cannot {what} a match that waits for players (abort it instead)"
            ))),
            Lifecycle::Finished => Err(HostError::MatchOver {
                clock_ran_out: false,
            }),
        }
    }

    fn add_to_clock(&mut self, seat: Player, ms: i64) -> HostResult<()> {
        check_added_ms(ms)?;
        let players = self.setup.players;
        if seat >= players {
            return Err(HostError::UnknownSeat { seat, players });
        }
        if self.seats.is_taken_out(seat) {
            return Err(refused(format!(
                "{} is out of the game",
                self.seat_label(seat)
            )));
        }
        self.clocks.add(seat, ms).map_err(|refusal| match refusal {
            AddRefused::NoClock => refused("the match has no clock"),
            AddRefused::NotToMove => refused(format!(
                "the match has time per move only, and {} is not to move",
                self.seat_label(seat)
            )),
        })
    }

    /// The open-seat deadline passed with `absent` seats open: a game that
    /// can remove players and keeps two plays on without them; otherwise
    /// the seats there share first place and the absent ones share last.
    fn start_without(&mut self, absent: &[u32], at_ms: i64) -> HostResult<HostEvent> {
        let players = self.setup.players;
        let open = self.seats.open();
        // An imported record gives every seat a token, so the match it
        // replays runs from its start: the absent seats are then the ones
        // the record names, before anything but chance has happened.
        let imported_start = self.stage.is_running() && self.log.is_chance_only();
        let fits = match self.stage.lifecycle() {
            Lifecycle::Waiting => open.as_slice() == absent,
            _ => imported_start && absent.iter().all(|&seat| seat < players),
        };
        if !fits || absent.is_empty() || absent.len() >= players as usize {
            return Err(HostError::InvalidRecord(format!(
                "absent seats {absent:?} are not the open seats {open:?} of a match that \
                 waits for players"
            )));
        }
        for &seat in absent {
            self.mark_out(seat, OutReason::Absent);
        }
        let present = players as usize - absent.len();
        if self.game.manifest().removable_players && present >= 2 {
            for &seat in absent {
                self.state.remove_player(seat)?;
            }
            self.stage.start();
            if self.state.status()? == Status::Terminal {
                self.finish_normally()?;
                self.clocks.stop();
            } else {
                self.start_clocks(at_ms)?;
            }
        } else {
            let last = present as u32 + 1;
            let results = (0..players)
                .map(|seat| SeatResult {
                    seat,
                    rank: if absent.contains(&seat) { last } else { 1 },
                    score: 0.0,
                    resigned: false,
                })
                .collect();
            self.end(results);
        }
        Ok(HostEvent::Absent {
            seats: absent.to_vec(),
        })
    }
}
