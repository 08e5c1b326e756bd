//! Listing matches, records out and in, and watching.

use std::sync::Arc;

use tabletop_core::{
    History, HostError, HostResult, Lifecycle, Match, Record, SpectatorHorizon, ViewDetail,
    ViewerEvent, now_ms,
};
use tabletop_sdk::{DynGame, Viewer};

use sha2::{Digest, Sha256};

use super::access::{Caller, Need};
use super::create::{NewSeats, check_players, check_start_position};
use super::{
    Created, Engine, ListQuery, MatchSummary, Resume, WatchStart, issue_tokens, lock, new_match_id,
};
use crate::store::MatchQuery as StoreQuery;
use tabletop_core::identity::check_seat_players;
use tabletop_core::setup::check_labels;

impl Engine {
    /// A page of matches, oldest first (by creation time, then id): every
    /// match the store has that `query` selects, with what the host holds
    /// of the ones in memory (their version and stage as of now) and the
    /// reason of the ones it cannot play. Returns the page and the token of
    /// the next one (empty after the last).
    pub fn list_matches(&self, query: &ListQuery) -> HostResult<(Vec<MatchSummary>, String)> {
        let limit = match query.page_size {
            0 => DEFAULT_PAGE,
            n => n.min(MAX_PAGE),
        };
        let filters = filters_fingerprint(query);
        let after = page_start(&query.page_token, &filters)?;
        let unavailable = self.unavailable.read().unwrap_or_else(|e| e.into_inner());
        if query.state == Some(None) {
            let mut out: Vec<MatchSummary> = unavailable
                .values()
                .filter(|u| {
                    let setup = &u.setup;
                    StoreQuery {
                        game: query.game.clone(),
                        labels: query.labels.clone(),
                        created_from_ms: query.created_from_ms,
                        created_before_ms: query.created_before_ms,
                        after: after.clone(),
                        ..StoreQuery::default()
                    }
                    .selects(setup, Lifecycle::Running)
                })
                .map(|u| MatchSummary {
                    match_id: u.setup.match_id.clone(),
                    game: u.setup.game.clone(),
                    plugin_version: u.setup.plugin_version.clone(),
                    players: u.setup.players,
                    lifecycle: None,
                    version: u.version,
                    open_seats: Vec::new(),
                    created_at_ms: u.setup.created_at_ms,
                    unavailable_reason: u.reason.clone(),
                    labels: u.setup.labels.clone(),
                })
                .collect();
            out.sort_by(|a, b| (a.created_at_ms, &a.match_id).cmp(&(b.created_at_ms, &b.match_id)));
            out.truncate(limit);
            let next = next_token(&out, limit, &filters);
            return Ok((out, next));
        }
        let stored = self.store.list(&StoreQuery {
            game: query.game.clone(),
            state: query.state.flatten(),
            labels: query.labels.clone(),
            created_from_ms: query.created_from_ms,
            created_before_ms: query.created_before_ms,
            after,
            limit,
        })?;
        let live = self.matches.read().unwrap_or_else(|e| e.into_inner());
        let now = now_ms();
        let mut out = Vec::with_capacity(stored.len());
        for summary in stored {
            let id = &summary.setup.match_id;
            let mut listed = MatchSummary {
                match_id: id.clone(),
                game: summary.setup.game.clone(),
                plugin_version: summary.setup.plugin_version.clone(),
                players: summary.setup.players,
                lifecycle: Some(summary.state),
                version: summary.final_version.unwrap_or(0),
                open_seats: summary.open_seats,
                created_at_ms: summary.setup.created_at_ms,
                unavailable_reason: String::new(),
                labels: summary.setup.labels.clone(),
            };
            if let Some(reason) = &summary.unreadable {
                listed.lifecycle = None;
                listed.version = 0;
                listed.unavailable_reason = reason.clone();
            } else if let Some(u) = unavailable.get(id) {
                listed.lifecycle = None;
                listed.version = u.version;
                listed.unavailable_reason = u.reason.clone();
            } else if let Some(slot) = live.get(id) {
                let m = lock(slot);
                listed.lifecycle = Some(m.lifecycle());
                // A listing is public: it shows what spectators may see.
                listed.version = m.spectator_horizon(now).version;
            }
            out.push(listed);
        }
        let next = next_token(&out, limit, &filters);
        Ok((out, next))
    }

    /// The record of a match: organizers and the admin only while it
    /// runs (it holds the seed and every hidden card).
    pub fn export(&self, caller: &Caller, match_id: &str) -> HostResult<String> {
        let slot = self.slot(match_id)?;
        let m = lock(&slot);
        if m.lifecycle() != Lifecycle::Finished {
            caller
                .require(Need::Organizer, "exporting a running match's record")
                .map_err(|e| match e {
                    HostError::TokenRequired { .. } => HostError::ExportNeedsAdmin,
                    other => other,
                })?;
        }
        Ok(Record::of(&m)?.to_json())
    }

    /// Replays and verifies a record and stores it as a new match (admin
    /// only). Its size, its number of actions and every count and value
    /// its setup holds are checked before anything is made for its seats.
    pub fn import(&self, caller: &Caller, record_json: &str) -> HostResult<Created> {
        caller.require(Need::Admin, "importing a record")?;
        if record_json.len() > MAX_RECORD_BYTES {
            return Err(HostError::InvalidRecord(format!(
                "a record is at most {MAX_RECORD_BYTES} bytes, not {}",
                record_json.len()
            )));
        }
        let record = Record::parse(record_json)?;
        let plugin = self
            .registry
            .get(&record.game, Some(&record.plugin_version))
            .ok_or_else(|| HostError::GameNotLoaded {
                game: record.game.clone(),
                version: record.plugin_version.clone(),
            })?;
        check_record_setup(plugin.manifest(), &record)?;
        let (tokens, hashes) = issue_tokens(record.players, &[]);
        let setup = record.setup(new_match_id());
        let game: Arc<dyn DynGame> = plugin;
        let m = Match::replay(game, setup, hashes.clone(), &record.actions)?;
        record.verify(&m)?;
        let seats = NewSeats {
            hashes,
            tokens,
            join_code_hashes: Vec::new(),
            join_codes: Vec::new(),
        };
        let (created, commit) = self.store_new(m, seats, ViewDetail::Full, None)?;
        if let Err(e) = commit.wait() {
            self.discard(&created.match_id);
            return Err(e);
        }
        Ok(created)
    }

    /// Starts watching a match: subscribes to its live events and takes
    /// its history up to them, under the match's lock, so that together
    /// they miss nothing and repeat nothing. A spectator of a match with a
    /// spectator delay starts at what the delay shows, and is paced.
    pub fn watch(
        &self,
        match_id: &str,
        token: &str,
        resume: Resume,
        with_views: bool,
    ) -> HostResult<WatchStart> {
        let slot = self.slot(match_id)?;
        let mut m = lock(&slot);
        let viewer = m.viewer_of(token)?;
        let finished = m.lifecycle() == Lifecycle::Finished;
        let paced = viewer == Viewer::Spectator && m.spectator_delay().is_some() && !finished;
        // A paced watcher reads its events, views included, from the
        // history: the live feed only wakes it.
        let subscription = m.subscribe(with_views && !paced);
        let snapshot = match resume {
            Resume::Live => Some(m.view(viewer)?),
            Resume::AfterSeq(_) | Resume::FromVersion(_) => None,
        };
        let visible = visible_to(&m, viewer, now_ms());
        let history = Arc::new(m.history());
        drop(m);
        let after_seq = after_seq(&history, resume, &visible)?;
        Ok(WatchStart {
            viewer,
            snapshot,
            after_seq,
            history,
            subscription,
            finished,
            paced,
        })
    }

    /// What spectators may see of a match now (see
    /// [`tabletop_core::delay`]): what paces a spectator's watch stream.
    pub fn spectator_horizon(&self, match_id: &str) -> HostResult<SpectatorHorizon> {
        let slot = self.slot(match_id)?;
        let m = lock(&slot);
        Ok(m.spectator_horizon(now_ms()))
    }

    /// A match's history as of now, for a watcher that fell behind the live
    /// feed and catches up from the log.
    pub fn history(&self, match_id: &str) -> HostResult<Arc<History>> {
        let slot = self.slot(match_id)?;
        let m = lock(&slot);
        Ok(Arc::new(m.history()))
    }

    /// A page of past events (ListEvents): up to `limit` after `resume`,
    /// as the viewer whose token is `token` was told them; and the
    /// sequence number of the match's latest event.
    pub fn list_events(
        &self,
        match_id: &str,
        token: &str,
        resume: Resume,
        limit: usize,
        with_views: bool,
    ) -> HostResult<(Vec<ViewerEvent>, u64)> {
        let slot = self.slot(match_id)?;
        let (viewer, history, visible) = {
            let m = lock(&slot);
            let viewer = m.viewer_of(token)?;
            let visible = visible_to(&m, viewer, now_ms());
            (viewer, m.history(), visible)
        };
        let after = after_seq(&history, resume, &visible)?;
        let mut events = history.events(viewer, after, limit, with_views)?;
        events.retain(|event| event.seq <= visible.seq);
        Ok((events, visible.seq))
    }
}

/// The largest record ImportRecord takes, in bytes: what a gRPC message
/// carries by default (4 MiB), some 15 000 actions.
pub const MAX_RECORD_BYTES: usize = 4 * 1024 * 1024;

/// Most actions (log entries) a record may hold.
pub const MAX_RECORD_ACTIONS: usize = 20_000;

/// Refuses a record whose setup no match could have had: a player count
/// the game is not played by (checked first, since every other count is
/// per seat), too many actions, a time control, start position, labels,
/// spectator delay or seat players a new match would be refused.
fn check_record_setup(manifest: &tabletop_sdk::Manifest, record: &Record) -> HostResult<()> {
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

/// A listing's page size when the request names none, and its largest.
const DEFAULT_PAGE: usize = 100;
const MAX_PAGE: usize = 1000;

/// What a page token is bound to: the filters it was issued for.
fn filters_fingerprint(query: &ListQuery) -> String {
    let canonical = format!(
        "{:?}|{:?}|{:?}|{:?}|{:?}",
        query.game, query.state, query.labels, query.created_from_ms, query.created_before_ms
    );
    hex::encode(&Sha256::digest(canonical.as_bytes())[..6])
}

/// The token of the page after `page`: empty when `page` was not full.
fn next_token(page: &[MatchSummary], limit: usize, filters: &str) -> String {
    match page.last() {
        Some(last) if page.len() == limit => hex::encode(format!(
            "{}.{}.{filters}",
            last.created_at_ms, last.match_id
        )),
        _ => String::new(),
    }
}

/// Where a page starts: after the match a token names (none for an empty
/// token), if the token was issued for the same filters.
fn page_start(token: &str, filters: &str) -> HostResult<Option<(i64, String)>> {
    if token.is_empty() {
        return Ok(None);
    }
    let bad = |why: &str| HostError::InvalidPageToken(why.to_string());
    let text = hex::decode(token)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .ok_or_else(|| bad("it is not a token this server issued"))?;
    let mut parts = text.splitn(3, '.');
    let (Some(at), Some(id), Some(bound)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(bad("it is not a token this server issued"));
    };
    if bound != filters {
        return Err(bad(
            "it was issued for other filters: ask again from the first page",
        ));
    }
    let at = at
        .parse()
        .map_err(|_| bad("it is not a token this server issued"))?;
    Ok(Some((at, id.to_string())))
}

/// What `viewer` may see of `m` at `now_ms`: a seat, everything; a
/// spectator, what the spectator delay shows.
fn visible_to(m: &Match, viewer: Viewer, now_ms: i64) -> SpectatorHorizon {
    match viewer {
        Viewer::Spectator => m.spectator_horizon(now_ms),
        Viewer::Seat(_) => SpectatorHorizon {
            version: m.version(),
            seq: m.event_seq(),
            delayed: false,
            next_at_ms: None,
        },
    }
}

/// The sequence number a resume point stands for, for a viewer who may
/// see up to `visible`.
fn after_seq(history: &History, resume: Resume, visible: &SpectatorHorizon) -> HostResult<u64> {
    match resume {
        Resume::Live => Ok(visible.seq),
        Resume::AfterSeq(seq) if seq > visible.seq => Err(HostError::InvalidRequest(format!(
            "event {seq} has not happened: the match's latest event is {}",
            visible.seq
        ))),
        Resume::AfterSeq(seq) => Ok(seq),
        Resume::FromVersion(version) => {
            visible.check_version(version)?;
            history.seq_of_version(version)
        }
    }
}
