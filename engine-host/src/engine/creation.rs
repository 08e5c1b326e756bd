//! What makes a new match: the requests (created, imported) and their
//! checks, the seats' secrets, and the setup. A request that passes
//! [`Creation::prepare`] is a [`Prepared`] match: what `Match::create`
//! and the store take.
//!
//! A request may carry a request id: its seat tokens and join codes are
//! then derived from the host's request key, so a retry is answered with
//! the same ones without the store keeping any secret.

use std::collections::BTreeMap;
use std::time::Duration;

use sha2::{Digest, Sha256};
use tabletop_core::director::MAX_OPEN_SEAT_WAIT_MS;
use tabletop_core::error::Credential;
use tabletop_core::identity::{check_bot_spec, check_seat_players};
use tabletop_core::setup::{check_labels, tenant_seed};
use tabletop_core::tokens::{hash_token, new_token};
use tabletop_core::{
    HostError, HostResult, MatchSetup, MatchView, OnDeadline, OnTimeout, OpenSeatDeadline, Record,
    SeatPlayer, SpectatorDelay, TimeControl, ViewDetail, now_ms,
};
use tabletop_sdk::Manifest;

use super::access::{Caller, Need};
use super::bots;
use super::live::SeatHashes;
use crate::store::StoredRequest;

/// Longest request id, in bytes.
pub const MAX_REQUEST_ID: usize = 128;

/// Longest start position, in bytes: every shipped game's position fits in
/// a few KB; the plugin is not asked to parse anything larger.
pub const MAX_START_POSITION_BYTES: usize = 64 * 1024;

/// The largest record ImportRecord takes, in bytes: what a gRPC message
/// carries by default (4 MiB), some 15 000 actions.
pub const MAX_RECORD_BYTES: usize = 4 * 1024 * 1024;

/// Most actions (log entries) a record may hold.
pub const MAX_RECORD_ACTIONS: usize = 20_000;

/// A request to create a match.
#[derive(Debug, Clone, Default)]
pub struct NewMatch {
    /// The game.
    pub game: String,
    /// A version, or the newest.
    pub version: Option<String>,
    /// Seats.
    pub players: u32,
    /// Options (raw text).
    pub options: BTreeMap<String, String>,
    /// Seed, or random.
    pub seed: Option<u64>,
    /// A start position in the game's notation.
    pub start_position: Option<String>,
    /// Seats left open for joining.
    pub open_seats: Vec<u32>,
    /// A clock, if any.
    pub time_control: Option<TimeControl>,
    /// How much of the match the answer's spectator view carries.
    pub view_detail: ViewDetail,
    /// Labels (tournament, round, table …).
    pub labels: BTreeMap<String, String>,
    /// The caller's id for this request, making a retry return the same
    /// match and tokens.
    pub request_id: Option<String>,
    /// How long after creation the open seats may be taken, and what
    /// happens to the match if they are not.
    pub open_seat_wait: Option<(i64, OnDeadline)>,
    /// How far behind spectators see the match while it runs.
    pub spectator_delay: Option<SpectatorDelay>,
    /// Who plays the seats taken at creation.
    pub seat_players: Vec<SeatPlayer>,
    /// Whether anyone may take the open seats without a join code.
    pub public_open_seats: bool,
    /// (seat, spec) of the seats the host's bots play: no token is issued
    /// for them.
    pub bots: Vec<(u32, String)>,
}

/// A created match.
#[derive(Debug, Clone)]
pub struct Created {
    /// Its id.
    pub match_id: String,
    /// (seat, token) of the filled seats.
    pub tokens: Vec<(u32, String)>,
    /// (seat, join code) of the invite-only open seats.
    pub join_codes: Vec<(u32, String)>,
    /// The spectator's view.
    pub view: MatchView,
}

/// (seat, token) of the taken seats and (seat, join code) of the
/// invite-only open seats of a new match.
pub type SeatSecrets = (Vec<(u32, String)>, Vec<(u32, String)>);

/// The seats of a new match: what is stored and what is handed out.
#[derive(Debug)]
pub struct NewSeats {
    /// Token hash per seat (None: open).
    pub hashes: SeatHashes,
    /// (seat, token) to hand out.
    pub tokens: Vec<(u32, String)>,
    /// Join code hash per seat (empty: no seat needs one).
    pub join_code_hashes: SeatHashes,
    /// (seat, join code) to hand out.
    pub join_codes: Vec<(u32, String)>,
}

impl NewSeats {
    /// Fresh tokens for every seat of an imported match of `players`.
    pub fn for_record(players: u32) -> NewSeats {
        let tokens: Vec<(u32, String)> = (0..players).map(|seat| (seat, new_token())).collect();
        NewSeats {
            hashes: tokens
                .iter()
                .map(|(_, token)| Some(hash_token(token)))
                .collect(),
            tokens,
            join_code_hashes: Vec::new(),
            join_codes: Vec::new(),
        }
    }
}

/// A creation request that passed every check: what the match is made
/// of, and what goes to the store and back to the caller with it.
#[derive(Debug)]
pub struct Prepared {
    /// The match's setup (id, seed and creation time drawn).
    pub setup: MatchSetup,
    /// Its seats.
    pub seats: NewSeats,
    /// The request id to store with it, if the request had one.
    pub request: Option<StoredRequest>,
    /// How much the answer's spectator view carries.
    pub view_detail: ViewDetail,
}

/// Who may create matches, and the secret retried creations' tokens are
/// derived from.
#[derive(Debug)]
pub struct Creation {
    /// The secret the seat tokens of an idempotent creation are derived
    /// from, so a retry gets the same tokens without the store keeping any.
    request_key: [u8; 32],
    /// Whether a caller without a credential may create matches.
    anonymous_create: bool,
    /// The longest an anonymous caller's match waits for its open seats
    /// before it is aborted (none: as long as its creator says).
    anonymous_wait: Option<Duration>,
}

impl Default for Creation {
    /// Anonymous callers may create; a random request key.
    fn default() -> Creation {
        Creation {
            request_key: rand::random(),
            anonymous_create: true,
            anonymous_wait: None,
        }
    }
}

impl Creation {
    /// Derives the seat tokens of idempotent creations from `key`.
    pub fn with_request_key(self, key: [u8; 32]) -> Creation {
        Creation {
            request_key: key,
            ..self
        }
    }

    /// Whether callers without a credential may create matches.
    pub fn with_anonymous_create(self, allowed: bool) -> Creation {
        Creation {
            anonymous_create: allowed,
            ..self
        }
    }

    /// Bounds the wait of an anonymous caller's match for its open seats.
    pub fn with_anonymous_wait(self, wait: Option<Duration>) -> Creation {
        Creation {
            anonymous_wait: wait,
            ..self
        }
    }

    /// `request` with the wait for its open seats bounded when `caller` is
    /// anonymous: such a match is aborted once the wait ends with a seat
    /// still open (its creator's shorter deadline, or start without the
    /// absent seats, stands). Matches nobody joins then cannot fill the
    /// host's live matches for everyone; an organizer's wait is its own.
    pub fn bounded(&self, caller: &Caller, mut request: NewMatch) -> NewMatch {
        let (Caller::Anonymous, Some(limit)) = (caller, self.anonymous_wait) else {
            return request;
        };
        if request.open_seats.is_empty() {
            return request;
        }
        let limit_ms = i64::try_from(limit.as_millis()).unwrap_or(i64::MAX);
        request.open_seat_wait = Some(match request.open_seat_wait {
            Some((wait_ms, on_deadline)) => (wait_ms.min(limit_ms), on_deadline),
            None => (limit_ms, OnDeadline::Abort),
        });
        request
    }

    /// Refuses a creation `caller` may not make (see [`super::access`]).
    pub fn check(
        &self,
        caller: &Caller,
        manifest: &Manifest,
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
    pub fn scoped(caller: &Caller, mut request: NewMatch) -> NewMatch {
        let scope = match caller {
            Caller::Organizer { credential_id, .. } => credential_id.as_str(),
            Caller::Admin => "admin",
            Caller::Anonymous => "anonymous",
        };
        request.request_id = request.request_id.map(|id| format!("{scope}/{id}"));
        request
    }

    /// Whether `stored` was stored for this very request (the same fields
    /// as the caller sent them), so that `request` is its retry.
    pub fn is_retry_of(request: &NewMatch, stored: &StoredRequest) -> bool {
        stored.request_hash == request_hash(request)
    }

    /// The seat tokens and join codes of the match request `request_id`
    /// creates: the same on every retry.
    pub fn secrets_of(&self, request_id: &str, request: &NewMatch) -> SeatSecrets {
        seat_secrets(request, |seat, purpose| {
            self.derived_token(request_id, seat, purpose)
        })
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

    /// Checks `request` for a game of `manifest` and makes what the match
    /// is created from in `tenant`: its setup, its seats' secrets, and the
    /// request id to store.
    pub fn prepare(
        &self,
        manifest: &Manifest,
        request: NewMatch,
        tenant: &str,
    ) -> HostResult<Prepared> {
        check_request(manifest, &request)?;
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
        let seats = self.seats_of(&request);
        let view_detail = request.view_detail;
        let request_id = request.request_id.clone();
        let setup = setup_of(manifest, request, tenant);
        let request = request_id.map(|request_id| StoredRequest {
            request_id,
            request_hash: sent_hash,
            match_id: setup.match_id.clone(),
            response: Vec::new(),
        });
        Ok(Prepared {
            setup,
            seats,
            request,
            view_detail,
        })
    }

    /// The seats of `request`'s match: derived secrets for a request with
    /// an id, fresh ones otherwise; a bot's seat taken by a token nobody is
    /// given.
    fn seats_of(&self, request: &NewMatch) -> NewSeats {
        let (tokens, join_codes) = match &request.request_id {
            Some(request_id) => self.secrets_of(request_id, request),
            None => seat_secrets(request, |_, _| new_token()),
        };
        let hash_of_seat = |secrets: &[(u32, String)], seat: u32| {
            secrets
                .iter()
                .find(|(s, _)| *s == seat)
                .map(|(_, secret)| hash_token(secret))
        };
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
        let join_code_hashes: SeatHashes = if join_codes.is_empty() {
            Vec::new()
        } else {
            (0..request.players)
                .map(|seat| hash_of_seat(&join_codes, seat))
                .collect()
        };
        NewSeats {
            hashes,
            tokens,
            join_code_hashes,
            join_codes,
        }
    }
}

/// The setup of a new match of `manifest` in `tenant` as `request` asks: a
/// new id, its seed (drawn unless asked for; a chosen one mixed with the
/// tenant, see [`tenant_seed`]) and its creation time now.
fn setup_of(manifest: &Manifest, request: NewMatch, tenant: &str) -> MatchSetup {
    let match_id = new_match_id();
    let seed = request
        .seed
        .map_or_else(rand::random, |seed| tenant_seed(tenant, seed));
    let created_at_ms = now_ms();
    MatchSetup {
        match_id,
        game: manifest.name.clone(),
        plugin_version: manifest.version.clone(),
        plugin_sha256: None,
        players: request.players,
        options: request.options,
        seed,
        start_position: request.start_position,
        created_at_ms,
        time_control: request.time_control,
        labels: request.labels,
        open_seat_deadline: request
            .open_seat_wait
            .map(|(wait_ms, on_deadline)| OpenSeatDeadline {
                at_ms: created_at_ms.saturating_add(wait_ms),
                on_deadline,
            }),
        spectator_delay: request.spectator_delay.filter(|d| !d.is_none()),
        seat_players: request.seat_players,
        tenant: tenant.to_string(),
        creator: String::new(),
    }
}

/// A new match id: time-ordered, so listings sort by creation.
pub fn new_match_id() -> String {
    format!("{:011x}{:08x}", now_ms(), rand::random::<u32>())
}

/// Refuses a request no match of `manifest` could be made from: its player
/// count, start position, time control, open seats, labels, spectator
/// delay and seat players, in that order.
fn check_request(manifest: &Manifest, request: &NewMatch) -> HostResult<()> {
    check_players(manifest, request.players).map_err(HostError::InvalidSetup)?;
    check_start_position(request.start_position.as_deref())?;
    if let Some(tc) = &request.time_control {
        tc.validate().map_err(HostError::InvalidSetup)?;
        if tc.on_timeout == OnTimeout::Out {
            check_timeout_out(manifest, request.players)?;
        }
    }
    for (at, &seat) in request.open_seats.iter().enumerate() {
        if seat >= request.players {
            return Err(HostError::InvalidSetup(format!(
                "open seat {seat} does not exist (seats 0..{})",
                request.players
            )));
        }
        // Each open seat gets one join code.
        if request.open_seats[..at].contains(&seat) {
            return Err(HostError::InvalidSetup(format!(
                "open seat {seat} is listed twice"
            )));
        }
    }
    check_labels(&request.labels).map_err(HostError::InvalidSetup)?;
    if let Some(delay) = &request.spectator_delay {
        delay.check().map_err(HostError::InvalidSetup)?;
    }
    check_seat_players(&request.seat_players, request.players, &request.open_seats)
        .map_err(HostError::InvalidSetup)
}

/// `out` takes one seat out while the others play on: with two seats that
/// is just `lose`, and only games that can remove a player mid-game (their
/// manifest says so) can do it at all.
fn check_timeout_out(manifest: &Manifest, players: u32) -> HostResult<()> {
    if players < 3 {
        return Err(HostError::InvalidSetup(format!(
            "on_timeout `out` needs at least 3 players (this match has {players}); use `lose`"
        )));
    }
    if !manifest.removable_players {
        return Err(HostError::InvalidSetup(format!(
            "{} cannot take a player out of a running game, so on_timeout `out` is not \
             available; use `lose`",
            manifest.name
        )));
    }
    Ok(())
}

/// Refuses a start position too long to be one, before a plugin reads it.
fn check_start_position(position: Option<&str>) -> HostResult<()> {
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
fn check_players(manifest: &Manifest, players: u32) -> Result<(), String> {
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
    manifest: &Manifest,
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
fn secret_choice(manifest: &Manifest, request: &NewMatch) -> Option<&'static str> {
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

/// Refuses a record whose setup no match could have had: a player count
/// the game is not played by (checked first, since every other count is
/// per seat), too many actions, a time control, start position, labels,
/// spectator delay or seat players a new match would be refused.
pub fn check_record(manifest: &Manifest, record: &Record) -> HostResult<()> {
    let invalid = |field: &str, why: String| HostError::InvalidRecord(format!("{field}: {why}"));
    check_players(manifest, record.players).map_err(|e| invalid("players", e))?;
    if record.actions.len() > MAX_RECORD_ACTIONS {
        return Err(invalid(
            "actions",
            format!(
                "a record holds at most {MAX_RECORD_ACTIONS} actions, not {}",
                record.actions.len()
            ),
        ));
    }
    check_start_position(record.start_position.as_deref())?;
    if let Some(control) = &record.time_control {
        control.validate().map_err(|e| invalid("time_control", e))?;
    }
    check_labels(&record.labels).map_err(|e| invalid("labels", e))?;
    if let Some(delay) = &record.spectator_delay {
        delay.check().map_err(|e| invalid("spectator_delay", e))?;
    }
    check_seat_players(&record.seat_players, record.players, &[])
        .map_err(|e| invalid("seat_players", e))
}

/// Refuses a record too large to read, before it is parsed.
pub fn check_record_size(record_json: &str) -> HostResult<()> {
    if record_json.len() > MAX_RECORD_BYTES {
        return Err(HostError::InvalidRecord(format!(
            "a record is at most {MAX_RECORD_BYTES} bytes, not {}",
            record_json.len()
        )));
    }
    Ok(())
}
