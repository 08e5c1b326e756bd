//! Replaying: the walk that makes a match's logged history again, from
//! creation, each change through the code the live match used (so the same
//! publishing, the same sequence numbers, the same clocks). It restores a
//! stored match, shows the match as it was at a version, and gives
//! [`crate::history`] every past event. Each kind of log entry is made
//! again by a function of its own; the walk orders them as they happened
//! live (see [`crate::history`] for where events fall).

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::sync::Arc;

use tabletop_sdk::{DynGame, DynState, Move, Player, Status, Transition, Viewer};

use super::Match;
use crate::error::{HostError, HostResult};
use crate::fanout::{HostEvent, ViewerUpdate};
use crate::log::{LogEntry, LogKind, LoggedMoves, creation_entries};
use crate::out::OutReason;
use crate::seat::SeatJoin;
use crate::setup::{MatchSetup, now_ms};
use crate::simultaneous::HeldAction;
use crate::view::{MatchView, ViewDetail};

/// What a walk through the history reached, as it leaves the match right
/// after it.
pub(crate) enum Happening {
    /// A move or a chance outcome: the game describes it. `before` is the
    /// state before it, when the walk was asked to describe it.
    Described {
        before: Option<Box<dyn DynState>>,
        transition: Transition,
        at_ms: i64,
    },
    /// A seat joined, resigned, ran out of time or was taken out, or a
    /// director's control.
    Host { event: HostEvent, at_ms: i64 },
    /// A seat's action was held for a simultaneous turn.
    SeatActed { seat: u32, at_ms: i64 },
}

impl Happening {
    /// When it happened.
    pub(crate) fn at_ms(&self) -> i64 {
        match self {
            Happening::Described { at_ms, .. }
            | Happening::Host { at_ms, .. }
            | Happening::SeatActed { at_ms, .. } => *at_ms,
        }
    }
}

/// What a walk goes through: everything the store keeps of a match beside
/// its setup.
pub(crate) struct Chronicle<'a> {
    /// Every seat's token hash now (None: still open).
    pub token_hashes: Vec<Option<[u8; 32]>>,
    /// The seats taken after creation, in order.
    pub joins: &'a [SeatJoin],
    /// The log.
    pub log: &'a [LogEntry],
    /// The actions held for the current turn, in submission order.
    pub pending: &'a [HeldAction],
    /// Whether the rebuilt match notes the seats its turns put out by the
    /// game's rules: only a restored match plays on and reports them to the
    /// feed, and noting them costs a plugin call a turn that a replay for a
    /// view or for events need not pay.
    pub notes_rule_outs: bool,
}

/// Called once per event, with the match right after it; breaks to stop.
pub(crate) type Sink<'s> = dyn FnMut(&Match, Happening) -> HostResult<ControlFlow<()>> + 's;

/// The error for log entry `index` that does not replay, and why.
struct NotReplayed<'a> {
    index: usize,
    entry: &'a LogEntry,
}

impl NotReplayed<'_> {
    fn because(&self, why: impl std::fmt::Display) -> HostError {
        HostError::InvalidRecord(format!(
            "action {} (version {}) does not replay: {why}",
            self.index + 1,
            self.entry.version
        ))
    }
}

impl Match {
    /// Rebuilds a stored match: its setup, every seat's token hash (None
    /// for a seat still open), the seats taken after creation, its log and
    /// the actions held for the current turn. Every entry is replayed
    /// through the plugin; the first that fails is named in the error.
    pub fn restore(
        game: Arc<dyn DynGame>,
        setup: MatchSetup,
        token_hashes: Vec<Option<[u8; 32]>>,
        joins: &[SeatJoin],
        log: &[LogEntry],
        pending: &[HeldAction],
    ) -> HostResult<Match> {
        let chronicle = Chronicle {
            token_hashes,
            joins,
            log,
            pending,
            notes_rule_outs: true,
        };
        Match::walk(game, setup, chronicle, u64::MAX, &mut |_, _| {
            Ok(ControlFlow::Continue(()))
        })
    }

    /// The match as `viewer` saw it right after `version` (0: as created),
    /// with its clocks as of that entry's time (or of the last seat taken,
    /// if later). It is replayed from the log through the match's own
    /// plugin, so the answer is the same whenever it is asked for: what a
    /// replay scrubber shows. A spectator of a match under a spectator
    /// delay may ask only for the versions the delay shows now
    /// ([`Match::spectator_horizon`]). `detail` says how much it carries.
    ///
    /// A sealed match ([`Match::is_sealed`]) replays nothing: it answers
    /// the versions from its quarantine on from the events it kept, and
    /// refuses earlier ones with [`HostError::MatchQuarantined`].
    pub fn view_at_version(
        &self,
        viewer: Viewer,
        version: u64,
        detail: ViewDetail,
    ) -> HostResult<MatchView> {
        // First, so that a spectator's refusal does not tell the live version.
        if viewer == Viewer::Spectator {
            self.spectator_horizon(now_ms()).check_version(version)?;
        }
        let current = self.version();
        if version > current {
            return Err(HostError::InvalidRequest(format!(
                "version {version} is beyond the match's current version {current}"
            )));
        }
        if self.is_sealed() {
            return self.kept_view(viewer, version, detail);
        }
        self.replayed_view(viewer, version, detail)
    }

    /// A sealed match's view right after `version`, from the event that
    /// made that version among the ones it kept; refused for a version
    /// before its quarantine.
    fn kept_view(&self, viewer: Viewer, version: u64, detail: ViewDetail) -> HostResult<MatchView> {
        let kept = self.feed.kept().iter().rev().find(|e| e.version == version);
        let view = kept.and_then(|event| match event.for_viewer(viewer).update {
            ViewerUpdate::Transition { view, .. } => view,
            ViewerUpdate::SeatActed { .. } => None,
        });
        let Some(view) = view else {
            return Err(self.quarantined());
        };
        let mut view = MatchView::clone(&view);
        if !detail.has_game_view() {
            view.text.clear();
        }
        Ok(view)
    }

    /// The match as `viewer` saw it right after `version`, replayed (see
    /// [`Match::view_at_version`]); `version` is at most the current one.
    pub(crate) fn replayed_view(
        &self,
        viewer: Viewer,
        version: u64,
        detail: ViewDetail,
    ) -> HostResult<MatchView> {
        let chronicle = Chronicle {
            token_hashes: self.seats.token_hashes(),
            joins: self.seats.joins(),
            log: &self.log.entries()[..version as usize],
            pending: &[],
            notes_rule_outs: false,
        };
        let mut at = self.setup.created_at_ms;
        let past = Match::walk(
            Arc::clone(&self.game),
            self.setup.clone(),
            chronicle,
            u64::MAX,
            &mut |_, happened| {
                at = happened.at_ms();
                Ok(ControlFlow::Continue(()))
            },
        )?;
        past.view_as_of(viewer, detail, at)
    }

    /// Walks the history from creation, making each change the way the
    /// live match made it, and hands every event to `sink`. Describing a
    /// move needs a copy of the state before it, taken only for events
    /// after `describe_after`.
    pub(crate) fn walk(
        game: Arc<dyn DynGame>,
        setup: MatchSetup,
        chronicle: Chronicle<'_>,
        describe_after: u64,
        sink: &mut Sink<'_>,
    ) -> HostResult<Match> {
        let Chronicle {
            token_hashes,
            joins,
            log,
            pending,
            notes_rule_outs,
        } = chronicle;
        let at_creation = seats_at_creation(&token_hashes, joins, setup.players)?;
        let mut holds = holds_by_version(log, pending)?;
        let mut m = Match::fresh(game, setup, at_creation)?;
        let creation = creation_entries(log);
        // Live, a match starts its clocks once the chance at its start is
        // drawn, and after a move once the chance it led to is drawn: at
        // the time of the creation or of the move.
        let mut clock_start = Some(m.setup.created_at_ms);
        for index in 0..=log.len() {
            let entry = log.get(index);
            if !matches!(entry.map(|e| &e.kind), Some(LogKind::Chance { .. })) {
                if let Some(at) = clock_start.take() {
                    m.start_clocks(at)?;
                }
                if index == creation && m.take_seats_again(joins, &token_hashes, sink)?.is_break() {
                    return Ok(m);
                }
                let held = holds.remove(&(index as u64)).unwrap_or_default();
                if m.hold_again(index, held, sink)?.is_break() {
                    return Ok(m);
                }
            }
            let Some(entry) = entry else { break };
            let describe = m.feed.seq() + 1 > describe_after;
            let (happened, restarts_clocks) =
                m.make_again(index, entry, describe, notes_rule_outs)?;
            if restarts_clocks {
                clock_start = Some(entry.at_ms);
            }
            if sink(&m, happened)?.is_break() {
                return Ok(m);
            }
        }
        if let Some((version, held)) = holds.into_iter().next() {
            return Err(HostError::InvalidRecord(format!(
                "seat {} holds an action at version {version}, which the log never reaches \
                 with that seat to move",
                held.first().map_or(0, |h| h.seat)
            )));
        }
        Ok(m)
    }

    /// The seats taken after creation are taken again, in order, each told
    /// to `sink` (they come after the chance drawn at creation).
    fn take_seats_again(
        &mut self,
        joins: &[SeatJoin],
        token_hashes: &[Option<[u8; 32]>],
        sink: &mut Sink<'_>,
    ) -> HostResult<ControlFlow<()>> {
        for join in joins {
            let hash = token_hashes[join.seat as usize].ok_or_else(|| {
                HostError::InvalidRecord(format!("seat {} joined but holds no token", join.seat))
            })?;
            self.take_seat(join.clone(), hash)?;
            let event = HostEvent::Joined { seat: join.seat };
            let at_ms = join.at_ms;
            if sink(self, Happening::Host { event, at_ms })?.is_break() {
                return Ok(ControlFlow::Break(()));
            }
        }
        Ok(ControlFlow::Continue(()))
    }

    /// The actions held at the version after entry `index` are held again,
    /// in submission order, each told to `sink`.
    fn hold_again(
        &mut self,
        index: usize,
        held: Vec<HeldAction>,
        sink: &mut Sink<'_>,
    ) -> HostResult<ControlFlow<()>> {
        for held in held {
            if !self.movers()?.contains(held.seat) || self.held.has(held.seat) {
                return Err(HostError::InvalidRecord(format!(
                    "seat {} holds an action at version {index}, where it is not to move",
                    held.seat
                )));
            }
            self.push_held(held)?;
            let (seat, at_ms) = (held.seat, held.at_ms);
            if sink(self, Happening::SeatActed { seat, at_ms })?.is_break() {
                return Ok(ControlFlow::Break(()));
            }
        }
        Ok(ControlFlow::Continue(()))
    }

    /// Makes log entry `index` again: checked to be the next version and to
    /// log as itself, and the match finished if it leaves the game over.
    /// Returns what happened, and whether the clocks start anew at its time
    /// (once the chance after it is drawn).
    fn make_again(
        &mut self,
        index: usize,
        entry: &LogEntry,
        describe: bool,
        notes_rule_outs: bool,
    ) -> HostResult<(Happening, bool)> {
        let fail = NotReplayed { index, entry };
        if entry.version != index as u64 + 1 {
            return Err(fail.because(format_args!(
                "expected version {}, found {}",
                index + 1,
                entry.version
            )));
        }
        // Live, a quarantined match takes no move and loses no seat: a log
        // that says otherwise was not written by a host, and replaying it
        // would call the plugin. A director's control is for `direct` to
        // refuse or apply.
        let plays = matches!(
            entry.kind,
            LogKind::Moves { .. }
                | LogKind::Chance { .. }
                | LogKind::Resign { .. }
                | LogKind::Timeout { .. }
                | LogKind::Out { .. }
                | LogKind::ResignOut { .. }
        );
        if plays && let Some(reason) = self.quarantine_reason() {
            return Err(fail.because(format_args!("the match is quarantined ({reason})")));
        }
        let at_ms = entry.at_ms;
        // After a move or a seat taken out the next movers' clocks start.
        let restarts_clocks = matches!(
            entry.kind,
            LogKind::Moves { .. } | LogKind::Out { .. } | LogKind::ResignOut { .. }
        );
        let happened = match &entry.kind {
            LogKind::Moves { moves } => {
                self.moves_again(moves, at_ms, describe, notes_rule_outs, &fail)?
            }
            LogKind::Chance { outcome } => self.chance_again(*outcome, at_ms, describe, &fail)?,
            LogKind::Resign { seat }
            | LogKind::Timeout { seat }
            | LogKind::Out { seat }
            | LogKind::ResignOut { seat } => {
                let event = self.seat_change_again(&entry.kind, *seat, at_ms, &fail)?;
                Happening::Host { event, at_ms }
            }
            LogKind::Abort { .. }
            | LogKind::Adjudicate { .. }
            | LogKind::Pause
            | LogKind::Resume
            | LogKind::AddTime { .. }
            | LogKind::Absent { .. }
            | LogKind::Quarantine { .. }
            | LogKind::Release { .. } => {
                let event = self
                    .direct(&entry.kind, at_ms)
                    .map_err(|e| fail.because(e))?;
                self.log.push(at_ms, entry.kind.clone());
                self.publish_host_event(&event, at_ms)?;
                Happening::Host { event, at_ms }
            }
        };
        if self.log.version() != index as u64 + 1 {
            return Err(fail.because("it did not log as itself"));
        }
        // A sealed match's state is not asked; nothing since its quarantine
        // changed it.
        if !self.stage.is_finished()
            && !self.is_sealed()
            && self.state.status()? == Status::Terminal
        {
            self.finish_normally()?;
        }
        Ok((happened, restarts_clocks))
    }

    /// A logged joint action, applied again (each move's clock charged at
    /// its time), logged and published; described when `describe`.
    fn moves_again(
        &mut self,
        moves: &LoggedMoves,
        at_ms: i64,
        describe: bool,
        notes_rule_outs: bool,
        fail: &NotReplayed<'_>,
    ) -> HostResult<Happening> {
        if !matches!(self.state.status()?, Status::ToMove(_)) {
            return Err(fail.because("no seat is to move here"));
        }
        let before = describe.then(|| self.state.clone_state()).transpose()?;
        let mut joint: Vec<Move> = moves
            .iter()
            .map(|logged| Move {
                player: logged.seat,
                action: logged.action,
            })
            .collect();
        joint.sort_by_key(|mv| mv.player);
        self.state
            .apply(&joint)
            .map_err(|e| fail.because(e.message))?;
        self.held.clear();
        for logged in moves {
            self.clocks.charge(logged.seat, logged.at_ms);
        }
        self.log.push(
            at_ms,
            LogKind::Moves {
                moves: moves.clone(),
            },
        );
        if notes_rule_outs {
            // As live, so a restored match reports no rule-out twice.
            self.note_rule_outs()?;
        }
        self.start_clocks(at_ms)?;
        let transition = Transition::Moves(joint);
        self.publish_transition(None, transition.clone(), at_ms)?;
        Ok(Happening::Described {
            before,
            transition,
            at_ms,
        })
    }

    /// A logged chance outcome, applied again, logged and published;
    /// described when `describe`.
    fn chance_again(
        &mut self,
        outcome: u64,
        at_ms: i64,
        describe: bool,
        fail: &NotReplayed<'_>,
    ) -> HostResult<Happening> {
        if self.state.status()? != Status::Chance {
            return Err(fail.because("this is not a chance node"));
        }
        let before = describe.then(|| self.state.clone_state()).transpose()?;
        self.state
            .apply_chance(outcome)
            .map_err(|e| fail.because(e.message))?;
        self.log.push(at_ms, LogKind::Chance { outcome });
        let transition = Transition::Chance(outcome);
        self.publish_transition(None, transition.clone(), at_ms)?;
        Ok(Happening::Described {
            before,
            transition,
            at_ms,
        })
    }

    /// A logged resignation, timeout or seat taken out (`kind`, of `seat`),
    /// made again as the entry says, without deciding again; returns what
    /// watchers were told.
    fn seat_change_again(
        &mut self,
        kind: &LogKind,
        seat: Player,
        at_ms: i64,
        fail: &NotReplayed<'_>,
    ) -> HostResult<HostEvent> {
        if seat >= self.setup.players {
            return Err(fail.because(format_args!("no seat {seat}")));
        }
        if let LogKind::ResignOut { .. } = kind {
            if !self.stage.is_running() {
                return Err(fail.because("the match was not running"));
            }
        } else if self.stage.is_finished() {
            return Err(fail.because("the match was already over"));
        }
        match kind {
            LogKind::Resign { .. } => {
                self.end_by_resignation(seat, at_ms)?;
                Ok(HostEvent::Resigned { seat })
            }
            LogKind::Timeout { .. } => {
                self.lose_on_time(seat, at_ms)?;
                Ok(HostEvent::Timeout { seat })
            }
            LogKind::Out { .. } => {
                self.state
                    .remove_player(seat)
                    .map_err(|e| fail.because(e.message))?;
                self.take_out(seat, OutReason::Clock, at_ms)?;
                Ok(HostEvent::Out { seat })
            }
            _ => {
                self.state
                    .remove_player(seat)
                    .map_err(|e| fail.because(e.message))?;
                self.seats.resign(seat);
                self.take_out(seat, OutReason::Resigned, at_ms)?;
                Ok(HostEvent::ResignedOut { seat })
            }
        }
    }
}

/// Every seat's token hash at creation: the hashes now, with the seats
/// taken after creation open.
fn seats_at_creation(
    token_hashes: &[Option<[u8; 32]>],
    joins: &[SeatJoin],
    players: u32,
) -> HostResult<Vec<Option<[u8; 32]>>> {
    let mut at_creation = token_hashes.to_vec();
    for join in joins {
        let Some(slot) = at_creation.get_mut(join.seat as usize) else {
            return Err(HostError::InvalidRecord(format!(
                "seat {} joined, but the match has {players} seats",
                join.seat
            )));
        };
        *slot = None;
    }
    Ok(at_creation)
}

/// The held actions of a log and of the current turn, by the version they
/// were submitted at, each version's in submission order.
fn holds_by_version(
    log: &[LogEntry],
    pending: &[HeldAction],
) -> HostResult<BTreeMap<u64, Vec<HeldAction>>> {
    let mut holds: BTreeMap<u64, Vec<HeldAction>> = BTreeMap::new();
    for entry in log {
        let LogKind::Moves { moves } = &entry.kind else {
            continue;
        };
        for logged in moves {
            let Some(between) = logged.held else { continue };
            let at_version = entry
                .version
                .checked_sub(1 + u64::from(between))
                .ok_or_else(|| {
                    HostError::InvalidRecord(format!(
                        "version {} holds a move from before the match began",
                        entry.version
                    ))
                })?;
            holds.entry(at_version).or_default().push(HeldAction {
                seat: logged.seat,
                action: logged.action,
                at_ms: logged.at_ms,
                at_version,
            });
        }
    }
    let last = log.len() as u64;
    for held in pending {
        let at_version = if held.at_version == u64::MAX {
            last
        } else {
            held.at_version
        };
        holds.entry(at_version).or_default().push(HeldAction {
            at_version,
            ..*held
        });
    }
    Ok(holds)
}
