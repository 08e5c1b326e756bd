//! The engine's calls that play: views, legal actions (kept lists first),
//! submits and resignation, each persisted before it is acknowledged.

use std::sync::Arc;
use std::time::Instant;

use tabletop_core::legal::LegalDetail;
use tabletop_core::{HostError, HostResult, MatchView, Submitted, ViewDetail};
use tabletop_sdk::Viewer;

use super::live::{LiveMatch, lock, try_lock};
use super::{ActionRef, Engine, LegalActions, Submission, caught};
use crate::metrics::{PluginCall, metrics};
use crate::store::Commit;

impl Engine {
    /// Runs `call` on `m` on the blocking pool and tells the inline
    /// watchdog how long it took: a plugin moved off the callers' threads
    /// comes back once its calls are fast again (see [`super::inline`]).
    /// The wait for the match's lock is not counted.
    fn timed_on_pool<T>(&self, m: &mut LiveMatch, call: impl FnOnce(&mut LiveMatch) -> T) -> T {
        let trust = Arc::clone(m.trust());
        let started = Instant::now();
        let answer = call(m);
        self.inline.observe_pool_call(&trust, started.elapsed());
        answer
    }

    /// The view for a token (empty: spectator), carrying what `detail`
    /// says.
    pub fn view(&self, match_id: &str, token: &str, detail: ViewDetail) -> HostResult<MatchView> {
        let slot = self.slot(match_id)?;
        let mut m = lock(&slot);
        let _timed = metrics().plugin_call(&m.setup().game, PluginCall::View);
        self.timed_on_pool(&mut m, |m| {
            let viewer = m.viewer_of(token)?;
            m.view_with(viewer, detail)
        })
    }

    /// The match as the token's holder (or a spectator) saw it right after
    /// `version`, replayed from its log, carrying what `detail` says.
    pub fn view_at_version(
        &self,
        match_id: &str,
        token: &str,
        version: u64,
        detail: ViewDetail,
    ) -> HostResult<MatchView> {
        let slot = self.slot(match_id)?;
        let m = lock(&slot);
        let viewer = m.viewer_of(token)?;
        m.view_at_version(viewer, version, detail)
    }

    /// The legal actions of the token's seat. The match then keeps every
    /// mover's list for this and later versions, so that
    /// [`Engine::kept_legal_actions`] can answer the next ask.
    pub fn legal_actions(
        &self,
        match_id: &str,
        token: &str,
        detail: LegalDetail,
    ) -> HostResult<LegalActions> {
        let slot = self.slot(match_id)?;
        let mut m = lock(&slot);
        self.timed_on_pool(&mut m, |m| self.legal_actions_locked(m, token, detail))
    }

    /// [`Engine::legal_actions`] without waiting: `None` when the match is
    /// busy or its plugin may not run on this thread (then call
    /// [`Engine::legal_actions`] off the async workers).
    pub fn try_legal_actions(
        &self,
        match_id: &str,
        token: &str,
        detail: LegalDetail,
    ) -> Option<HostResult<LegalActions>> {
        self.try_inline(match_id, |m| self.legal_actions_locked(m, token, detail))
    }

    fn legal_actions_locked(
        &self,
        m: &mut LiveMatch,
        token: &str,
        detail: LegalDetail,
    ) -> HostResult<LegalActions> {
        let _timed = metrics().plugin_call(&m.setup().game, PluginCall::LegalActions);
        let seat = m.seat_of(token)?;
        let was_kept = m.keeps_legal_actions();
        let actions = m.legal_actions(seat, detail)?;
        if !was_kept && m.keeps_legal_actions() {
            self.admit_kept_legal(m);
        }
        Ok((m.version(), seat, actions, targets(m, seat, detail)))
    }

    /// The view for a token without waiting: `None` when the match is busy,
    /// its plugin may not run on this thread, or the view is a spectator's
    /// under a spectator delay, which replays the log (then call
    /// [`Engine::view`] off the async workers).
    pub fn try_view(
        &self,
        match_id: &str,
        token: &str,
        detail: ViewDetail,
    ) -> Option<HostResult<MatchView>> {
        let answer = self.try_inline(match_id, |m| {
            let _timed = metrics().plugin_call(&m.setup().game, PluginCall::View);
            let viewer = m.viewer_of(token)?;
            // A replay of a long log could overrun the inline limit and
            // take the game's plugin off this path for good.
            if viewer == Viewer::Spectator && m.spectator_delay_applies() {
                return Ok(None);
            }
            m.view_with(viewer, detail).map(Some)
        })?;
        answer.transpose()
    }

    /// Runs `call` on the match under its lock, on this thread, if that
    /// needs no waiting: the lock is free and the match's plugin may run
    /// inline (see [`super::inline`]). `None` otherwise. A panic in host
    /// code becomes an internal error, as it would on the blocking pool.
    fn try_inline<T>(
        &self,
        match_id: &str,
        call: impl FnOnce(&mut LiveMatch) -> HostResult<T>,
    ) -> Option<HostResult<T>> {
        // A match not held is read back from the store (and its lease
        // taken): waiting, which an async worker must not do.
        let slot = self.table.get(match_id)?;
        let mut m = try_lock(&slot)?;
        let trust = Arc::clone(m.trust());
        let _running = self.inline.begin(&trust)?;
        Some(caught(|| call(&mut m)))
    }

    /// The legal actions of the token's seat if they can be answered without
    /// calling the plugin and without waiting for the match's lock: safe to
    /// call on an async worker. `None` when they cannot; then call
    /// [`Engine::legal_actions`] off the async workers.
    pub fn kept_legal_actions(
        &self,
        match_id: &str,
        token: &str,
        detail: LegalDetail,
    ) -> Option<HostResult<LegalActions>> {
        let slot = self.table.get(match_id)?;
        let m = try_lock(&slot)?;
        let seat = match m.seat_of(token) {
            Ok(seat) => seat,
            Err(e) => return Some(Err(e)),
        };
        let actions = m.kept_legal_actions(seat, detail)?;
        Some(Ok((m.version(), seat, actions, targets(&m, seat, detail))))
    }

    /// Admits `m`, which has just started keeping lists, and makes the
    /// matches admitted longest ago drop theirs. A match that is busy right
    /// now is passed over and stays admitted; the next admission retries it.
    fn admit_kept_legal(&self, m: &mut LiveMatch) {
        for evicted in self.kept_legal.admit(&m.setup().match_id) {
            if evicted == m.setup().match_id {
                m.forget_legal_actions();
                continue;
            }
            let Some(slot) = self.table.get(&evicted) else {
                continue;
            };
            match try_lock(&slot) {
                Some(mut other) => other.forget_legal_actions(),
                None => self.kept_legal.readmit(evicted),
            }
        }
    }

    /// How many matches keep legal-action lists now (at most
    /// [`KEPT_LEGAL_MATCHES`](super::KEPT_LEGAL_MATCHES), plus any that were busy when evicted).
    pub fn matches_keeping_legal_actions(&self) -> usize {
        self.kept_legal.len()
    }

    /// Submits an action; stored before this returns.
    pub fn submit(
        &self,
        match_id: &str,
        token: &str,
        action: &ActionRef,
        expected_version: Option<u64>,
        detail: ViewDetail,
    ) -> HostResult<Submission> {
        let slot = self.slot(match_id)?;
        let mut commit = Commit::done();
        let mut m = lock(&slot);
        let answer = self.timed_on_pool(&mut m, |m| {
            self.submit_locked(m, token, action, expected_version, detail, &mut commit)
        });
        drop(m);
        self.settle(match_id, commit)?;
        answer
    }

    /// [`Engine::submit`] without waiting for a lock or the disk: `None` when
    /// the match is busy or its plugin may not run on this thread (then call
    /// [`Engine::submit`] off the async workers). Otherwise the answer, and
    /// the commit to wait for before acknowledging it: the action is in the
    /// match, and its write queued in order, but it is durable only then.
    pub fn try_submit(
        &self,
        match_id: &str,
        token: &str,
        action: &ActionRef,
        expected_version: Option<u64>,
        detail: ViewDetail,
    ) -> Option<(HostResult<Submission>, Commit)> {
        let mut commit = Commit::done();
        let answer = self.try_inline(match_id, |m| {
            self.submit_locked(m, token, action, expected_version, detail, &mut commit)
        })?;
        Some((answer, commit))
    }

    /// Submits under the match's lock; every write is queued on `commit`.
    fn submit_locked(
        &self,
        m: &mut LiveMatch,
        token: &str,
        action: &ActionRef,
        expected_version: Option<u64>,
        detail: ViewDetail,
        commit: &mut Commit,
    ) -> HostResult<Submission> {
        let _timed = metrics().plugin_call(&m.setup().game, PluginCall::Submit);
        let seat = m.seat_of(token)?;
        self.store_within_reach()?;
        if self.expire_locked(m, commit)? {
            return Err(HostError::MatchOver {
                clock_ran_out: true,
            });
        }
        let id = match action {
            ActionRef::Id(id) => *id,
            ActionRef::Notation(text) => {
                if let Some(expected) = expected_version
                    && expected != m.version()
                {
                    return Err(HostError::StaleVersion {
                        expected,
                        current: m.version(),
                    });
                }
                if let Some(steps) = m.expand_notation(seat, text)? {
                    return self.submit_sequence(m, seat, text, &steps, expected_version, commit);
                }
                m.parse_action(seat, text)?
            }
        };
        let before = m.version();
        let submitted = m.submit(seat, id, expected_version)?;
        metrics().actions(&m.setup().game, 1);
        commit.add(self.persist(m, before)?);
        m.refresh_kept_legal_actions();
        let view = m.view_with(Viewer::Seat(seat), detail)?;
        Ok((view, submitted == Submitted::Pending))
    }

    /// Submits the actions a shorthand stands for, all or nothing (see
    /// [`Match::submit_sequence`]); every one is stored, in one store write,
    /// before this returns. The view is the one after the last.
    fn submit_sequence(
        &self,
        m: &mut LiveMatch,
        seat: u32,
        text: &str,
        steps: &[String],
        expected_version: Option<u64>,
        commit: &mut Commit,
    ) -> HostResult<Submission> {
        let before = m.version();
        let result = m.submit_sequence(seat, text, steps, expected_version);
        // Steps are checked before any is applied, so a refusal normally
        // changes nothing; should a plugin fault stop the sequence part way,
        // the store still gets what the match now holds.
        if m.version() > before {
            commit.add(self.persist(m, before)?);
            m.refresh_kept_legal_actions();
        }
        result?;
        metrics().actions(&m.setup().game, steps.len() as u64);
        Ok((m.view(Viewer::Seat(seat))?, false))
    }

    /// The token's seat resigns.
    pub fn resign(&self, match_id: &str, token: &str) -> HostResult<MatchView> {
        let slot = self.slot(match_id)?;
        let mut m = lock(&slot);
        let seat = m.seat_of(token)?;
        self.store_within_reach()?;
        let before = m.version();
        m.resign(seat)?;
        let commit = self.persist(&mut m, before)?;
        let view = m.view(Viewer::Seat(seat));
        drop(m);
        self.settle(match_id, commit)?;
        view
    }
}

/// The targets that go with a list of legal actions: only with notation.
fn targets(m: &LiveMatch, seat: u32, detail: LegalDetail) -> Vec<Vec<String>> {
    match detail {
        LegalDetail::Full => m.kept_legal_targets(seat),
        LegalDetail::IdsOnly => Vec::new(),
    }
}
