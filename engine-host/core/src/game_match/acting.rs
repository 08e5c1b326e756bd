//! Acting: the submit path (whose turn, which version, a simultaneous turn
//! held until its last mover acts, the joint action applied through the
//! plugin, chance drawn, the end), shorthand sequences, the legal actions a
//! seat may take and what a bot searches from. It coordinates the seats,
//! the log, the held turn, the clocks, the legal-action cache and the feed
//! through their APIs.

use compact_str::CompactString;
use tabletop_sdk::{
    ActionId, Attempt, GameError, Move, Player, PlayerSet, Status, Transition, Viewer, chance,
};

use super::{Match, Submitted};
use crate::bot_seat::BotTurn;
use crate::error::{HostError, HostResult};
use crate::legal::LegalDetail;
use crate::log::{LogKind, LoggedMove, LoggedMoves};
use crate::quote::quote;
use crate::refusal::explained;
use crate::sequence::{SequenceStart, check_sequence};
use crate::setup::now_ms;
use crate::simultaneous::HeldAction;
use crate::stage::Lifecycle;

impl Match {
    /// Reads an action given as notation.
    pub fn parse_action(&self, seat: Player, notation: &str) -> HostResult<ActionId> {
        self.check_may_act(seat, None)?;
        self.state
            .parse_action(seat, notation)
            .map_err(|e| explained(self.state.as_ref(), seat, Attempt::Text(notation), e))
    }

    /// Refuses an action of `seat` now: the match is quarantined, is not
    /// running or is paused, the version is not `expected_version`, the
    /// seat is not to move or has acted in this turn. A quarantined match
    /// is refused before anything asks its plugin.
    pub(crate) fn check_may_act(
        &self,
        seat: Player,
        expected_version: Option<u64>,
    ) -> HostResult<()> {
        if self.is_quarantined() {
            return Err(self.quarantined());
        }
        match self.stage.lifecycle() {
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
        if self.director.is_paused() {
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
        if self.held.has(seat) {
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

    /// One mover's part of a simultaneous turn (`movers` has several seats):
    /// checked against its legal actions and held; the last mover's part
    /// completes the turn, which is applied as one joint action.
    fn hold(
        &mut self,
        seat: Player,
        action: ActionId,
        now: i64,
        movers: PlayerSet,
    ) -> HostResult<Submitted> {
        if !self.legal.is_legal(self.state.as_ref(), seat, action)? {
            let refusal = GameError::illegal(format!(
                "action {action} is not legal for {}",
                self.seat_label(seat)
            ));
            return Err(explained(
                self.state.as_ref(),
                seat,
                Attempt::Id(action),
                refusal,
            ));
        }
        if self.held.len() + 1 < movers.len() {
            self.push_held(HeldAction {
                seat,
                action,
                at_ms: now,
                at_version: self.version(),
            })?;
            return Ok(Submitted::Pending);
        }
        let last = Move {
            player: seat,
            action,
        };
        self.apply_turn(Some((last, now)), now)?;
        Ok(Submitted::Applied)
    }

    /// Holds `seat`'s action, charges its clock and tells watchers it acted.
    pub(crate) fn push_held(&mut self, held: HeldAction) -> HostResult<()> {
        self.held.push(held);
        self.clocks.charge(held.seat, held.at_ms);
        self.publish_seat_acted(held.seat, held.at_ms)
    }

    /// Applies the turn: the held actions and `last` (the move that
    /// completes it, if any) as one joint action; logs it, then resolves
    /// chance and the end. On an error nothing is changed.
    pub(crate) fn apply_turn(&mut self, last: Option<(Move, i64)>, now: i64) -> HostResult<()> {
        let (moves, timed) = self.held.turn_moves(self.version(), last);
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
                [only] => explained(
                    self.state.as_ref(),
                    only.player,
                    Attempt::Id(only.action),
                    e,
                ),
                _ => e.into(),
            })?;
        self.held.clear();
        for (m, at, _) in &timed {
            self.clocks.charge(m.player, *at);
        }
        self.log.push(now, LogKind::Moves { moves: logged });
        self.note_rule_outs()?;
        // Clocks start before the event is built, so views in it show them.
        self.start_clocks(now)?;
        self.publish_transition(before, Transition::Moves(moves), now)?;
        self.resolve_chance_and_end()?;
        self.start_clocks(now)
    }

    /// Draws and applies chance outcomes (logged, told to watchers) until a
    /// seat is to move or the game is over, and finishes the match then.
    pub(crate) fn resolve_chance_and_end(&mut self) -> HostResult<()> {
        loop {
            match self.state.status()? {
                Status::Chance => {
                    let node = self.state.chance()?;
                    let outcome = chance::draw(&node, self.setup.seed, self.log.chance_draws())?;
                    let before = self.snapshot_if_watched()?;
                    self.state.apply_chance(outcome)?;
                    let at = now_ms();
                    self.log.push(at, LogKind::Chance { outcome });
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

    /// Notes the seats the turn just logged put out by the game's rules
    /// (none the host took out itself, none noted before).
    pub(crate) fn note_rule_outs(&mut self) -> HostResult<()> {
        if self.setup.players < 3 {
            return Ok(());
        }
        let version = self.version();
        for out in self.state.seats_out()? {
            self.seats.note_rule_out(version, out.seat);
        }
        Ok(())
    }

    /// Expands a shorthand of `seat` (see `ExpandNotation::expand_notation`): `None` when
    /// `notation` is not one and stands for a single action.
    pub fn expand_notation(&self, seat: Player, notation: &str) -> HostResult<Option<Vec<String>>> {
        self.check_may_act(seat, None)?;
        Ok(self.state.expand_notation(seat, notation)?)
    }

    /// Submits the actions a shorthand `text` of `seat` stands for (`steps`,
    /// from [`Match::expand_notation`]) as one request, all or nothing: every
    /// step is first checked on a copy of the state (the seat must be the one
    /// mover before each); if one fails, the whole request is refused with an
    /// error naming that step and nothing changes. Then each step is applied
    /// as its own action: its own log entry, version and watch event.
    /// `expected_version` applies to the state before the first step.
    /// Simultaneous turns are refused: a sequence cannot be held step by step.
    pub fn submit_sequence(
        &mut self,
        seat: Player,
        text: &str,
        steps: &[String],
        expected_version: Option<u64>,
    ) -> HostResult<()> {
        self.check_may_act(seat, expected_version)?;
        if self.movers()?.len() != 1 {
            return Err(HostError::Unsupported(format!(
                "`{}` stands for several actions, which a simultaneous turn cannot take: \
                 submit one action",
                quote(text.trim())
            )));
        }
        if steps.is_empty() {
            return Err(HostError::InvalidNotation(format!(
                "`{}` stands for no action",
                quote(text.trim())
            )));
        }
        let ids = self.check_sequence(seat, text, steps)?;
        for id in ids {
            // Checked above on an identical copy: a refusal here is a plugin
            // fault (non-deterministic rules), reported as such.
            self.submit(seat, id, None)?;
        }
        Ok(())
    }

    /// Plays `steps` on a copy of the state, drawing any chance after a step
    /// exactly as the real application will; returns their action ids.
    pub(crate) fn check_sequence(
        &self,
        seat: Player,
        text: &str,
        steps: &[String],
    ) -> HostResult<Vec<ActionId>> {
        let start = SequenceStart {
            state: self.state.as_ref(),
            seed: self.setup.seed,
            chance_draws: self.log.chance_draws(),
        };
        check_sequence(start, seat, &|| self.seat_label(seat), text, steps)
    }

    /// The legal actions of `seat` (with their notation, unless `detail`
    /// says ids only), answered without calling the plugin: `None` when that
    /// would need the plugin (no lists kept for this version, or their
    /// notation not written yet) and for a quarantined match, whose
    /// refusal [`Match::legal_actions`] gives.
    pub fn kept_legal_actions(
        &self,
        seat: Player,
        detail: LegalDetail,
    ) -> Option<Vec<(ActionId, String)>> {
        if self.is_quarantined() {
            return None;
        }
        if !self.stage.is_running() || self.held.has(seat) {
            return Some(Vec::new());
        }
        self.legal.at(self.version())?.for_seat(seat, detail)
    }

    /// The legal actions of `seat` (with their notation, unless `detail`
    /// says ids only). Lists every mover's actions and keeps them for this
    /// version, so the other movers' asks (and this seat's next) need no
    /// plugin call. Refused with [`HostError::MatchQuarantined`] for a
    /// quarantined match.
    pub fn legal_actions(
        &mut self,
        seat: Player,
        detail: LegalDetail,
    ) -> HostResult<Vec<(ActionId, String)>> {
        if self.is_quarantined() {
            return Err(self.quarantined());
        }
        if let Some(list) = self.kept_legal_actions(seat, detail) {
            return Ok(list);
        }
        if self.legal.at(self.version()).is_none() {
            self.keep_legal_actions()?;
        }
        if detail == LegalDetail::Full {
            self.legal.write_notation(self.state.as_ref(), seat)?;
        }
        Ok(self.kept_legal_actions(seat, detail).unwrap_or_default())
    }

    /// The board elements each of `seat`'s legal actions involves, in the
    /// order of [`Match::kept_legal_actions`]'s list with notation: empty
    /// unless that list is kept with its notation (and for a game that does
    /// not name them).
    pub fn kept_legal_targets(&self, seat: Player) -> Vec<Vec<String>> {
        match self.legal.at(self.version()) {
            Some(kept) if !self.held.has(seat) => kept.targets_for_seat(seat),
            _ => Vec::new(),
        }
    }

    /// Whether the match keeps legal-action lists (of any version).
    pub fn keeps_legal_actions(&self) -> bool {
        self.legal.is_kept()
    }

    /// Lists and keeps the legal actions of every seat to move that has not
    /// acted yet.
    fn keep_legal_actions(&mut self) -> HostResult<()> {
        let waiting = self.held.waiting(self.movers()?);
        self.legal
            .keep(self.state.as_ref(), self.log.version(), waiting.iter())
    }

    /// After a change, brings kept lists up to the new version (a match that
    /// was never asked keeps none). On a plugin error the lists are dropped:
    /// the change itself has happened, and the next ask will list again.
    pub fn refresh_kept_legal_actions(&mut self) {
        let stale = self.legal.is_stale(self.version());
        if !self.stage.is_running()
            || self.is_sealed()
            || (stale && self.keep_legal_actions().is_err())
        {
            self.legal.forget();
        }
    }

    /// Drops the kept lists (to bound the memory of many matches).
    pub fn forget_legal_actions(&mut self) {
        self.legal.forget();
    }

    /// The bot seats that must act now: the match runs and is neither
    /// paused nor quarantined, the seat is to move, and (in a simultaneous
    /// turn) has not acted yet.
    pub fn bot_seats_to_act(&self) -> HostResult<Vec<Player>> {
        if !self.stage.is_running() || self.director.is_paused() || self.is_quarantined() {
            return Ok(Vec::new());
        }
        let movers = self.movers()?;
        Ok(movers
            .iter()
            .filter(|&seat| !self.held.has(seat) && self.player(seat).is_bot())
            .collect())
    }

    /// What the bot of `seat` searches from, if it must act now (see
    /// [`Match::bot_seats_to_act`]); `random` seeds the resampler.
    pub fn bot_turn(&self, seat: Player, random: u64) -> HostResult<Option<BotTurn>> {
        if !self.bot_seats_to_act()?.contains(&seat) {
            return Ok(None);
        }
        let state = self.state.resample(Viewer::Seat(seat), random)?;
        Ok(Some(BotTurn {
            seat,
            spec: self.player(seat).bot,
            version: self.version(),
            players: self.setup.players,
            state,
            clock_remaining_ms: self.clock_remaining(seat, now_ms()),
        }))
    }
}
