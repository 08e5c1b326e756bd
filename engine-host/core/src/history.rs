//! A match's history: every event any viewer was or will be told, rebuilt
//! from what the store keeps (the log, the seats taken after creation, the
//! actions held for the current turn).
//!
//! An event for a viewer is a pure function of those and the viewer, so the
//! host never keeps past events: a watcher that starts late, resumes after
//! a restart or falls behind gets them by a walk through the log, the same
//! walk that restores a stored match. The walk makes each change through
//! the same code the live match does (the same publishing, so the same
//! sequence numbers) and reads each view with the clocks as of the event's
//! time, so a replayed event equals the live one byte for byte.
//!
//! Where events fall in the walk: a match's first entries are the chance
//! outcomes drawn at creation; seats taken later come after them (a waiting
//! match takes no action); every log entry is one event; a move held for a
//! simultaneous turn is one more, at the version it was submitted at
//! ([`LoggedMove::held`](crate::LoggedMove::held)).

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tabletop_sdk::{DynGame, DynState, Move, Status, Transition, Viewer};

use crate::Match;
use crate::error::{HostError, HostResult};
use crate::fanout::{HostEvent, ViewerEvent, ViewerUpdate};
use crate::log::{LogEntry, LogKind};
use crate::out::OutReason;
use crate::setup::{Lifecycle, MatchSetup};
use crate::simultaneous::HeldAction;
use crate::view::{MatchView, ViewDetail};

/// A seat taken after the match was created.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatJoin {
    /// The seat.
    pub seat: u32,
    /// When, ms since the Unix epoch.
    pub at_ms: i64,
    /// The name the joining player gave.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub display_name: String,
    /// The platform's id the joining player gave.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub external_id: String,
    /// The spec of the host's bot that took the seat; empty for a client.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub bot: String,
}

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
    /// A seat joined, resigned, ran out of time or was taken out.
    Host { event: HostEvent, at_ms: i64 },
    /// A seat's action was held for a simultaneous turn.
    SeatActed { seat: u32, at_ms: i64 },
}

impl Happening {
    fn at_ms(&self) -> i64 {
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
type Sink<'s> = dyn FnMut(&Match, Happening) -> HostResult<ControlFlow<()>> + 's;

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

    /// The seats taken after creation, in the order they were taken.
    pub fn joins(&self) -> &[SeatJoin] {
        &self.joins
    }

    /// Everything the match's past events are made from, copied so that
    /// they can be regenerated without holding the match.
    pub fn history(&self) -> History {
        History {
            game: Arc::clone(&self.game),
            setup: self.setup.clone(),
            token_hashes: self.seats.iter().map(|s| s.token_hash).collect(),
            joins: self.joins.clone(),
            log: self.log.clone(),
            pending: self.pending.clone(),
            last_seq: self.event_seq,
        }
    }

    /// The match as `viewer` saw it right after `version` (0: as created),
    /// with its clocks as of that entry's time (or of the last seat taken,
    /// if later). It is replayed from the log through the match's own
    /// plugin, so the answer is the same whenever it is asked for: what a
    /// replay scrubber shows. A spectator of a match under a spectator
    /// delay may ask only for the versions the delay shows now
    /// ([`Match::spectator_horizon`]). `detail` says how much it carries.
    pub fn view_at_version(
        &self,
        viewer: Viewer,
        version: u64,
        detail: ViewDetail,
    ) -> HostResult<MatchView> {
        // First, so that a spectator's refusal does not tell the live version.
        if viewer == Viewer::Spectator {
            self.spectator_horizon(crate::now_ms())
                .check_version(version)?;
        }
        let current = self.version();
        if version > current {
            return Err(HostError::InvalidRequest(format!(
                "version {version} is beyond the match's current version {current}"
            )));
        }
        self.replayed_view(viewer, version, detail)
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
            token_hashes: self.seats.iter().map(|s| s.token_hash).collect(),
            joins: &self.joins,
            log: &self.log[..version as usize],
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
        let mut at_creation = token_hashes.clone();
        for join in joins {
            let Some(slot) = at_creation.get_mut(join.seat as usize) else {
                return Err(HostError::InvalidRecord(format!(
                    "seat {} joined, but the match has {} seats",
                    join.seat, setup.players
                )));
            };
            *slot = None;
        }
        let mut holds = holds_by_version(log, pending)?;
        let mut m = Match::fresh(game, setup, at_creation)?;
        let creation = log
            .iter()
            .take_while(|e| matches!(e.kind, LogKind::Chance { .. }))
            .count();
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
                if index == creation {
                    for join in joins {
                        let hash = token_hashes[join.seat as usize].ok_or_else(|| {
                            HostError::InvalidRecord(format!(
                                "seat {} joined but holds no token",
                                join.seat
                            ))
                        })?;
                        m.take_seat(join.clone(), hash)?;
                        let event = HostEvent::Joined { seat: join.seat };
                        if sink(
                            &m,
                            Happening::Host {
                                event,
                                at_ms: join.at_ms,
                            },
                        )?
                        .is_break()
                        {
                            return Ok(m);
                        }
                    }
                }
                for held in holds.remove(&(index as u64)).unwrap_or_default() {
                    if !m.movers()?.contains(held.seat) || m.has_held(held.seat) {
                        return Err(HostError::InvalidRecord(format!(
                            "seat {} holds an action at version {index}, where it is not to move",
                            held.seat
                        )));
                    }
                    m.push_held(held)?;
                    let (seat, at_ms) = (held.seat, held.at_ms);
                    if sink(&m, Happening::SeatActed { seat, at_ms })?.is_break() {
                        return Ok(m);
                    }
                }
            }
            let Some(entry) = entry else { break };
            let fail = |why: String| {
                HostError::InvalidRecord(format!(
                    "action {} (version {}) does not replay: {why}",
                    index + 1,
                    entry.version
                ))
            };
            if entry.version != index as u64 + 1 {
                return Err(fail(format!(
                    "expected version {}, found {}",
                    index + 1,
                    entry.version
                )));
            }
            let describe = m.event_seq + 1 > describe_after;
            let at_ms = entry.at_ms;
            let happened = match &entry.kind {
                LogKind::Moves { moves } => {
                    if !matches!(m.state.status()?, Status::ToMove(_)) {
                        return Err(fail("no seat is to move here".into()));
                    }
                    let before = describe.then(|| m.state.clone_state()).transpose()?;
                    let mut joint: Vec<Move> = moves
                        .iter()
                        .map(|logged| Move {
                            player: logged.seat,
                            action: logged.action,
                        })
                        .collect();
                    joint.sort_by_key(|mv| mv.player);
                    m.state.apply(&joint).map_err(|e| fail(e.message))?;
                    m.pending.clear();
                    for logged in moves {
                        m.charge(logged.seat, logged.at_ms);
                    }
                    m.log.push(entry.clone());
                    if notes_rule_outs {
                        // As live, so a restored match reports no rule-out
                        // twice.
                        m.note_rule_outs()?;
                    }
                    m.start_clocks(at_ms)?;
                    let transition = Transition::Moves(joint);
                    m.publish_transition(None, transition.clone(), at_ms)?;
                    clock_start = Some(at_ms);
                    Happening::Described {
                        before,
                        transition,
                        at_ms,
                    }
                }
                LogKind::Chance { outcome } => {
                    if m.state.status()? != Status::Chance {
                        return Err(fail("this is not a chance node".into()));
                    }
                    let before = describe.then(|| m.state.clone_state()).transpose()?;
                    m.state
                        .apply_chance(*outcome)
                        .map_err(|e| fail(e.message))?;
                    m.chance_draws += 1;
                    m.log.push(entry.clone());
                    let transition = Transition::Chance(*outcome);
                    m.publish_transition(None, transition.clone(), at_ms)?;
                    Happening::Described {
                        before,
                        transition,
                        at_ms,
                    }
                }
                LogKind::Resign { seat } => {
                    if *seat >= m.setup.players {
                        return Err(fail(format!("no seat {seat}")));
                    }
                    if m.lifecycle == Lifecycle::Finished {
                        return Err(fail("the match was already over".into()));
                    }
                    m.end_by_resignation(*seat, at_ms)?;
                    let event = HostEvent::Resigned { seat: *seat };
                    Happening::Host { event, at_ms }
                }
                LogKind::Timeout { seat } => {
                    if *seat >= m.setup.players {
                        return Err(fail(format!("no seat {seat}")));
                    }
                    if m.lifecycle == Lifecycle::Finished {
                        return Err(fail("the match was already over".into()));
                    }
                    m.lose_on_time(*seat, at_ms)?;
                    let event = HostEvent::Timeout { seat: *seat };
                    Happening::Host { event, at_ms }
                }
                LogKind::Out { seat } => {
                    if *seat >= m.setup.players {
                        return Err(fail(format!("no seat {seat}")));
                    }
                    if m.lifecycle == Lifecycle::Finished {
                        return Err(fail("the match was already over".into()));
                    }
                    m.state.remove_player(*seat).map_err(|e| fail(e.message))?;
                    m.take_out(*seat, OutReason::Clock, at_ms)?;
                    clock_start = Some(at_ms);
                    let event = HostEvent::Out { seat: *seat };
                    Happening::Host { event, at_ms }
                }
                LogKind::ResignOut { seat } => {
                    if *seat >= m.setup.players {
                        return Err(fail(format!("no seat {seat}")));
                    }
                    if m.lifecycle != Lifecycle::Running {
                        return Err(fail("the match was not running".into()));
                    }
                    m.state.remove_player(*seat).map_err(|e| fail(e.message))?;
                    m.seats[*seat as usize].resigned = true;
                    m.take_out(*seat, OutReason::Resigned, at_ms)?;
                    clock_start = Some(at_ms);
                    let event = HostEvent::ResignedOut { seat: *seat };
                    Happening::Host { event, at_ms }
                }
                LogKind::Abort { .. }
                | LogKind::Adjudicate { .. }
                | LogKind::Pause
                | LogKind::Resume
                | LogKind::AddTime { .. }
                | LogKind::Absent { .. } => {
                    let event = m
                        .direct(&entry.kind, at_ms)
                        .map_err(|e| fail(e.to_string()))?;
                    m.log.push(entry.clone());
                    m.publish_host_event(&event, at_ms)?;
                    Happening::Host { event, at_ms }
                }
            };
            if m.log.len() != index + 1 {
                return Err(fail("it did not log as itself".into()));
            }
            if m.lifecycle != Lifecycle::Finished && m.state.status()? == Status::Terminal {
                m.finish_normally()?;
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

/// How many moves of `log` were held for a simultaneous turn at a version
/// before `version`: the events told between the entries up to it.
pub(crate) fn held_before(log: &[LogEntry], version: u64) -> u64 {
    // A move is held at most `u8::MAX` entries before the one that logs it.
    let reach = (version as usize)
        .saturating_add(usize::from(u8::MAX) + 1)
        .min(log.len());
    log[..reach]
        .iter()
        .filter_map(|entry| match &entry.kind {
            LogKind::Moves { moves } => Some((entry.version, moves)),
            _ => None,
        })
        .flat_map(|(at, moves)| {
            moves.iter().filter_map(move |m| {
                m.held
                    .map(|between| at.saturating_sub(1 + u64::from(between)))
            })
        })
        .filter(|&held_at| held_at < version)
        .count() as u64
}

/// Everything a match's past events are made from (see [`Match::history`]).
pub struct History {
    game: Arc<dyn DynGame>,
    setup: MatchSetup,
    token_hashes: Vec<Option<[u8; 32]>>,
    joins: Vec<SeatJoin>,
    log: Vec<LogEntry>,
    pending: Vec<HeldAction>,
    last_seq: u64,
}

impl std::fmt::Debug for History {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("History")
            .field("match_id", &self.setup.match_id)
            .field("last_seq", &self.last_seq)
            .finish_non_exhaustive()
    }
}

impl History {
    /// The sequence number of the last event it holds.
    pub fn last_seq(&self) -> u64 {
        self.last_seq
    }

    /// The sequence number of the event that produced `version` (0 for
    /// version 0): a watcher that saw that version resumes after it.
    pub fn seq_of_version(&self, version: u64) -> HostResult<u64> {
        if version == 0 {
            return Ok(0);
        }
        let current = self.log.len() as u64;
        if version > current {
            return Err(HostError::InvalidRequest(format!(
                "version {version} is beyond the match's current version {current}"
            )));
        }
        let mut seq = 0;
        self.walk_until(
            &mut |m, happened| {
                let entry_event = !matches!(happened, Happening::SeatActed { .. })
                    && !matches!(
                        happened,
                        Happening::Host {
                            event: HostEvent::Joined { .. },
                            ..
                        }
                    );
                if entry_event && m.version() == version {
                    seq = m.event_seq;
                    return Ok(ControlFlow::Break(()));
                }
                Ok(ControlFlow::Continue(()))
            },
            u64::MAX,
        )?;
        Ok(seq)
    }

    /// Up to `limit` events after `after_seq`, as `viewer` was told them,
    /// each with its view when `with_views`.
    pub fn events(
        &self,
        viewer: Viewer,
        after_seq: u64,
        limit: usize,
        with_views: bool,
    ) -> HostResult<Vec<ViewerEvent>> {
        let mut events = Vec::new();
        if limit == 0 || after_seq >= self.last_seq {
            return Ok(events);
        }
        let last_seq = self.last_seq;
        self.walk_until(
            &mut |m, happened| {
                let seq = m.event_seq;
                if seq <= after_seq {
                    return Ok(ControlFlow::Continue(()));
                }
                let at_ms = happened.at_ms();
                let view = |m: &Match| -> HostResult<Option<Arc<MatchView>>> {
                    Ok(if with_views {
                        Some(Arc::new(m.view_as_of(viewer, ViewDetail::Full, at_ms)?))
                    } else {
                        None
                    })
                };
                let update = match happened {
                    Happening::Described {
                        before, transition, ..
                    } => {
                        let before = before.ok_or_else(|| {
                            HostError::Internal("an event to describe lacks its state".into())
                        })?;
                        ViewerUpdate::Transition {
                            event_json: m.state.event(before.as_ref(), &transition, viewer)?,
                            view: view(m)?,
                        }
                    }
                    Happening::Host { event, .. } => ViewerUpdate::Transition {
                        event_json: event.to_json(),
                        view: view(m)?,
                    },
                    Happening::SeatActed { seat, .. } => ViewerUpdate::SeatActed { seat },
                };
                events.push(ViewerEvent {
                    seq,
                    version: m.version(),
                    at_ms,
                    finished: !matches!(update, ViewerUpdate::SeatActed { .. })
                        && m.lifecycle == Lifecycle::Finished,
                    update,
                });
                if events.len() >= limit || seq >= last_seq {
                    return Ok(ControlFlow::Break(()));
                }
                Ok(ControlFlow::Continue(()))
            },
            after_seq,
        )?;
        Ok(events)
    }

    fn walk_until(&self, sink: &mut Sink<'_>, describe_after: u64) -> HostResult<()> {
        let chronicle = Chronicle {
            token_hashes: self.token_hashes.clone(),
            joins: &self.joins,
            log: &self.log,
            pending: &self.pending,
            notes_rule_outs: false,
        };
        Match::walk(
            Arc::clone(&self.game),
            self.setup.clone(),
            chronicle,
            describe_after,
            sink,
        )?;
        Ok(())
    }
}
