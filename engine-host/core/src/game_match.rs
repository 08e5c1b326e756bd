//! One match: the parts it is made of, and `Match`, which coordinates
//! them.
//!
//! Each part owns its state and keeps its own invariants, behind a small
//! API: the seats ([`Seats`]: holders, identities, resignations, seats
//! out), the life stage and results ([`Stage`]), the log ([`Log`]: entries,
//! versions, chance draws), the held simultaneous turn ([`HeldTurn`]), the
//! clocks ([`Clocks`]), the legal-action cache ([`LegalCache`]), what a
//! director's controls left ([`Director`]) and the live feed ([`Feed`]).
//! No part knows another; the plugin's state and the setup belong to the
//! match itself. A change that concerns several parts (an action applied,
//! a seat out, a control) is made here and in the files beside this one,
//! each about one kind of change:
//!
//! - `acting`: the submit path, sequences, legal actions, bot turns;
//! - `leaving`: resignation, clocks running out, seats taken out;
//! - `directing`: a director's controls and the open-seat deadline;
//! - `watching`: views, the spectator delay, and publishing events;
//! - `replaying`: the walk that makes a logged history again.
//!
//! A `Match` is plain data plus plugin calls: no locking, no I/O, no async.
//! Its owner serialises access and persists what changed.

mod acting;
mod directing;
mod leaving;
pub(crate) mod replaying;
mod watching;

use std::sync::Arc;

use tabletop_sdk::{DynGame, DynState, Player, PlayerSet, Status, Viewer};

use crate::clock::Clocks;
use crate::delay::SpectatorDelay;
use crate::director::Director;
use crate::error::{HostError, HostResult};
use crate::fanout::{Feed, HostEvent, MatchEvent};
use crate::identity::SeatPlayer;
use crate::legal::LegalCache;
use crate::log::{Log, LogEntry};
use crate::out::{OutReason, RuleOut};
use crate::seat::{Seat, SeatJoin, SeatResult, Seats};
use crate::setup::{MatchSetup, now_ms};
use crate::simultaneous::{HeldAction, HeldTurn};
use crate::stage::{Lifecycle, Stage};

/// A match: how it was created, the game and the plugin's state, and the
/// parts that keep the rest (see the module docs).
pub struct Match {
    /// How it was created.
    setup: MatchSetup,
    /// The game it is played with (the plugin version it was created with).
    game: Arc<dyn DynGame>,
    /// The plugin's state after the last log entry.
    state: Box<dyn DynState>,
    /// Where it is in its life, and its results.
    stage: Stage,
    /// The seats.
    seats: Seats,
    /// Every state change so far.
    log: Log,
    /// Actions held for the current simultaneous turn.
    held: HeldTurn,
    /// The seats' clocks (none without a time control).
    clocks: Clocks,
    /// The movers' legal actions, kept once asked for (see [`crate::legal`]).
    legal: LegalCache,
    /// What a director's controls left (see [`crate::director`]).
    director: Director,
    /// The events so far and the live channel (see [`crate::fanout`]).
    feed: Feed,
}

impl std::fmt::Debug for Match {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Match")
            .field("setup", &self.setup)
            .field("version", &self.version())
            .field("lifecycle", &self.lifecycle())
            .finish_non_exhaustive()
    }
}

/// What submitting an action did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Submitted {
    /// The action (and any chance after it) was applied.
    Applied,
    /// Held for a simultaneous turn that waits for other seats.
    Pending,
}

impl Match {
    /// Creates a match from `setup`; resolves any chance nodes at the start.
    /// `token_hashes[i]` is seat i's token hash, None for an open seat.
    pub fn create(
        game: Arc<dyn DynGame>,
        setup: MatchSetup,
        token_hashes: Vec<Option<[u8; 32]>>,
    ) -> HostResult<Match> {
        let mut m = Match::fresh(game, setup, token_hashes)?;
        m.resolve_chance_and_end()?;
        m.start_clocks(m.setup.created_at_ms)?;
        Ok(m)
    }

    /// A match at its start state with no log: waiting while any seat is
    /// open, running otherwise; its clocks set up but not started.
    pub(crate) fn fresh(
        game: Arc<dyn DynGame>,
        setup: MatchSetup,
        token_hashes: Vec<Option<[u8; 32]>>,
    ) -> HostResult<Match> {
        // Resignations and seats taken out are replayed from the log.
        let seats = Seats::new(token_hashes);
        let mut state = game.new_state(
            setup.players,
            &setup.options,
            setup.start_position.as_deref(),
        )?;
        // A fault in one of its calls is reported with the match's id.
        state.set_label(&setup.match_id);
        let stage = Stage::new(seats.any_open());
        let clocks = Clocks::new(setup.time_control, setup.players as usize);
        Ok(Match {
            setup,
            game,
            state,
            stage,
            seats,
            log: Log::default(),
            held: HeldTurn::default(),
            clocks,
            legal: LegalCache::default(),
            director: Director::default(),
            feed: Feed::default(),
        })
    }

    /// Rebuilds a match from its setup, its seats' token hashes (None for an
    /// open seat) and its log (import). Every entry is replayed through the
    /// plugin; the first that fails is named in the error. A stored match,
    /// with its joins and held actions, comes back through
    /// [`Match::restore`].
    pub fn replay(
        game: Arc<dyn DynGame>,
        setup: MatchSetup,
        token_hashes: Vec<Option<[u8; 32]>>,
        log: &[LogEntry],
    ) -> HostResult<Match> {
        Match::restore(game, setup, token_hashes, &[], log, &[])
    }

    /// The game.
    pub fn game(&self) -> &Arc<dyn DynGame> {
        &self.game
    }

    /// How the match was created.
    pub fn setup(&self) -> &MatchSetup {
        &self.setup
    }

    /// The plugin's state now.
    pub(crate) fn state(&self) -> &dyn DynState {
        self.state.as_ref()
    }

    /// Every state change so far, in order (the log a record carries).
    pub fn log(&self) -> &[LogEntry] {
        self.log.entries()
    }

    /// The current version: number of log entries.
    pub fn version(&self) -> u64 {
        self.log.version()
    }

    /// Where the match is in its life.
    pub fn lifecycle(&self) -> Lifecycle {
        self.stage.lifecycle()
    }

    /// The final results; empty until the match is over.
    pub fn results(&self) -> &[SeatResult] {
        self.stage.results()
    }

    /// The seats, in order.
    pub fn seats(&self) -> &[Seat] {
        self.seats.all()
    }

    /// The seats taken after creation, in the order they were taken.
    pub fn joins(&self) -> &[SeatJoin] {
        self.seats.joins()
    }

    /// The seats the game's rules put out while the others played on, in
    /// the order it happened (matches of three or more seats).
    pub fn rule_outs(&self) -> &[RuleOut] {
        self.seats.rule_outs()
    }

    /// The actions held for the current simultaneous turn, in the order
    /// they were submitted.
    pub fn held_actions(&self) -> &[HeldAction] {
        self.held.all()
    }

    /// Whether a director has paused the match.
    pub fn is_paused(&self) -> bool {
        self.director.is_paused()
    }

    /// Why the match is quarantined ([`Match::quarantine`]), or was when a
    /// director ended it: in both cases nothing calls its plugin for it any
    /// more (see [`Match::is_sealed`]).
    pub fn quarantine_reason(&self) -> Option<&str> {
        self.director.quarantine_reason()
    }

    /// Whether the match is quarantined now: not finished, and nothing but
    /// a director's abort or adjudication, or the admin's release, applies.
    pub fn is_quarantined(&self) -> bool {
        self.quarantine_reason().is_some() && !self.stage.is_finished()
    }

    /// Whether the match's plugin is not called for it: it is quarantined,
    /// or a director ended it while it was. The call that killed the
    /// plugin's worker may have been any of the match's (a view, a board,
    /// an event's description, a status after a move), and making it again
    /// would kill the worker again, with the other matches it serves. Views
    /// then show the host's part of the match alone, and its history is
    /// told from the quarantine on (see [`crate::history`]).
    pub fn is_sealed(&self) -> bool {
        self.quarantine_reason().is_some()
    }

    /// A sealed match's events since its quarantine (see
    /// [`crate::fanout`]); empty for any other match.
    pub(crate) fn kept_events(&self) -> &[Arc<MatchEvent>] {
        self.feed.kept()
    }

    /// The refusal of whatever a quarantined match cannot do.
    pub(crate) fn quarantined(&self) -> HostError {
        HostError::MatchQuarantined {
            match_id: self.setup.match_id.clone(),
            reason: self.quarantine_reason().unwrap_or_default().to_owned(),
        }
    }

    /// Why the match was aborted, if it was.
    pub fn abort_reason(&self) -> Option<&str> {
        self.director.abort_reason()
    }

    /// Whether a director decided the match's result.
    pub fn is_adjudicated(&self) -> bool {
        self.director.is_adjudicated()
    }

    /// The sequence number of the last event so far (0: none).
    pub fn event_seq(&self) -> u64 {
        self.feed.seq()
    }

    /// Whether anyone watches the match now.
    pub fn is_watched(&self) -> bool {
        self.feed.is_watched()
    }

    /// The match's spectator delay, if it has one.
    pub fn spectator_delay(&self) -> Option<SpectatorDelay> {
        self.setup.spectator_delay
    }

    /// The position in the game's notation (hidden information included);
    /// refused for a sealed match ([`Match::is_sealed`]).
    pub fn position(&self) -> HostResult<String> {
        if self.is_sealed() {
            return Err(self.quarantined());
        }
        Ok(self.state.position()?)
    }

    /// The seats to move now: none unless the match runs, and none while
    /// it is quarantined (asking would call its plugin).
    pub(crate) fn movers(&self) -> HostResult<PlayerSet> {
        if !self.stage.is_running() || self.is_sealed() {
            return Ok(PlayerSet::EMPTY);
        }
        Ok(match self.state.status()? {
            Status::ToMove(set) => set,
            _ => PlayerSet::EMPTY,
        })
    }

    /// The game's name of `seat`, if the game names its seats.
    pub fn seat_name(&self, seat: Player) -> Option<String> {
        self.game
            .seat_names(self.setup.players)
            .ok()?
            .into_iter()
            .nth(seat as usize)
    }

    /// `seat 1 (B)`: how every message names `seat`.
    pub fn seat_label(&self, seat: Player) -> String {
        tabletop_sdk::seat_label(seat, self.seat_name(seat).as_deref())
    }

    /// Who holds `seat`: as its join said, or as the creation said; an
    /// anonymous player if nobody said.
    pub fn player(&self, seat: u32) -> SeatPlayer {
        self.seats.player(seat, &self.setup.seat_players)
    }

    /// Whether any seat is played by the host's bot.
    pub fn has_bots(&self) -> bool {
        (0..self.setup.players).any(|seat| self.player(seat).is_bot())
    }

    /// Why each seat is out of the game, by seat (`None`: still in). The
    /// host's own reason comes first; a seat the plugin reports out beside
    /// those is out by the game's rules. A sealed match ([`Match::is_sealed`])
    /// asks no plugin: its seats out by the rules are the ones noted as its
    /// turns were played.
    pub fn out_reasons(&self) -> HostResult<Vec<Option<OutReason>>> {
        if self.is_sealed() {
            let noted = self.seats.rule_outs().iter().map(|r| r.seat);
            return Ok(self.seats.out_reasons(noted));
        }
        let out_by_rules = self.state.seats_out()?;
        Ok(self.seats.out_reasons(out_by_rules.iter().map(|o| o.seat)))
    }

    /// The seat whose token is `token`.
    pub fn seat_of(&self, token: &str) -> HostResult<Player> {
        self.seats.holder_of(token)
    }

    /// The viewer for an optional token: empty = spectator.
    pub fn viewer_of(&self, token: &str) -> HostResult<Viewer> {
        if token.is_empty() {
            Ok(Viewer::Spectator)
        } else {
            self.seat_of(token).map(Viewer::Seat)
        }
    }

    /// Gives the taken `seat` the token hashed `token_hash`; returns the
    /// hash it replaces, so a caller whose store refused the change can
    /// put it back.
    pub fn reissue_token(&mut self, seat: Player, token_hash: [u8; 32]) -> HostResult<[u8; 32]> {
        match self.seats.reissue(seat, token_hash)? {
            Some(previous) => Ok(previous),
            None => Err(HostError::InvalidRequest(format!(
                "{} is open: it has no token to re-issue",
                self.seat_label(seat)
            ))),
        }
    }

    /// Takes an open seat (`seat`, or the lowest open one) for `player`
    /// (whose `seat` is ignored).
    pub fn join(
        &mut self,
        seat: Option<Player>,
        token_hash: [u8; 32],
        player: &SeatPlayer,
    ) -> HostResult<Player> {
        if self.is_quarantined() {
            return Err(self.quarantined());
        }
        if !self.stage.is_waiting() {
            return Err(HostError::NoOpenSeat);
        }
        let seat = match seat {
            Some(s) => match self.seats.is_open(s) {
                None => {
                    return Err(HostError::UnknownSeat {
                        seat: s,
                        players: self.setup.players,
                    });
                }
                Some(false) => {
                    return Err(HostError::SeatTaken {
                        seat: s,
                        name: self.seat_name(s),
                    });
                }
                Some(true) => s,
            },
            None => self.seats.first_open().ok_or(HostError::NoOpenSeat)?,
        };
        player.check().map_err(HostError::InvalidRequest)?;
        let join = SeatJoin {
            seat,
            at_ms: now_ms(),
            display_name: player.display_name.clone(),
            external_id: player.external_id.clone(),
            bot: player.bot.clone(),
        };
        self.take_seat(join, token_hash)?;
        Ok(seat)
    }

    /// `join.seat` (open) is taken: the match starts once no seat is
    /// open, and watchers are told.
    pub(crate) fn take_seat(&mut self, join: SeatJoin, token_hash: [u8; 32]) -> HostResult<()> {
        let (seat, at_ms) = (join.seat, join.at_ms);
        if self.seats.take(join, token_hash) {
            self.stage.start();
            self.start_clocks(at_ms)?;
        }
        self.publish_host_event(&HostEvent::Joined { seat }, at_ms)
    }

    /// After a restart: running clocks restart now (the time the host was
    /// down is not charged to anyone).
    pub fn resume_clocks(&mut self, now: i64) {
        // Still paused or quarantined: the stop, too, counts from now.
        self.director.restart_stop(now);
        self.clocks.restart_running(now);
    }

    /// Whether the match has a deadline to watch: a clock while it is not
    /// over, or an open-seat deadline while it waits for players.
    pub fn has_deadline(&self) -> bool {
        match self.stage.lifecycle() {
            Lifecycle::Finished => false,
            Lifecycle::Waiting => self.clocks.exist() || self.setup.open_seat_deadline.is_some(),
            Lifecycle::Running => self.clocks.exist(),
        }
    }

    /// When the first running clock runs out, and whose it is.
    pub fn clock_deadline(&self) -> Option<(i64, Player)> {
        if !self.stage.is_running() || self.director.clocks_stopped() {
            return None;
        }
        self.clocks.deadline()
    }

    /// Time left for `seat` at `now` (a clock stopped by a pause or a
    /// quarantine shows what it had left when it stopped).
    pub(crate) fn clock_remaining(&self, seat: Player, now: i64) -> Option<i64> {
        self.clocks.remaining(seat, self.director.clock_time(now))
    }

    /// Starts the clocks of the seats to move now that are not running (and
    /// have not acted this turn); stops the others. A sealed match's clocks
    /// stay as its quarantine stopped them (it does not know who is to
    /// move without its plugin).
    pub(crate) fn start_clocks(&mut self, at: i64) -> HostResult<()> {
        if !self.clocks.exist() || self.is_sealed() {
            return Ok(());
        }
        let waiting = self.held.waiting(self.movers()?);
        self.clocks.run(at, waiting);
        Ok(())
    }

    /// Records `seat` as out for `reason` (the first reason stays) and stops
    /// its clock for good, its bank emptied.
    pub(crate) fn mark_out(&mut self, seat: Player, reason: OutReason) {
        self.seats.take_out(seat, reason);
        self.clocks.retire(seat);
    }

    /// The plugin's state is terminal: the match finishes with the results
    /// the game gives.
    pub(crate) fn finish_normally(&mut self) -> HostResult<()> {
        let results = self.state.results()?;
        if results.len() != self.setup.players as usize {
            return Err(HostError::Internal(format!(
                "plugin returned {} results for {} seats",
                results.len(),
                self.setup.players
            )));
        }
        let results = results
            .iter()
            .enumerate()
            .map(|(seat, r)| SeatResult {
                seat: seat as u32,
                rank: r.rank,
                score: r.score,
                // A seat that resigned in a match that played on.
                resigned: self.seats.has_resigned(seat as Player),
            })
            .collect();
        self.stage.finish(results);
        Ok(())
    }

    /// The match ends with `results` (none: aborted) and nobody plays on:
    /// the turn's held actions are dropped and every clock stops.
    pub(crate) fn end(&mut self, results: Vec<SeatResult>) {
        self.stage.finish(results);
        self.held.clear();
        self.clocks.stop();
    }
}
