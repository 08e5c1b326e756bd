//! New matches (created, imported) and joining open seats.

use std::sync::Arc;

use sha2::{Digest, Sha256};
use tabletop_core::director::MAX_OPEN_SEAT_WAIT_MS;
use tabletop_core::setup::check_labels;
use tabletop_core::tokens::{hash_token, new_token};
use tabletop_core::{
    HostError, HostResult, Match, MatchSetup, MatchView, OnDeadline, OnTimeout, OpenSeatDeadline,
    ViewDetail, now_ms,
};
use tabletop_loader::Plugin;
use tabletop_sdk::{DynGame, Viewer};

use super::lifecycle;
use super::{
    Created, Engine, NewMatch, SeatHashes, TryCreate, caught, issue_tokens, lock, new_match_id,
};
use crate::store::{Commit, NewMatch as StoreNewMatch, StoredMatch, StoredRequest};

/// Longest request id, in bytes.
pub const MAX_REQUEST_ID: usize = 128;

/// What makes two creation requests the same request: every field that
/// shapes the match (the seed as asked for, not as drawn).
fn request_hash(request: &NewMatch) -> [u8; 32] {
    let mut canonical = serde_json::json!({
        "game": request.game,
        "version": request.version,
        "players": request.players,
        "options": request.options,
        "seed": request.seed,
        "start_position": request.start_position,
        "open_seats": request.open_seats,
        "time_control": request.time_control,
        "labels": request.labels,
        "open_seat_wait": request.open_seat_wait,
    });
    // Only when set: a request stored without it hashes as it did, so its
    // retry is still the same request.
    if let Some(delay) = request.spectator_delay {
        canonical["spectator_delay"] = serde_json::json!(delay);
    }
    Sha256::digest(canonical.to_string().as_bytes()).into()
}

/// Refuses an open-seat deadline that cannot apply: one without open seats,
/// a wait out of range, or starting without players a game cannot remove.
fn check_open_seat_wait(
    manifest: &tabletop_sdk::Manifest,
    request: &NewMatch,
    wait_ms: i64,
    on_deadline: OnDeadline,
) -> HostResult<()> {
    if request.open_seats.is_empty() {
        return Err(HostError::InvalidSetup(
            "an open-seat deadline needs open seats".into(),
        ));
    }
    if !(1_000..=MAX_OPEN_SEAT_WAIT_MS).contains(&wait_ms) {
        return Err(HostError::InvalidSetup(format!(
            "an open-seat deadline is 1 s to 30 days after creation, not {wait_ms} ms"
        )));
    }
    if on_deadline == OnDeadline::StartWithout && request.players > 2 && !manifest.removable_players
    {
        return Err(HostError::InvalidSetup(format!(
            "{} cannot take a player out, so a match of {} cannot start without its absent \
             seats; abort it at the deadline instead",
            manifest.name, request.players
        )));
    }
    Ok(())
}

impl Engine {
    /// Creates a match; stored before this returns. A request with a
    /// request id that was stored before is answered as it was then.
    pub fn create_match(&self, request: NewMatch) -> HostResult<Created> {
        if let Some(answered) = self.answered(&request)? {
            return Ok(answered);
        }
        let plugin = self.plugin(&request.game, request.version.as_deref())?;
        let retry = request.request_id.is_some().then(|| request.clone());
        let (created, commit) = self.create_match_queued(&plugin, request)?;
        if let Err(e) = commit.wait() {
            self.discard(&created.match_id);
            // The same request id may have been stored meanwhile by a
            // concurrent call: then this one is its retry.
            if let Some(answered) = retry.map(|r| self.answered(&r)).transpose()?.flatten() {
                return Ok(answered);
            }
            return Err(e);
        }
        Ok(created)
    }

    /// The answer to a request whose id the store has: the match it created
    /// and its tokens again, or a refusal when the id came with a different
    /// request. `None` for a request without an id, or with a new one.
    fn answered(&self, request: &NewMatch) -> HostResult<Option<Created>> {
        let Some(request_id) = &request.request_id else {
            return Ok(None);
        };
        let Some(stored) = self.store.request(request_id)? else {
            return Ok(None);
        };
        if stored.request_hash != request_hash(request) {
            return Err(HostError::RequestIdReused {
                request_id: request_id.clone(),
                match_id: stored.match_id,
            });
        }
        let slot = self.slot(&stored.match_id)?;
        let m = lock(&slot);
        let tokens = (0..m.setup().players)
            .filter(|seat| !request.open_seats.contains(seat))
            .map(|seat| (seat, self.derived_token(request_id, seat)))
            .collect();
        Ok(Some(Created {
            match_id: stored.match_id.clone(),
            tokens,
            view: m.view_with(Viewer::Spectator, request.view_detail)?,
        }))
    }

    /// The token of `seat` in the match created by request `request_id`.
    fn derived_token(&self, request_id: &str, seat: u32) -> String {
        let mut hasher = Sha256::new();
        hasher.update(self.request_key);
        hasher.update((request_id.len() as u64).to_le_bytes());
        hasher.update(request_id.as_bytes());
        hasher.update(seat.to_le_bytes());
        hex::encode(&hasher.finalize()[..16])
    }

    /// [`Engine::create_match`] without waiting for the disk, on this
    /// thread, unless its plugin may not run here (see [`TryCreate`]).
    pub fn try_create_match(&self, request: NewMatch) -> TryCreate {
        let plugin = match self.plugin(&request.game, request.version.as_deref()) {
            Ok(plugin) => plugin,
            Err(e) => return TryCreate::Ran(Err(e), Commit::done()),
        };
        let manifest = plugin.manifest();
        let trust = self.inline.trust_for(&manifest.name, &manifest.version);
        // A request id is looked up in the store first, which may wait on
        // the disk: not on this thread.
        let Some(_running) = self
            .inline
            .begin(&trust)
            .filter(|_| request.request_id.is_none())
        else {
            return TryCreate::Declined(request);
        };
        match caught(|| self.create_match_queued(&plugin, request)) {
            Ok((created, commit)) => TryCreate::Ran(Ok(created), commit),
            Err(e) => TryCreate::Ran(Err(e), Commit::done()),
        }
    }

    /// Forgets a live match whose creation could not be stored: its
    /// creator never learned its tokens, and a restart would not know it.
    pub fn discard(&self, match_id: &str) {
        self.matches
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(match_id);
        self.clocked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(match_id);
    }

    /// Creates and installs a match of `plugin` (the one `request` names),
    /// and queues its write.
    pub(super) fn create_match_queued(
        &self,
        plugin: &Arc<Plugin>,
        request: NewMatch,
    ) -> HostResult<(Created, Commit)> {
        let manifest = plugin.manifest();
        if request.players < manifest.min_players || request.players > manifest.max_players {
            return Err(HostError::InvalidSetup(format!(
                "{} is played by {} to {} players, not {}",
                manifest.name, manifest.min_players, manifest.max_players, request.players
            )));
        }
        if let Some(tc) = &request.time_control {
            tc.validate().map_err(HostError::InvalidSetup)?;
            if tc.on_timeout == OnTimeout::Out {
                // `out` takes one seat out while the others play on: with two
                // seats that is just `lose`, and only games that can remove a
                // player mid-game (their manifest says so) can do it at all.
                if request.players < 3 {
                    return Err(HostError::InvalidSetup(format!(
                        "on_timeout `out` needs at least 3 players (this match has {}); \
                         use `lose`",
                        request.players
                    )));
                }
                if !manifest.removable_players {
                    return Err(HostError::InvalidSetup(format!(
                        "{} cannot take a player out of a running game, so on_timeout \
                         `out` is not available; use `lose`",
                        manifest.name
                    )));
                }
            }
        }
        for &seat in &request.open_seats {
            if seat >= request.players {
                return Err(HostError::InvalidSetup(format!(
                    "open seat {seat} does not exist (seats 0..{})",
                    request.players
                )));
            }
        }
        check_labels(&request.labels).map_err(HostError::InvalidSetup)?;
        if let Some(delay) = &request.spectator_delay {
            delay.check().map_err(HostError::InvalidSetup)?;
        }
        if let Some((wait_ms, on_deadline)) = request.open_seat_wait {
            check_open_seat_wait(manifest, &request, wait_ms, on_deadline)?;
        }
        let (tokens, hashes) = match &request.request_id {
            Some(request_id) => {
                if request_id.is_empty() || request_id.len() > MAX_REQUEST_ID {
                    return Err(HostError::InvalidRequest(format!(
                        "a request id has 1 to {MAX_REQUEST_ID} bytes"
                    )));
                }
                let tokens: Vec<(u32, String)> = (0..request.players)
                    .filter(|seat| !request.open_seats.contains(seat))
                    .map(|seat| (seat, self.derived_token(request_id, seat)))
                    .collect();
                let hashes = (0..request.players)
                    .map(|seat| {
                        tokens
                            .iter()
                            .find(|(s, _)| *s == seat)
                            .map(|(_, token)| hash_token(token))
                    })
                    .collect();
                (tokens, hashes)
            }
            None => issue_tokens(request.players, &request.open_seats),
        };
        let stored_request = request.request_id.as_ref().map(|request_id| StoredRequest {
            request_id: request_id.clone(),
            request_hash: request_hash(&request),
            match_id: String::new(),
            response: Vec::new(),
        });
        let setup = MatchSetup {
            match_id: new_match_id(),
            game: manifest.name.clone(),
            plugin_version: manifest.version.clone(),
            players: request.players,
            options: request.options,
            seed: request.seed.unwrap_or_else(rand::random),
            start_position: request.start_position,
            created_at_ms: now_ms(),
            time_control: request.time_control,
            labels: request.labels,
            open_seat_deadline: None,
            spectator_delay: request.spectator_delay.filter(|d| !d.is_none()),
        };
        let setup = MatchSetup {
            open_seat_deadline: request.open_seat_wait.map(|(wait_ms, on_deadline)| {
                OpenSeatDeadline {
                    at_ms: setup.created_at_ms.saturating_add(wait_ms),
                    on_deadline,
                }
            }),
            ..setup
        };
        let stored_request = stored_request.map(|r| StoredRequest {
            match_id: setup.match_id.clone(),
            ..r
        });
        let game: Arc<dyn DynGame> = Arc::<Plugin>::clone(plugin);
        let m = Match::create(game, setup, hashes.clone())?;
        self.store_new(
            m,
            hashes,
            tokens,
            request.view_detail,
            stored_request.as_ref(),
        )
    }

    /// Queues the write of a match just created or imported, makes it live,
    /// and answers with its tokens and the spectator's view.
    pub(super) fn store_new(
        &self,
        m: Match,
        seat_hashes: SeatHashes,
        tokens: Vec<(u32, String)>,
        detail: ViewDetail,
        request: Option<&StoredRequest>,
    ) -> HostResult<(Created, Commit)> {
        let view = m.view_with(Viewer::Spectator, detail)?;
        let stored = StoredMatch {
            setup: m.setup().clone(),
            seat_hashes,
            joins: Vec::new(),
            log: m.log().to_vec(),
            pending: Vec::new(),
            results: m.results().to_vec(),
        };
        let commit = self.store.create_match(&StoreNewMatch {
            stored: &stored,
            lifecycle: &lifecycle::created(&m),
            request,
        })?;
        let match_id = m.setup().match_id.clone();
        self.install(m, false);
        Ok((
            Created {
                match_id,
                tokens,
                view,
            },
            commit,
        ))
    }

    /// Joins an open seat.
    pub fn join(&self, match_id: &str, seat: Option<u32>) -> HostResult<(u32, String, MatchView)> {
        let slot = self.slot(match_id)?;
        let mut m = lock(&slot);
        let token = new_token();
        let hash = hash_token(&token);
        let seat = m.join(seat, hash)?;
        let join = *m.joins().last().ok_or_else(|| {
            HostError::Internal("a seat was taken but the match did not record it".into())
        })?;
        let events = lifecycle::joined(&m, join.seat, join.at_ms);
        self.store.join_seat(match_id, join, hash, &events)?;
        let view = m.view(Viewer::Seat(seat))?;
        Ok((seat, token, view))
    }
}
