//! What a listing of matches asks for and answers, and its pages: a page
//! token names where the previous page ended and is bound to the filters
//! it was issued for.

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};
use tabletop_core::{HostError, HostResult};

use crate::store::{ListedState, MatchQuery, StoredSummary};

/// A listing's page size when the request names none, and its largest.
const DEFAULT_PAGE: usize = 100;
const MAX_PAGE: usize = 1000;

/// A match in a listing.
#[derive(Debug, Clone)]
pub struct MatchSummary {
    /// Id.
    pub match_id: String,
    /// Game.
    pub game: String,
    /// Plugin version.
    pub plugin_version: String,
    /// Seats.
    pub players: u32,
    /// Where it is in its life: its stage, or quarantined (None:
    /// unavailable).
    pub state: Option<ListedState>,
    /// Version.
    pub version: u64,
    /// Open seats.
    pub open_seats: Vec<u32>,
    /// Creation time.
    pub created_at_ms: i64,
    /// Why unavailable.
    pub unavailable_reason: String,
    /// Labels.
    pub labels: BTreeMap<String, String>,
}

impl MatchSummary {
    /// A match as the store lists it (an unreadable one as unavailable).
    pub fn of_stored(summary: StoredSummary) -> MatchSummary {
        let setup = summary.setup;
        let mut listed = MatchSummary {
            match_id: setup.match_id,
            game: setup.game,
            plugin_version: setup.plugin_version,
            players: setup.players,
            state: Some(summary.state),
            version: summary.final_version.unwrap_or(0),
            open_seats: summary.open_seats,
            created_at_ms: setup.created_at_ms,
            unavailable_reason: String::new(),
            labels: setup.labels,
        };
        if let Some(reason) = summary.unreadable {
            listed.state = None;
            listed.version = 0;
            listed.unavailable_reason = reason;
        }
        listed
    }
}

/// Which matches a listing shows, and which page.
#[derive(Debug, Clone, Default)]
pub struct ListQuery {
    /// Only this game.
    pub game: Option<String>,
    /// Only this state (`Some(None)`: only the unavailable).
    pub state: Option<Option<ListedState>>,
    /// Only matches with every one of these labels.
    pub labels: BTreeMap<String, String>,
    /// Only matches created at or after this time.
    pub created_from_ms: Option<i64>,
    /// Only matches created before this time.
    pub created_before_ms: Option<i64>,
    /// At most this many (0: the default page).
    pub page_size: usize,
    /// Where the previous page ended (empty: the first page).
    pub page_token: String,
}

/// One page a [`ListQuery`] asks for, its token read.
#[derive(Debug)]
pub struct Page {
    /// The store's query for the page (its stage as the listing asks,
    /// none for the unavailable).
    query: MatchQuery,
    /// What the page's token is bound to.
    filters: String,
}

impl Page {
    /// The page `query` asks for, or why its page token is refused.
    pub fn of(query: &ListQuery) -> HostResult<Page> {
        let limit = match query.page_size {
            0 => DEFAULT_PAGE,
            n => n.min(MAX_PAGE),
        };
        let filters = filters_fingerprint(query);
        let after = page_start(&query.page_token, &filters)?;
        Ok(Page {
            query: MatchQuery {
                game: query.game.clone(),
                state: query.state.flatten(),
                labels: query.labels.clone(),
                created_from_ms: query.created_from_ms,
                created_before_ms: query.created_before_ms,
                after,
                limit,
            },
            filters,
        })
    }

    /// What the store is asked for.
    pub fn query(&self) -> &MatchQuery {
        &self.query
    }

    /// `matches`, which the page's query selects, as the page: sorted by
    /// creation (then id), the ones past its end dropped.
    pub fn cut(&self, mut matches: Vec<MatchSummary>) -> Vec<MatchSummary> {
        matches.sort_by(|a, b| (a.created_at_ms, &a.match_id).cmp(&(b.created_at_ms, &b.match_id)));
        matches.truncate(self.query.limit);
        matches
    }

    /// The token of the page after `page`: empty when `page` was not full.
    pub fn next_token(&self, page: &[MatchSummary]) -> String {
        match page.last() {
            Some(last) if page.len() == self.query.limit => hex::encode(format!(
                "{}.{}.{}",
                last.created_at_ms, last.match_id, self.filters
            )),
            _ => String::new(),
        }
    }
}

/// What a page token is bound to: the filters it was issued for.
fn filters_fingerprint(query: &ListQuery) -> String {
    let canonical = format!(
        "{:?}|{:?}|{:?}|{:?}|{:?}",
        query.game, query.state, query.labels, query.created_from_ms, query.created_before_ms
    );
    hex::encode(&Sha256::digest(canonical.as_bytes())[..6])
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
