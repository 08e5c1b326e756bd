//! The engine's calls that make matches: created, imported, and joining
//! their open seats. What a request must be, and what a new match is made
//! of, is [`super::creation`]'s.

use std::sync::Arc;

use tabletop_core::identity::check_bot_spec;
use tabletop_core::tokens::{hash_token, new_token};
use tabletop_core::{HostError, HostResult, Match, MatchView, Record, SeatPlayer, ViewDetail};
use tabletop_loader::{Plugin, ReplayBuild};
use tabletop_sdk::{DynGame, Viewer};

use super::access::{Caller, Need};
use super::creation::{self, Created, Creation, NewMatch, NewSeats, Prepared};
use super::live::lock;
use super::{Engine, TryCreate, caught, lifecycle};
use crate::metrics::{PluginCall, metrics};
use crate::store::{Commit, NewMatch as StoreNewMatch, StoredMatch, StoredRequest};

impl Engine {
    /// Creates a match; stored before this returns. A request with a
    /// request id that was stored before is answered as it was then.
    pub fn create_match(&self, caller: &Caller, request: NewMatch) -> HostResult<Created> {
        let plugin = self
            .catalog
            .for_new_match(&request.game, request.version.as_deref())?;
        self.creation.check(caller, plugin.manifest(), &request)?;
        let request = self.creation.bounded(caller, request);
        let request = Creation::scoped(caller, request);
        if let Some(answered) = self.answered(&request)? {
            return Ok(answered);
        }
        let retry = request.request_id.is_some().then(|| request.clone());
        let (created, commit) = self.create_match_queued(&plugin, request, caller)?;
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
        if !Creation::is_retry_of(request, &stored) {
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
        let (tokens, join_codes) = self.creation.secrets_of(request_id, request);
        Ok(Some(Created {
            match_id: stored.match_id.clone(),
            tokens,
            join_codes,
            view: m.view_with(Viewer::Spectator, request.view_detail)?,
        }))
    }

    /// [`Engine::create_match`] without waiting for the disk, on this
    /// thread, unless its plugin may not run here (see [`TryCreate`]).
    pub fn try_create_match(&self, caller: &Caller, request: NewMatch) -> TryCreate {
        let plugin = match self
            .catalog
            .for_new_match(&request.game, request.version.as_deref())
        {
            Ok(plugin) => plugin,
            Err(e) => return TryCreate::Ran(Err(e), Commit::done()),
        };
        let manifest = plugin.manifest();
        if let Err(e) = self.creation.check(caller, manifest, &request) {
            return TryCreate::Ran(Err(e), Commit::done());
        }
        let request = self.creation.bounded(caller, request);
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
        match caught(|| self.create_match_queued(&plugin, request, caller)) {
            Ok((created, commit)) => TryCreate::Ran(Ok(created), commit),
            Err(e) => TryCreate::Ran(Err(e), Commit::done()),
        }
    }

    /// Forgets a live match whose creation could not be stored: its
    /// creator never learned its tokens, and a restart would not know it.
    pub fn discard(&self, match_id: &str) {
        self.table.discard(match_id);
    }

    /// Creates and installs a match of `plugin` (the one `request` names)
    /// in `caller`'s tenant, and queues its write.
    fn create_match_queued(
        &self,
        plugin: &Arc<Plugin>,
        request: NewMatch,
        caller: &Caller,
    ) -> HostResult<(Created, Commit)> {
        self.store_within_reach()?;
        let Prepared {
            mut setup,
            seats,
            request,
            view_detail,
        } = self
            .creation
            .prepare(plugin.manifest(), request, caller.tenant())?;
        setup.creator = caller.creator_key();
        // The build it is created with, which it replays through.
        setup.plugin_sha256 = Some(plugin.sha256().to_string());
        let game: Arc<dyn DynGame> = Arc::<Plugin>::clone(plugin);
        let m = Match::create(game, setup, seats.hashes.clone())?;
        self.store_new(m, seats, view_detail, request.as_ref())
    }

    /// Queues the write of a match just created or imported, makes it live,
    /// and answers with its tokens and the spectator's view.
    fn store_new(
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

    /// Replays and verifies a record and stores it as a new match (admin
    /// only). Its size, its number of actions and every count and value
    /// its setup holds are checked before anything is made for its seats.
    pub fn import(&self, caller: &Caller, record_json: &str) -> HostResult<Created> {
        caller.require(Need::Admin, "importing a record")?;
        creation::check_record_size(record_json)?;
        let record = Record::parse(record_json)?;
        // The build the record names, or the version's only one.
        let plugin = match self.catalog.registry().build_to_replay(
            &record.game,
            &record.plugin_version,
            record.plugin_sha256.as_deref(),
        ) {
            ReplayBuild::Recorded(plugin) | ReplayBuild::Only(plugin) => plugin,
            ReplayBuild::Several(several) if record.plugin_sha256.is_none() => {
                return Err(HostError::AmbiguousGameVersion {
                    game: record.game.clone(),
                    version: record.plugin_version.clone(),
                    files: several.iter().map(|b| b.file_name()).collect(),
                });
            }
            ReplayBuild::Several(_) | ReplayBuild::NotLoaded => {
                return Err(HostError::GameNotLoaded {
                    game: record.game.clone(),
                    version: record.plugin_version.clone(),
                });
            }
        };
        creation::check_record(plugin.manifest(), &record)?;
        let seats = NewSeats::for_record(record.players);
        let mut setup = record.setup(creation::new_match_id());
        setup.creator = caller.creator_key();
        // The build it replays through from now on.
        setup.plugin_sha256 = Some(plugin.sha256().to_string());
        let game: Arc<dyn DynGame> = plugin;
        let m = Match::replay(game, setup, seats.hashes.clone(), &record.actions)?;
        record.verify(&m)?;
        let (created, commit) = self.store_new(m, seats, ViewDetail::Full, None)?;
        if let Err(e) = commit.wait() {
            self.discard(&created.match_id);
            return Err(e);
        }
        Ok(created)
    }

    /// Joins an open seat: `seat`, or the seat `join_code` opens, or the
    /// lowest open seat anyone may take. An invite-only seat needs its
    /// code, unless an organizer of the match's tenant or the admin seats
    /// the player.
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
        // An organizer seats players in its own tenant's matches; in another's
        // it needs the seat's join code like anyone.
        let by_organizer = caller.runs(&m.setup().tenant);
        let seat = m.seat_to_join(by_organizer, seat, join_code)?;
        let player = seated_player(player)?;
        self.store_within_reach()?;
        let token = new_token();
        let hash = hash_token(&token);
        let seat = m.join(seat, hash, &player)?;
        let join = m.joins().last().cloned().ok_or_else(|| {
            HostError::Internal("a seat was taken but the match did not record it".into())
        })?;
        let events = lifecycle::joined(&m, join.seat, join.at_ms);
        self.store.join_seat(match_id, join, hash, &events)?;
        m.seat_taken(seat);
        self.bots.poke_if_due(&m);
        if player.is_bot() {
            // A bot's seat is held by a token nobody is given, and whoever
            // seated the bot sees what a spectator sees.
            return Ok((seat, String::new(), m.view(Viewer::Spectator)?));
        }
        Ok((seat, token, m.view(Viewer::Seat(seat))?))
    }
}

/// `player` as seated: a bot's spec read and written out in full, and its
/// display name the spec unless it has one.
fn seated_player(player: &SeatPlayer) -> HostResult<SeatPlayer> {
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
    Ok(player)
}
