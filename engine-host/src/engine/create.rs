//! New matches (created, imported) and joining open seats.

use std::sync::Arc;

use sha2::{Digest, Sha256};
use tabletop_core::director::MAX_OPEN_SEAT_WAIT_MS;
use tabletop_core::error::Credential;
use tabletop_core::identity::{check_bot_spec, check_seat_players};
use tabletop_core::setup::check_labels;
use tabletop_core::tokens::{hash_token, hashes_equal, new_token};
use tabletop_core::{
    HostError, HostResult, Match, MatchSetup, MatchView, OnDeadline, OnTimeout, OpenSeatDeadline,
    SeatPlayer, ViewDetail, now_ms,
};
use tabletop_loader::Plugin;
use tabletop_sdk::{DynGame, Viewer};

use super::access::{Caller, Need};
use super::{
    Created, Engine, LiveMatch, NewMatch, SeatHashes, TryCreate, caught, lock, new_match_id,
};
use super::{bots, lifecycle};
use crate::metrics::{PluginCall, metrics};
use crate::store::{Commit, NewMatch as StoreNewMatch, StoredMatch, StoredRequest};

/// Longest request id, in bytes.
pub const MAX_REQUEST_ID: usize = 128;

/// Longest start position, in bytes: every shipped game's position fits in
/// a few KB; the plugin is not asked to parse anything larger.
pub const MAX_START_POSITION_BYTES: usize = 64 * 1024;

/// Refuses a start position too long to be one, before a plugin reads it.
pub(super) fn check_start_position(position: Option<&str>) -> HostResult<()> {
    match position {
        Some(text) if text.len() > MAX_START_POSITION_BYTES => {
            Err(HostError::InvalidPosition(format!(
                "a start position is at most {MAX_START_POSITION_BYTES} bytes, not {}",
                text.len()
            )))
        }
        _ => Ok(()),
    }
}

/// (seat, token) of the taken seats and (seat, join code) of the
/// invite-only open seats of a new match.
type SeatSecrets = (Vec<(u32, String)>, Vec<(u32, String)>);

/// The seats of a new match: what is stored and what is handed out.
pub(super) struct NewSeats {
    /// Token hash per seat (None: open).
    pub hashes: SeatHashes,
    /// (seat, token) to hand out.
    pub tokens: Vec<(u32, String)>,
    /// Join code hash per seat (empty: no seat needs one).
    pub join_code_hashes: SeatHashes,
    /// (seat, join code) to hand out.
    pub join_codes: Vec<(u32, String)>,
}

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
        "seat_players": request.seat_players,
        "public_open_seats": request.public_open_seats,
    });
    // Only when set: a request stored without it hashes as it did, so its
    // retry is still the same request.
    if let Some(delay) = request.spectator_delay {
        canonical["spectator_delay"] = serde_json::json!(delay);
    }
    if !request.bots.is_empty() {
        canonical["bots"] = serde_json::json!(request.bots);
    }
    Sha256::digest(canonical.to_string().as_bytes()).into()
}

/// Checks the bots a creation seats (an existing seat that is not open, at
/// most one bot a seat, a spec that reads) and names each bot's seat in the
/// match's players: its display name is the spec unless the request gave
/// one.
fn seat_bots(request: &mut NewMatch) -> HostResult<()> {
    for (index, (seat, spec)) in request.bots.iter().enumerate() {
        if *seat >= request.players {
            return Err(HostError::InvalidSetup(format!(
                "a bot for seat {seat} of a match of {} seats",
                request.players
            )));
        }
        if request.open_seats.contains(seat) {
            return Err(HostError::InvalidSetup(format!(
                "seat {seat} is open: it cannot also be a bot's"
            )));
        }
        if request.bots[..index].iter().any(|(s, _)| s == seat) {
            return Err(HostError::InvalidSetup(format!("seat {seat} has two bots")));
        }
        check_bot_spec(spec).map_err(HostError::InvalidSetup)?;
        let bot = bots::parse_spec(*seat, spec)?;
        let spec = bot.spec();
        match request.seat_players.iter_mut().find(|p| p.seat == *seat) {
            Some(player) => {
                if player.display_name.is_empty() {
                    player.display_name = spec.clone();
                }
                player.bot = spec;
            }
            None => request.seat_players.push(SeatPlayer {
                seat: *seat,
                display_name: spec.clone(),
                external_id: String::new(),
                bot: spec,
            }),
        }
    }
    request.seat_players.sort_by_key(|p| p.seat);
    Ok(())
}

/// Refuses a number of players the game is not played by.
pub(super) fn check_players(manifest: &tabletop_sdk::Manifest, players: u32) -> Result<(), String> {
    if players < manifest.min_players || players > manifest.max_players {
        return Err(format!(
            "{} is played by {} to {} players, not {players}",
            manifest.name, manifest.min_players, manifest.max_players
        ));
    }
    Ok(())
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

/// What stays secret while a match runs and so may be chosen only by an
/// organizer: the seed (a player who knew it could replay the chance
/// stream, or clone the match and read the clone's record), and a start
/// position of a game with hidden information (its writer wrote the deal).
fn secret_choice(manifest: &tabletop_sdk::Manifest, request: &NewMatch) -> Option<&'static str> {
    if request.seed.is_some() {
        Some("choosing a match's seed")
    } else if request.start_position.is_some() && manifest.hidden_information {
        Some("a start position for a game with hidden information")
    } else {
        None
    }
}

/// A token for every seat taken at creation by a client (a bot's seat has
/// none) and, unless the open seats are public, a join code for every open
/// one; `secret(seat, purpose)` makes each (`b""` for a token, `b"join"`
/// for a code).
fn seat_secrets(request: &NewMatch, mut secret: impl FnMut(u32, &[u8]) -> String) -> SeatSecrets {
    let tokens = (0..request.players)
        .filter(|seat| !request.open_seats.contains(seat))
        .filter(|seat| !request.bots.iter().any(|(s, _)| s == seat))
        .map(|seat| (seat, secret(seat, b"")))
        .collect();
    let codes = if request.public_open_seats {
        Vec::new()
    } else {
        request
            .open_seats
            .iter()
            .map(|&seat| (seat, secret(seat, b"join")))
            .collect()
    };
    (tokens, codes)
}

impl Engine {
    /// Refuses a creation `caller` may not make (see [`super::access`]).
    fn check_create(
        &self,
        caller: &Caller,
        manifest: &tabletop_sdk::Manifest,
        request: &NewMatch,
    ) -> HostResult<()> {
        if let Some(what) = secret_choice(manifest, request) {
            caller
                .require(Need::Organizer, what)
                .map_err(|refused| match refused {
                    HostError::TokenRequired { .. } => HostError::NotPermitted {
                        what: what.to_string(),
                        needed: Credential::Organizer,
                    },
                    other => other,
                })?;
        }
        if !self.anonymous_create {
            caller.require(Need::Organizer, "creating a match")?;
        }
        if let Some(request_id) = &request.request_id {
            if request_id.is_empty() || request_id.len() > MAX_REQUEST_ID {
                return Err(HostError::InvalidRequest(format!(
                    "a request id has 1 to {MAX_REQUEST_ID} bytes"
                )));
            }
            // A retry is answered with the seat tokens: whoever could send
            // someone else's request id would get them. Ids are kept per
            // credential, and an anonymous caller has none to keep them by.
            if let Caller::Anonymous = caller {
                return Err(HostError::NotPermitted {
                    what: "a request id".into(),
                    needed: Credential::Organizer,
                });
            }
        }
        Ok(())
    }

    /// `request` with its request id kept under its caller's credential, so
    /// one caller's id never answers another's request.
    fn scoped_to(caller: &Caller, mut request: NewMatch) -> NewMatch {
        let scope = match caller {
            Caller::Organizer { credential_id, .. } => credential_id.as_str(),
            Caller::Admin => "admin",
            Caller::Anonymous => "anonymous",
        };
        request.request_id = request.request_id.map(|id| format!("{scope}/{id}"));
        request
    }

    /// Creates a match; stored before this returns. A request with a
    /// request id that was stored before is answered as it was then.
    pub fn create_match(&self, caller: &Caller, request: NewMatch) -> HostResult<Created> {
        let plugin = self.plugin(&request.game, request.version.as_deref())?;
        self.check_create(caller, plugin.manifest(), &request)?;
        let request = Self::scoped_to(caller, request);
        if let Some(answered) = self.answered(&request)? {
            return Ok(answered);
        }
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
                // The caller's own id, without the scope it is kept under.
                request_id: request_id
                    .split_once('/')
                    .map_or(request_id.as_str(), |(_, id)| id)
                    .to_string(),
                match_id: stored.match_id,
            });
        }
        let slot = self.slot(&stored.match_id)?;
        let m = lock(&slot);
        let (tokens, join_codes) = self.derived_secrets(request_id, request);
        Ok(Some(Created {
            match_id: stored.match_id.clone(),
            tokens,
            join_codes,
            view: m.view_with(Viewer::Spectator, request.view_detail)?,
        }))
    }

    /// The token of `seat` in the match created by request `request_id`
    /// (`purpose` keeps a seat's token and its join code apart).
    fn derived_token(&self, request_id: &str, seat: u32, purpose: &[u8]) -> String {
        let mut hasher = Sha256::new();
        hasher.update(self.request_key);
        hasher.update((request_id.len() as u64).to_le_bytes());
        hasher.update(request_id.as_bytes());
        hasher.update(seat.to_le_bytes());
        hasher.update(purpose);
        hex::encode(&hasher.finalize()[..16])
    }

    /// The seat tokens and join codes of the match request `request_id`
    /// creates: the same on every retry.
    fn derived_secrets(&self, request_id: &str, request: &NewMatch) -> SeatSecrets {
        seat_secrets(request, |seat, purpose| {
            self.derived_token(request_id, seat, purpose)
        })
    }

    /// Fresh seat tokens and join codes for `request`.
    fn fresh_secrets(request: &NewMatch) -> SeatSecrets {
        seat_secrets(request, |_, _| new_token())
    }

    /// [`Engine::create_match`] without waiting for the disk, on this
    /// thread, unless its plugin may not run here (see [`TryCreate`]).
    pub fn try_create_match(&self, caller: &Caller, request: NewMatch) -> TryCreate {
        let plugin = match self.plugin(&request.game, request.version.as_deref()) {
            Ok(plugin) => plugin,
            Err(e) => return TryCreate::Ran(Err(e), Commit::done()),
        };
        let manifest = plugin.manifest();
        if let Err(e) = self.check_create(caller, manifest, &request) {
            return TryCreate::Ran(Err(e), Commit::done());
        }
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
        let removed = self
            .matches
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(match_id);
        if let Some(slot) = removed
            && lock(&slot).finished_at.is_none()
        {
            self.count_finished();
        }
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
        check_players(manifest, request.players).map_err(HostError::InvalidSetup)?;
        check_start_position(request.start_position.as_deref())?;
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
        check_seat_players(&request.seat_players, request.players, &request.open_seats)
            .map_err(HostError::InvalidSetup)?;
        // The request as the caller sent it is what a retry is compared
        // with, before the bots are named among the seat players.
        let sent_hash = request_hash(&request);
        let mut request = request;
        seat_bots(&mut request)?;
        if request.public_open_seats && request.open_seats.is_empty() {
            return Err(HostError::InvalidSetup(
                "public open seats need open seats".into(),
            ));
        }
        if let Some((wait_ms, on_deadline)) = request.open_seat_wait {
            check_open_seat_wait(manifest, &request, wait_ms, on_deadline)?;
        }
        let (tokens, join_codes) = match &request.request_id {
            Some(request_id) => self.derived_secrets(request_id, &request),
            None => Self::fresh_secrets(&request),
        };
        let hash_of_seat = |secrets: &[(u32, String)], seat: u32| {
            secrets
                .iter()
                .find(|(s, _)| *s == seat)
                .map(|(_, secret)| hash_token(secret))
        };
        // A bot's seat is taken by a token nobody is given.
        let hashes: SeatHashes = (0..request.players)
            .map(|seat| {
                hash_of_seat(&tokens, seat).or_else(|| {
                    request
                        .bots
                        .iter()
                        .any(|(s, _)| *s == seat)
                        .then(|| hash_token(&new_token()))
                })
            })
            .collect();
        let code_hashes: SeatHashes = if join_codes.is_empty() {
            Vec::new()
        } else {
            (0..request.players)
                .map(|seat| hash_of_seat(&join_codes, seat))
                .collect()
        };
        let stored_request = request.request_id.as_ref().map(|request_id| StoredRequest {
            request_id: request_id.clone(),
            request_hash: sent_hash,
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
            seat_players: request.seat_players,
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
            NewSeats {
                hashes,
                tokens,
                join_code_hashes: code_hashes,
                join_codes,
            },
            request.view_detail,
            stored_request.as_ref(),
        )
    }

    /// Queues the write of a match just created or imported, makes it live,
    /// and answers with its tokens and the spectator's view.
    pub(super) fn store_new(
        &self,
        m: Match,
        seats: NewSeats,
        detail: ViewDetail,
        request: Option<&StoredRequest>,
    ) -> HostResult<(Created, Commit)> {
        let _timed = metrics().plugin_call(&m.setup().game, PluginCall::Create);
        let view = m.view_with(Viewer::Spectator, detail)?;
        let stored = StoredMatch {
            setup: m.setup().clone(),
            seat_hashes: seats.hashes,
            join_code_hashes: seats.join_code_hashes.clone(),
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
        metrics().match_created(&m.setup().game);
        self.install(m, false, seats.join_code_hashes);
        Ok((
            Created {
                match_id,
                tokens: seats.tokens,
                join_codes: seats.join_codes,
                view,
            },
            commit,
        ))
    }

    /// Joins an open seat: `seat`, or the seat `join_code` opens, or the
    /// lowest open seat anyone may take. An invite-only seat needs its
    /// code, unless an organizer or the admin seats the player.
    pub fn join(
        &self,
        caller: &Caller,
        match_id: &str,
        seat: Option<u32>,
        join_code: &str,
        player: &SeatPlayer,
    ) -> HostResult<(u32, String, MatchView)> {
        let slot = self.slot(match_id)?;
        let mut m = lock(&slot);
        let seat = self.admitted_seat(caller, &m, seat, join_code)?;
        let mut player = player.clone();
        if player.is_bot() {
            check_bot_spec(&player.bot).map_err(HostError::InvalidSetup)?;
            let bot = tabletop_mcts::Bot::from_spec(&player.bot)
                .map_err(|e| HostError::InvalidSetup(format!("bot: {e}")))?;
            player.bot = bot.spec();
            if player.display_name.is_empty() {
                player.display_name = player.bot.clone();
            }
        }
        let token = new_token();
        let hash = hash_token(&token);
        let seat = m.join(seat, hash, &player)?;
        let join = m.joins().last().cloned().ok_or_else(|| {
            HostError::Internal("a seat was taken but the match did not record it".into())
        })?;
        let events = lifecycle::joined(&m, join.seat, join.at_ms);
        self.store.join_seat(match_id, join, hash, &events)?;
        if let Some(code) = m.join_codes.get_mut(seat as usize) {
            *code = None;
        }
        m.has_bots = m.has_bots();
        self.poke_bots(&m);
        if player.is_bot() {
            // A bot's seat is held by a token nobody is given, and whoever
            // seated the bot sees what a spectator sees.
            return Ok((seat, String::new(), m.view(Viewer::Spectator)?));
        }
        Ok((seat, token, m.view(Viewer::Seat(seat))?))
    }

    /// The seat a join may take (`None`: the lowest open one anyone may
    /// take), or why it may not.
    fn admitted_seat(
        &self,
        caller: &Caller,
        m: &LiveMatch,
        seat: Option<u32>,
        join_code: &str,
    ) -> HostResult<Option<u32>> {
        let code_of = |s: u32| m.join_codes.get(s as usize).copied().flatten();
        if !join_code.is_empty() {
            let hash = hash_token(join_code);
            let opened = (0..m.setup().players)
                .find(|&s| code_of(s).is_some_and(|h| hashes_equal(&h, &hash)));
            return match (opened, seat) {
                (Some(opened), Some(asked)) if opened != asked => Err(HostError::BadToken {
                    credential: Credential::JoinCode,
                }),
                (Some(opened), _) => Ok(Some(opened)),
                (None, _) => Err(HostError::BadToken {
                    credential: Credential::JoinCode,
                }),
            };
        }
        if caller.is_organizer() {
            return Ok(seat);
        }
        match seat {
            Some(s) if code_of(s).is_some() => Err(HostError::TokenRequired {
                credential: Credential::JoinCode,
            }),
            Some(s) => Ok(Some(s)),
            None => {
                let open =
                    (0..m.setup().players).filter(|&s| m.seats()[s as usize].token_hash.is_none());
                let mut public = open.clone().filter(|&s| code_of(s).is_none());
                match public.next() {
                    Some(s) => Ok(Some(s)),
                    // Every open seat is invite-only: ask for a code rather
                    // than say there is no seat.
                    None if open.clone().next().is_some() => Err(HostError::TokenRequired {
                        credential: Credential::JoinCode,
                    }),
                    None => Ok(None),
                }
            }
        }
    }
}
