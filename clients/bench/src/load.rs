//! The engine-host driver: N simulated players on M connections, each creating
//! matches of one game and playing them to the end with random legal actions
//! (ListLegalActions, then SubmitAction with the expected version).
//!
//! One worker plays every seat of its match in turn, so N workers keep exactly
//! N requests in flight: that is the concurrency the targets are stated in.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tabletop_proto::v1 as pb;
use tabletop_proto::v1::matches_client::MatchesClient;
use tabletop_proto::v1::watch_client::WatchClient;
use tokio_stream::StreamExt;
use tonic::transport::Channel;

use crate::stats::{self, Live, Sizes};

/// How one phase is driven.
#[derive(Debug, Clone)]
pub struct Drive {
    /// Requests in flight (one per worker).
    pub players: usize,
    /// Connections the workers share round-robin.
    pub channels: Vec<Channel>,
    /// How long to measure.
    pub duration: Duration,
    /// Seed of the workers' random choices.
    pub seed: u64,
    /// Ask SubmitAction for summary views.
    pub summary_views: bool,
    /// Ask ListLegalActions for ids without notation.
    pub ids_only: bool,
    /// A bearer credential every player calls with (`None`: anonymous).
    pub credential: Option<String>,
    /// Each player's time between actions (`None`: the next as soon as the
    /// last was answered). With it the offered load is fixed:
    /// `players / pace` actions a second, whatever the latency; a player
    /// behind its schedule sends at once until it has caught up.
    pub pace: Option<Duration>,
}

/// Byte counters for the payload sizes, summed over a worker's calls.
#[derive(Debug, Default, Clone, Copy)]
struct SizeSums {
    legal: u64,
    legal_request: u64,
    legal_response: u64,
    submit: u64,
    submit_request: u64,
    submit_response: u64,
}

impl SizeSums {
    fn add(&mut self, o: &SizeSums) {
        self.legal += o.legal;
        self.legal_request += o.legal_request;
        self.legal_response += o.legal_response;
        self.submit += o.submit;
        self.submit_request += o.submit_request;
        self.submit_response += o.submit_response;
    }

    fn averages(&self) -> Sizes {
        let avg = |sum: u64, n: u64| sum.checked_div(n).unwrap_or(0);
        Sizes {
            legal_request: avg(self.legal_request, self.legal),
            legal_response: avg(self.legal_response, self.legal),
            submit_request: avg(self.submit_request, self.submit),
            submit_response: avg(self.submit_response, self.submit),
        }
    }
}

/// Connects `count` separate HTTP/2 connections to `url`.
pub async fn connect(url: &str, count: usize) -> Result<Vec<Channel>, String> {
    connect_with(url, count, |endpoint| endpoint.tcp_nodelay(true)).await
}

/// Connects `count` (at least one) separate HTTP/2 connections to `url`,
/// each endpoint set up by `configure`.
pub async fn connect_with(
    url: &str,
    count: usize,
    configure: impl Fn(tonic::transport::Endpoint) -> tonic::transport::Endpoint,
) -> Result<Vec<Channel>, String> {
    let mut channels = Vec::with_capacity(count.max(1));
    for _ in 0..count.max(1) {
        let endpoint = configure(
            tonic::transport::Endpoint::from_shared(url.to_string())
                .map_err(|e| format!("bad address {url}: {e}"))?,
        );
        channels.push(
            endpoint
                .connect()
                .await
                .map_err(|e| format!("cannot connect to {url}: {e}"))?,
        );
    }
    Ok(channels)
}

/// The games served, with their player counts.
pub async fn games(channel: Channel) -> Result<Vec<pb::GameInfo>, String> {
    let mut catalog = tabletop_proto::v1::catalog_client::CatalogClient::new(channel);
    let games = catalog
        .list_games(pb::ListGamesRequest {})
        .await
        .map_err(|e| format!("ListGames failed: {e}"))?
        .into_inner()
        .games;
    Ok(games)
}

/// Plays matches of `game` with `players` seats for `drive.duration`.
/// Returns the live counters and the payload sizes seen.
pub async fn run(game: &str, seats: u32, drive: &Drive, live: Arc<Live>) -> Sizes {
    let deadline = Instant::now() + drive.duration;
    let mut tasks = tokio::task::JoinSet::new();
    for worker in 0..drive.players {
        let channel = drive.channels[worker % drive.channels.len()].clone();
        let live = live.clone();
        let game = game.to_string();
        let mut player = Player::new(
            channel,
            drive.seed.wrapping_add(worker as u64),
            drive.summary_views,
            drive.ids_only,
        );
        player.pace = drive.pace;
        if let Some(secret) = &drive.credential {
            match player.with_credential(secret) {
                Ok(with) => player = with,
                Err(e) => {
                    eprintln!("tabletop-bench: {e}");
                    return Sizes::default();
                }
            }
        }
        tasks.spawn(async move {
            while Instant::now() < deadline {
                if let Some(created) = player.create(&game, seats, &live).await
                    && player.play(created, &live, deadline).await
                {
                    live.matches.fetch_add(1, Ordering::Relaxed);
                }
            }
            live.merge(&player.histogram);
            player.sizes
        });
    }
    let mut total = SizeSums::default();
    while let Some(done) = tasks.join_next().await {
        if let Ok(sizes) = done {
            total.add(&sizes);
        }
    }
    total.averages()
}

/// Safety net: a match that has not ended after this many actions is resigned
/// (random play in every current game ends far sooner).
const MAX_ACTIONS_PER_MATCH: usize = 100_000;

/// What came of a seat's turn.
enum Acted {
    /// The action was taken; the view after it, when the reply had one.
    Moved(Option<Box<pb::MatchView>>),
    /// The turn was misjudged or a call failed: look at the match again.
    LookAgain,
}

/// One simulated player: creates matches holding every seat and plays them
/// with random legal actions (ListLegalActions, then SubmitAction with the
/// expected version), recording SubmitAction latencies and payload sizes.
#[derive(Debug)]
pub struct Player {
    client: MatchesClient<Channel>,
    rng: StdRng,
    histogram: hdrhistogram::Histogram<u64>,
    sizes: SizeSums,
    view_detail: pb::ViewDetail,
    ids_only: bool,
    /// `Bearer SECRET`, sent with every call; `None`: anonymous.
    bearer: Option<tonic::metadata::MetadataValue<tonic::metadata::Ascii>>,
    /// Time between actions, as in [`Drive`].
    pace: Option<Duration>,
    /// When the next paced action is due.
    next_due: Option<Instant>,
    /// Stop playing a match once its version reaches this (`None`: play
    /// it to the end).
    stop_at_version: Option<u64>,
}

/// A match a [`Player`] created and holds every seat of.
#[derive(Debug)]
pub struct Created {
    /// The match.
    pub match_id: String,
    tokens: Vec<String>,
    view: pb::MatchView,
}

impl Player {
    /// A player on `channel` whose choices follow `seed`; `summary_views`
    /// and `ids_only` as in [`Drive`].
    pub fn new(channel: Channel, seed: u64, summary_views: bool, ids_only: bool) -> Player {
        Player {
            client: MatchesClient::new(channel).max_decoding_message_size(64 << 20),
            rng: StdRng::seed_from_u64(seed),
            histogram: stats::new_histogram(),
            sizes: SizeSums::default(),
            view_detail: if summary_views {
                pb::ViewDetail::Summary
            } else {
                pb::ViewDetail::Full
            },
            ids_only,
            bearer: None,
            pace: None,
            next_due: None,
            stop_at_version: None,
        }
    }

    /// The same player, leaving each match once its version (the state
    /// changes so far) reaches `version`, running.
    pub fn stopping_at_version(mut self, version: u64) -> Player {
        self.stop_at_version = Some(version);
        self
    }

    /// Waits until the next paced action is due (at once without a pace).
    async fn wait_for_turn(&mut self) {
        let Some(pace) = self.pace else {
            return;
        };
        let due = self.next_due.unwrap_or_else(Instant::now);
        tokio::time::sleep_until(due.into()).await;
        self.next_due = Some(due + pace);
    }

    /// The same player, calling with the bearer credential `secret`.
    pub fn with_credential(mut self, secret: &str) -> Result<Player, String> {
        self.bearer = Some(
            format!("Bearer {secret}")
                .parse()
                .map_err(|_| "a credential is printable ASCII".to_string())?,
        );
        Ok(self)
    }

    /// `message` as a request carrying the player's credential, if any.
    fn request<T>(&self, message: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        if let Some(bearer) = &self.bearer {
            request
                .metadata_mut()
                .insert("authorization", bearer.clone());
        }
        request
    }

    /// The SubmitAction latencies recorded so far (microseconds).
    pub fn histogram(&self) -> &hdrhistogram::Histogram<u64> {
        &self.histogram
    }

    /// Creates a match of `game` with `seats` seats, all held by this player.
    pub async fn create(&mut self, game: &str, seats: u32, live: &Live) -> Option<Created> {
        live.rpcs.fetch_add(1, Ordering::Relaxed);
        let request = self.request(pb::CreateMatchRequest {
            game: game.to_string(),
            players: seats,
            // The server picks the seed: choosing one takes an
            // organizer credential, and the load is the same.
            view_detail: self.view_detail as i32,
            ..Default::default()
        });
        let created = match self.client.create_match(request).await {
            Ok(r) => r.into_inner(),
            Err(status) => {
                live.error(&status);
                // Do not spin on a server that refuses everything.
                tokio::time::sleep(Duration::from_millis(10)).await;
                return None;
            }
        };
        let mut tokens = vec![String::new(); seats as usize];
        for seat in created.seats {
            if let Some(slot) = tokens.get_mut(seat.seat as usize) {
                *slot = seat.token;
            }
        }
        Some(Created {
            match_id: created.match_id,
            tokens,
            view: created.view?,
        })
    }

    /// Plays `created` until it ends, the deadline passes or its version
    /// reaches the player's stop. Returns whether it was played to the end.
    pub async fn play(&mut self, created: Created, live: &Live, deadline: Instant) -> bool {
        let Created {
            match_id,
            tokens,
            mut view,
        } = created;
        let mut acted = 0;
        while Instant::now() < deadline && acted < MAX_ACTIONS_PER_MATCH {
            if view.state == pb::MatchState::Finished as i32 {
                return true;
            }
            if view.state != pb::MatchState::Running as i32 || view.to_move.is_empty() {
                return false;
            }
            if self
                .stop_at_version
                .is_some_and(|stop| view.version >= stop)
            {
                return false;
            }
            let to_move = view.to_move.clone();
            let mut refresh = false;
            for seat in to_move {
                let Some(token) = tokens.get(seat as usize) else {
                    return false;
                };
                match self.act(&match_id, token, live).await {
                    Acted::Moved(next) => {
                        acted += 1;
                        if let Some(next) = next {
                            view = *next;
                        }
                    }
                    Acted::LookAgain => {
                        refresh = true;
                        break;
                    }
                }
            }
            if refresh {
                // Someone's turn was misjudged (or a call failed): look again.
                match self.look(&match_id, live).await {
                    Some(now) => view = now,
                    None => return false,
                }
            }
        }
        view.state == pb::MatchState::Finished as i32
    }

    /// One seat's move, on its turn: lists its legal actions and submits
    /// one of them at random.
    async fn act(&mut self, match_id: &str, token: &str, live: &Live) -> Acted {
        let (ids_only, view_detail) = (self.ids_only, self.view_detail);
        self.wait_for_turn().await;
        let request = pb::ListLegalActionsRequest {
            match_id: match_id.to_string(),
            seat_token: token.to_string(),
            ids_only,
        };
        self.sizes.legal += 1;
        self.sizes.legal_request += prost::Message::encoded_len(&request) as u64;
        live.rpcs.fetch_add(1, Ordering::Relaxed);
        let request = self.request(request);
        let legal = match self.client.list_legal_actions(request).await {
            Ok(r) => r.into_inner(),
            Err(status) => {
                live.error(&status);
                return Acted::LookAgain;
            }
        };
        self.sizes.legal_response += prost::Message::encoded_len(&legal) as u64;
        // An `ids_only` answer has the ids packed in `action_ids`.
        let count = if ids_only {
            legal.action_ids.len()
        } else {
            legal.actions.len()
        };
        if count == 0 {
            return Acted::LookAgain;
        }
        let pick = self.rng.random_range(0..count);
        let action_id = if ids_only {
            legal.action_ids[pick]
        } else {
            legal.actions[pick].id
        };
        let request = pb::SubmitActionRequest {
            match_id: match_id.to_string(),
            seat_token: token.to_string(),
            action: Some(pb::submit_action_request::Action::ActionId(action_id)),
            expected_version: Some(legal.version),
            view_detail: view_detail as i32,
        };
        self.sizes.submit += 1;
        self.sizes.submit_request += prost::Message::encoded_len(&request) as u64;
        live.rpcs.fetch_add(1, Ordering::Relaxed);
        let request = self.request(request);
        let start = Instant::now();
        let result = self.client.submit_action(request).await;
        stats::record(&mut self.histogram, start.elapsed());
        match result {
            Ok(r) => {
                let r = r.into_inner();
                self.sizes.submit_response += prost::Message::encoded_len(&r) as u64;
                live.actions.fetch_add(1, Ordering::Relaxed);
                Acted::Moved(r.view.map(Box::new))
            }
            Err(status) => {
                live.error(&status);
                Acted::LookAgain
            }
        }
    }

    /// The match's view as a spectator sees it now; `None` if the call
    /// failed.
    async fn look(&mut self, match_id: &str, live: &Live) -> Option<pb::MatchView> {
        live.rpcs.fetch_add(1, Ordering::Relaxed);
        let request = self.request(pb::GetViewRequest {
            match_id: match_id.to_string(),
            seat_token: String::new(),
            at_version: None,
            svg: false,
        });
        match self.client.get_view(request).await {
            Ok(r) => Some(r.into_inner()),
            Err(status) => {
                live.error(&status);
                None
            }
        }
    }
}

/// Opens `count` spectator Watch streams over idle matches of `game` (100
/// streams per match) and keeps draining them until the returned set is
/// dropped. Returns once every stream has received its first message.
pub async fn open_watchers(
    channels: &[Channel],
    game: &str,
    seats: u32,
    count: usize,
) -> Result<tokio::task::JoinSet<()>, String> {
    let mut set = tokio::task::JoinSet::new();
    if count == 0 {
        return Ok(set);
    }
    let per_match = 100;
    let mut client = MatchesClient::new(channels[0].clone());
    let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel::<bool>(1024);
    let mut match_id = String::new();
    for i in 0..count {
        if i % per_match == 0 {
            match_id = client
                .create_match(pb::CreateMatchRequest {
                    game: game.to_string(),
                    players: seats,
                    ..Default::default()
                })
                .await
                .map_err(|e| format!("cannot create a match to watch: {e}"))?
                .into_inner()
                .match_id;
        }
        let mut watch = WatchClient::new(channels[i % channels.len()].clone());
        let ready = ready_tx.clone();
        let request = pb::WatchMatchRequest {
            match_id: match_id.clone(),
            ..Default::default()
        };
        set.spawn(async move {
            match watch.watch_match(request).await {
                Ok(stream) => {
                    let mut stream = stream.into_inner();
                    let first = stream.next().await;
                    let _ = ready.send(matches!(first, Some(Ok(_)))).await;
                    while let Some(Ok(_)) = stream.next().await {}
                }
                Err(_) => {
                    let _ = ready.send(false).await;
                }
            }
        });
    }
    drop(ready_tx);
    let mut ok = 0;
    let mut failed = 0;
    let wait = async {
        while let Some(r) = ready_rx.recv().await {
            if r {
                ok += 1;
            } else {
                failed += 1;
            }
            if ok + failed == count {
                break;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(120), wait)
        .await
        .map_err(|_| format!("only {ok} of {count} watch streams opened within 120 s"))?;
    if failed > 0 {
        return Err(format!("{failed} of {count} watch streams failed to open"));
    }
    Ok(set)
}
