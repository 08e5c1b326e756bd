//! One match: its seats, its log, its current state, and the rules of acting
//! (turns, chance, the end). The other parts of a match live
//! beside this file: clocks (`clock`), resignation (`resign`), seats out of
//! the game (`out`), held simultaneous moves
//! (`simultaneous`), shorthand sequences (`sequence`), the legal-action
//! cache (`legal`), event fan-out (`fanout`) and views (`view`).
//!
//! A `Match` is plain data plus plugin calls: no locking, no I/O, no async.
//! Its owner serialises access and persists what changed.

use std::sync::Arc;

use compact_str::CompactString;
use tabletop_sdk::{
    ActionId, Attempt, DynGame, DynState, Move, Player, PlayerSet, Status, Transition, chance,
};

use crate::clock::Clocks;
use crate::error::{HostError, HostResult};
use crate::fanout::Feed;
use crate::history::SeatJoin;
use crate::legal::LegalLists;
use crate::log::{LogEntry, LogKind, LoggedMove, LoggedMoves};
use crate::out::RuleOut;
use crate::seat::{Seat, SeatResult};
use crate::setup::{Lifecycle, MatchSetup, now_ms};
use crate::simultaneous::HeldAction;

/// A match: how it was created, its seats and log, the plugin's state, and
/// the parts that act on them (fields are the crate's own; its owner reads
/// them through accessors).
pub struct Match {
    /// How it was created.
    pub(crate) setup: MatchSetup,
    /// The game it is played with (the plugin version it was created with).
    pub(crate) game: Arc<dyn DynGame>,
    /// The seats.
    pub(crate) seats: Vec<Seat>,
    /// Every state change so far.
    pub(crate) log: Vec<LogEntry>,
    /// The plugin's state after the last log entry.
    pub(crate) state: Box<dyn DynState>,
    /// Actions held for the current simultaneous turn, in submission order.
    pub(crate) pending: Vec<HeldAction>,
    /// Chance outcomes drawn so far: the index of the next draw from the seed.
    pub(crate) chance_draws: u64,
    /// Life stage.
    pub(crate) lifecycle: Lifecycle,
    /// Final results.
    pub(crate) results: Vec<SeatResult>,
    /// Seats taken after creation, in the order they were taken.
    pub(crate) joins: Vec<SeatJoin>,
    /// Events so far: the sequence number of the last one (see
    /// [`crate::history`]).
    pub(crate) event_seq: u64,
    /// The live feed, created on the first watch: its buffer would otherwise
    /// be most of an idle match's memory.
    pub(crate) events: Option<Feed>,
    /// A buffer for legality checks, kept to spare an allocation per action.
    pub(crate) scratch: Vec<ActionId>,
    /// The seats' clocks, if the match has a time control.
    pub(crate) clocks: Option<Clocks>,
    /// The movers' legal actions, kept once asked for (see [`crate::legal`]).
    pub(crate) legal: Option<LegalLists>,
    /// Since when a director has paused the match (see [`crate::director`]).
    pub(crate) paused_at: Option<i64>,
    /// Why a director aborted the match.
    pub(crate) aborted: Option<String>,
    /// Whether a director decided the result.
    pub(crate) adjudicated: bool,
    /// Seats the game's rules put out while the others played on, in the
    /// order it happened (see [`crate::out`]).
    pub(crate) rule_outs: Vec<RuleOut>,
}

impl std::fmt::Debug for Match {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Match")
            .field("setup", &self.setup)
            .field("version", &self.version())
            .field("lifecycle", &self.lifecycle)
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
        let seats: Vec<Seat> = token_hashes
            .into_iter()
            .map(|token_hash| Seat {
                token_hash,
                resigned: false,
                out: None,
            })
            .collect();
        let state = game.new_state(
            setup.players,
            &setup.options,
            setup.start_position.as_deref(),
        )?;
        let lifecycle = if seats.iter().any(|s| s.token_hash.is_none()) {
            Lifecycle::Waiting
        } else {
            Lifecycle::Running
        };
        let clocks = Clocks::new(&setup);
        Ok(Match {
            setup,
            game,
            seats,
            log: Vec::new(),
            state,
            pending: Vec::new(),
            chance_draws: 0,
            lifecycle,
            results: Vec::new(),
            joins: Vec::new(),
            event_seq: 0,
            events: None,
            scratch: Vec::new(),
            clocks,
            legal: None,
            paused_at: None,
            aborted: None,
            adjudicated: false,
            rule_outs: Vec::new(),
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

    /// Every state change so far, in order (the log a record carries).
    pub fn log(&self) -> &[LogEntry] {
        &self.log
    }

    /// Where the match is in its life.
    pub fn lifecycle(&self) -> Lifecycle {
        self.lifecycle
    }

    /// The final results; empty until the match is over.
    pub fn results(&self) -> &[SeatResult] {
        &self.results
    }

    /// The seats, in order.
    pub fn seats(&self) -> &[Seat] {
        &self.seats
    }

    /// The current version: number of log entries.
    pub fn version(&self) -> u64 {
        self.log.len() as u64
    }

    pub(crate) fn movers(&self) -> HostResult<PlayerSet> {
        if self.lifecycle != Lifecycle::Running {
            return Ok(PlayerSet::EMPTY);
        }
        Ok(match self.state.status()? {
            Status::ToMove(set) => set,
            _ => PlayerSet::EMPTY,
        })
    }

    /// Reads an action given as notation.
    pub fn parse_action(&self, seat: Player, notation: &str) -> HostResult<ActionId> {
        self.check_may_act(seat, None)?;
        self.state.parse_action(seat, notation).map_err(|e| {
            crate::refusal::explained(self.state.as_ref(), seat, Attempt::Text(notation), e)
        })
    }

    pub(crate) fn check_may_act(
        &self,
        seat: Player,
        expected_version: Option<u64>,
    ) -> HostResult<()> {
        match self.lifecycle {
            Lifecycle::Waiting => {
                return Err(HostError::NotStarted);
            }
            Lifecycle::Finished => {
                return Err(HostError::MatchOver {
                    clock_ran_out: false,
                });
            }
            Lifecycle::Running => {}
        }
        if self.paused_at.is_some() {
            return Err(HostError::MatchPaused);
        }
        if let Some(expected) = expected_version
            && expected != self.version()
        {
            return Err(HostError::StaleVersion {
                expected,
                current: self.version(),
            });
        }
        if !self.movers()?.contains(seat) {
            return Err(HostError::NotYourTurn {
                seat,
                name: self.seat_name(seat),
            });
        }
        if self.has_held(seat) {
            return Err(HostError::AlreadyActed {
                seat,
                name: self.seat_name(seat),
            });
        }
        Ok(())
    }

    /// Submits `seat`'s action. Sequential: applied at once. Simultaneous: held
    /// (after a legality check only the submitter learns about) until every
    /// mover has acted, then applied as one joint action.
    pub fn submit(
        &mut self,
        seat: Player,
        action: ActionId,
        expected_version: Option<u64>,
    ) -> HostResult<Submitted> {
        self.check_may_act(seat, expected_version)?;
        let movers = self.movers()?;
        let now = now_ms();
        if movers.len() == 1 {
            let last = Move {
                player: seat,
                action,
            };
            self.apply_turn(Some((last, now)), now)?;
            return Ok(Submitted::Applied);
        }
        self.hold(seat, action, now, movers)
    }

    /// Applies the turn: the held actions and `last` (the move that
    /// completes it, if any) as one joint action; logs it, then resolves
    /// chance and the end. On an error nothing is changed.
    pub(crate) fn apply_turn(&mut self, last: Option<(Move, i64)>, now: i64) -> HostResult<()> {
        let (moves, timed) = self.turn_moves(last);
        // Notation must be read before the state changes.
        let logged = timed
            .iter()
            .map(|(m, at, held)| {
                let notation = self
                    .state
                    .action_to_string(m.player, m.action)
                    .unwrap_or_else(|_| m.action.to_string());
                Ok(LoggedMove {
                    seat: m.player,
                    action: m.action,
                    // Not `from(String)`, which would keep the heap buffer.
                    notation: CompactString::new(&notation),
                    at_ms: *at,
                    held: *held,
                })
            })
            .collect::<HostResult<LoggedMoves>>()?;
        let before = self.snapshot_if_watched()?;
        self.state
            .apply(&moves)
            .map_err(|e| match moves.as_slice() {
                // One mover: the refusal is that seat's, and the game can say why.
                [only] => crate::refusal::explained(
                    self.state.as_ref(),
                    only.player,
                    Attempt::Id(only.action),
                    e,
                ),
                _ => e.into(),
            })?;
        self.pending.clear();
        for (m, at, _) in &timed {
            self.charge(m.player, *at);
        }
        self.push_log(now, LogKind::Moves { moves: logged });
        self.note_rule_outs()?;
        // Clocks start before the event is built, so views in it show them.
        self.start_clocks(now)?;
        self.publish_transition(before, Transition::Moves(moves), now)?;
        self.resolve_chance_and_end()?;
        self.start_clocks(now)
    }

    pub(crate) fn resolve_chance_and_end(&mut self) -> HostResult<()> {
        loop {
            match self.state.status()? {
                Status::Chance => {
                    let node = self.state.chance()?;
                    let outcome = chance::draw(&node, self.setup.seed, self.chance_draws)?;
                    let before = self.snapshot_if_watched()?;
                    self.state.apply_chance(outcome)?;
                    self.chance_draws += 1;
                    let at = now_ms();
                    self.push_log(at, LogKind::Chance { outcome });
                    self.publish_transition(before, Transition::Chance(outcome), at)?;
                }
                Status::Terminal => {
                    self.finish_normally()?;
                    return Ok(());
                }
                Status::ToMove(_) => return Ok(()),
            }
        }
    }

    pub(crate) fn finish_normally(&mut self) -> HostResult<()> {
        let results = self.state.results()?;
        if results.len() != self.setup.players as usize {
            return Err(HostError::Internal(format!(
                "plugin returned {} results for {} seats",
                results.len(),
                self.setup.players
            )));
        }
        self.results = results
            .iter()
            .enumerate()
            .map(|(seat, r)| SeatResult {
                seat: seat as u32,
                rank: r.rank,
                score: r.score,
                // A seat that resigned in a match that played on.
                resigned: self.seats[seat].resigned,
            })
            .collect();
        self.lifecycle = Lifecycle::Finished;
        Ok(())
    }

    /// The position in the game's notation (hidden information included).
    pub fn position(&self) -> HostResult<String> {
        Ok(self.state.position()?)
    }
}
