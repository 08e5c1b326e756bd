//! Server-side bots as seats: matches of bots that finish by themselves for
//! every game, a bot that answers a client's moves, refused specs, no token
//! for a bot's seat, bots named in views, records and the feed, and bots
//! that play on after a restart.

use std::time::Duration;

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use tabletop_proto::v1 as pb;
use tabletop_proto::v1::director_client::DirectorClient;
use tabletop_proto::v1::lifecycle_event::Kind;
use tabletop_proto::v1::matches_client::MatchesClient;
use tabletop_tests::{ADMIN_TOKEN, Host, HostOptions, as_admin};
use tokio_stream::StreamExt;
use tonic::Code;
use tonic::transport::Channel;

use crate::support::{E2E_MAX_TURNS, finished_by_itself, legal, seat_bots, spectator, submit};

/// A guard against a hang, not a timing assertion: bot matches with tiny
/// budgets finish in a fraction of it.
const PATIENCE: Duration = Duration::from_secs(240);

/// A host keeping matches in memory, with two bot threads.
async fn bot_host() -> Host {
    Host::start_with(HostOptions {
        args: vec![
            "--store".into(),
            "memory".into(),
            "--bot-threads".into(),
            "2".into(),
        ],
        ..HostOptions::default()
    })
    .await
}

/// The catalog's games with their smallest and largest player counts, and
/// whether each has a `max_turns` option.
async fn games(host: &Host) -> Vec<(String, u32, u32, bool)> {
    host.catalog()
        .await
        .list_games(pb::ListGamesRequest {})
        .await
        .expect("list games")
        .into_inner()
        .games
        .into_iter()
        .map(|g| {
            let limited = g.options.iter().any(|o| o.name == "max_turns");
            (g.name, g.min_players, g.max_players, limited)
        })
        .collect()
}

/// A creation of `game` for `players` with `bots` seated, a short turn
/// limit where the game has one.
fn bot_match(
    game: &str,
    players: u32,
    limited: bool,
    bots: &[(u32, &str)],
) -> pb::CreateMatchRequest {
    pb::CreateMatchRequest {
        game: game.into(),
        players,
        options: if limited {
            [("max_turns".to_string(), E2E_MAX_TURNS.to_string())].into()
        } else {
            Default::default()
        },
        bots: seat_bots(bots),
        ..Default::default()
    }
}

/// A two-seat Lanza match (short) with the bot `spec` in seat 0 and seat
/// 1 open to anyone.
fn bot_beside_an_open_seat(spec: &str) -> pb::CreateMatchRequest {
    pb::CreateMatchRequest {
        open_seats: vec![1],
        public_open_seats: true,
        ..bot_match("lanza", 2, true, &[(0, spec)])
    }
}

#[tokio::test]
async fn bot_matches_finish_by_themselves_for_every_game_at_its_smallest_and_largest_count() {
    let host = bot_host().await;
    let mut matches = host.matches().await;
    let mut started = Vec::new();
    let games = games(&host).await;
    assert!(games.len() >= 4, "every built game is served: {games:?}");
    for (game, min, max, limited) in games {
        for players in [min, max] {
            // One tiny search among random players: the search runs in the
            // host for every game, and the matches stay quick.
            let specs: Vec<(u32, &str)> = (0..players)
                .map(|seat| (seat, if seat == 0 { "mcts:8" } else { "random" }))
                .collect();
            let created = matches
                .create_match(bot_match(&game, players, limited, &specs))
                .await
                .unwrap_or_else(|e| panic!("create {game} for {players}: {e}"))
                .into_inner();
            assert!(
                created.seats.is_empty(),
                "no token for a bot's seat: {created:?}"
            );
            started.push((game.clone(), players, created.match_id));
        }
    }
    for (game, players, match_id) in started {
        let view = finished_by_itself(&mut matches, &match_id, PATIENCE).await;
        assert_eq!(view.results.len(), players as usize, "{game} for {players}");
        assert!(view.version > 1, "{game} for {players}: the bots played");
        for seat in &view.seats {
            let spec = if seat.seat == 0 { "mcts:8" } else { "random" };
            assert_eq!(seat.bot, spec, "{game}: seat {}", seat.seat);
            assert_eq!(
                seat.display_name, spec,
                "the display name defaults to the spec"
            );
        }
        let record = matches
            .export_record(pb::ExportRecordRequest {
                match_id: match_id.clone(),
                admin_token: ADMIN_TOKEN.into(),
            })
            .await
            .expect("export")
            .into_inner()
            .record_json;
        let record: serde_json::Value = serde_json::from_str(&record).expect("a record is JSON");
        assert_eq!(
            record["seat_players"][0]["bot"], "mcts:8",
            "{game}: {record}"
        );
    }
}

/// Plays the client's seat at random until the match ends, leaving the
/// other seats to the bot; returns how many actions the client played.
async fn play_against_bot(
    matches: &mut MatchesClient<Channel>,
    match_id: &str,
    token: &str,
) -> usize {
    let mut rng = StdRng::seed_from_u64(5);
    let mut played = 0;
    tokio::time::timeout(PATIENCE, async {
        loop {
            let view = spectator(matches, match_id).await;
            if view.state == pb::MatchState::Finished as i32 {
                return;
            }
            let mine = &view.seats[0];
            if !mine.to_move || mine.has_acted {
                // The bot's turn: it answers without any call of ours.
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
            let legal = legal(matches, match_id, token)
                .await
                .expect("legal actions");
            let action = legal.actions.choose(&mut rng).expect("a legal action");
            match submit(matches, match_id, token, action.id, Some(legal.version)).await {
                Ok(_) => played += 1,
                // The bot moved between the two calls.
                Err(status) if status.code() == Code::FailedPrecondition => {}
                Err(status) => panic!("submit: {status}"),
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("match {match_id} did not finish"));
    played
}

#[tokio::test]
async fn a_bot_answers_a_clients_moves_in_turn_and_simultaneous_games() {
    let host = bot_host().await;
    let mut matches = host.matches().await;
    // Focus moves one seat at a time; Lanza's orders are simultaneous.
    for game in ["focus", "lanza"] {
        let created = matches
            .create_match(bot_match(game, 2, true, &[(1, "mcts:20")]))
            .await
            .expect("create")
            .into_inner();
        assert_eq!(created.seats.len(), 1, "a token for the client's seat only");
        assert_eq!(created.seats[0].seat, 0);
        let token = created.seats[0].token.clone();
        let played = play_against_bot(&mut matches, &created.match_id, &token).await;
        assert!(played > 0, "{game}: the client played");
        let view = spectator(&mut matches, &created.match_id).await;
        assert_eq!(view.seats[1].bot, "mcts:20");
        assert!(view.seats[0].bot.is_empty());
        // The log holds the bot's own moves.
        let record = matches
            .export_record(pb::ExportRecordRequest {
                match_id: created.match_id.clone(),
                admin_token: ADMIN_TOKEN.into(),
            })
            .await
            .expect("export")
            .into_inner()
            .record_json;
        let record: serde_json::Value = serde_json::from_str(&record).expect("JSON");
        let bot_moved = record["actions"]
            .as_array()
            .expect("actions")
            .iter()
            .filter(|e| e["type"] == "moves")
            .flat_map(|e| e["moves"].as_array().cloned().unwrap_or_default())
            .any(|m| m["seat"] == 1);
        assert!(bot_moved, "{game}: the bot played");
    }
}

#[tokio::test]
async fn bad_bot_specs_are_refused_saying_why_and_create_nothing() {
    let host = bot_host().await;
    let mut matches = host.matches().await;
    let cases = [
        (
            bot_match("focus", 2, false, &[(1, "mcts:fast")]),
            "a bot is `random`",
        ),
        (
            bot_match("focus", 2, false, &[(1, "genius")]),
            "unknown bot `genius`",
        ),
        (bot_match("focus", 2, false, &[(2, "random")]), "seat 2"),
        (
            bot_match("focus", 2, false, &[(1, "random"), (1, "mcts")]),
            "two bots",
        ),
        (
            pb::CreateMatchRequest {
                open_seats: vec![1],
                ..bot_match("focus", 2, false, &[(1, "random")])
            },
            "open",
        ),
    ];
    for (request, says) in cases {
        let refused = matches
            .create_match(request.clone())
            .await
            .expect_err("a bad bot is refused");
        assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
        assert!(
            refused.message().contains(says),
            "{says}: {}",
            refused.message()
        );
        assert!(
            refused.message().len() < 300,
            "short: {}",
            refused.message()
        );
    }
    let listed = matches
        .list_matches(as_admin(pb::ListMatchesRequest::default()))
        .await
        .expect("list")
        .into_inner();
    assert!(listed.matches.is_empty(), "nothing was created: {listed:?}");

    // Joining as a bad bot takes no seat.
    let created = matches
        .create_match(pb::CreateMatchRequest {
            open_seats: vec![1],
            public_open_seats: true,
            ..bot_match("focus", 2, false, &[])
        })
        .await
        .expect("create")
        .into_inner();
    let refused = matches
        .join_match(pb::JoinMatchRequest {
            match_id: created.match_id.clone(),
            bot: "mcts:0".into(),
            ..Default::default()
        })
        .await
        .expect_err("a bad bot does not join");
    assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
    let view = spectator(&mut matches, &created.match_id).await;
    assert!(!view.seats[1].filled, "the seat is still open");
}

#[tokio::test]
async fn a_joining_bot_gets_no_token_and_plays_from_then_on() {
    let host = bot_host().await;
    let mut matches = host.matches().await;
    let created = matches
        .create_match(bot_beside_an_open_seat("random"))
        .await
        .expect("create")
        .into_inner();
    assert!(created.seats.is_empty(), "seat 0 is a bot's, seat 1 open");
    let joined = matches
        .join_match(pb::JoinMatchRequest {
            match_id: created.match_id.clone(),
            seat: Some(1),
            bot: "mcts:5".into(),
            ..Default::default()
        })
        .await
        .expect("a bot joins")
        .into_inner();
    assert_eq!(joined.seat, 1);
    assert!(joined.token.is_empty(), "no token for a bot");
    let view = joined.view.expect("view");
    assert_eq!(
        view.viewer_seat, None,
        "whoever seats a bot sees a spectator's view"
    );
    assert_eq!(view.seats[1].bot, "mcts:5");
    let view = finished_by_itself(&mut matches, &created.match_id, PATIENCE).await;
    assert_eq!(view.seats[1].display_name, "mcts:5");
}

#[tokio::test]
async fn bots_play_on_after_a_restart() {
    let root = tempfile::tempdir().expect("temp dir");
    let options = HostOptions {
        data_dir: Some(root.path().join("data")),
        plugin_dir: Some(Host::fresh_plugin_dir(root.path())),
        args: vec!["--bot-threads".into(), "1".into()],
        ..HostOptions::default()
    };
    let mut host = Host::start_with(options.clone()).await;
    let mut matches = host.matches().await;
    // Slow enough bots (a time budget each move) that the match is still
    // running when the host is killed; one seated at creation, one by
    // joining, so both kinds of seat must come back.
    let created = matches
        .create_match(pb::CreateMatchRequest {
            open_seats: vec![1],
            public_open_seats: true,
            ..bot_match("focus", 2, true, &[(0, "mcts:40ms")])
        })
        .await
        .expect("create")
        .into_inner();
    let match_id = created.match_id;
    matches
        .join_match(pb::JoinMatchRequest {
            match_id: match_id.clone(),
            bot: "mcts:40ms".into(),
            ..Default::default()
        })
        .await
        .expect("a bot joins");
    let before = tokio::time::timeout(PATIENCE, async {
        loop {
            let view = spectator(&mut matches, &match_id).await;
            if view.version >= 3 {
                return view;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the bots play");
    assert_eq!(before.state, pb::MatchState::Running as i32, "{before:?}");
    host.kill();
    let host = Host::start_with(options).await;
    let mut matches = host.matches().await;
    let view = finished_by_itself(&mut matches, &match_id, PATIENCE).await;
    assert!(view.version > before.version, "the bots played on");
    assert_eq!(view.seats[0].bot, "mcts:40ms");
    assert_eq!(view.seats[1].bot, "mcts:40ms", "the joined bot came back");
}

#[tokio::test]
async fn a_retried_creation_with_bots_answers_the_same_match() {
    let host = bot_host().await;
    let mut matches = host.matches().await;
    let request = pb::CreateMatchRequest {
        request_id: "table-7".into(),
        ..bot_match("focus", 2, true, &[(1, "mcts:5")])
    };
    let first = matches
        .create_match(as_admin(request.clone()))
        .await
        .expect("create")
        .into_inner();
    let retried = matches
        .create_match(as_admin(request))
        .await
        .expect("the retry is the same request")
        .into_inner();
    assert_eq!(retried.match_id, first.match_id);
    assert_eq!(
        retried.seats, first.seats,
        "the same token, for seat 0 only"
    );
    assert_eq!(first.seats.len(), 1);
}

#[tokio::test]
async fn the_feed_names_each_bot_and_its_settings_whatever_its_display_name() {
    let host = bot_host().await;
    let mut matches = host.matches().await;
    let created = matches
        .create_match(pb::CreateMatchRequest {
            seat_players: vec![pb::SeatPlayer {
                seat: 0,
                display_name: "House player".into(),
                ..Default::default()
            }],
            labels: [("feed".to_string(), "bots".to_string())].into(),
            ..bot_beside_an_open_seat("mcts:5")
        })
        .await
        .expect("create")
        .into_inner();
    matches
        .join_match(pb::JoinMatchRequest {
            match_id: created.match_id.clone(),
            seat: Some(1),
            bot: "random".into(),
            ..Default::default()
        })
        .await
        .expect("a bot joins");
    finished_by_itself(&mut matches, &created.match_id, PATIENCE).await;

    let mut director = DirectorClient::new(host.channel().await);
    let mut feed = director
        .follow_lifecycle(pb::FollowLifecycleRequest {
            admin_token: ADMIN_TOKEN.into(),
            labels: [("feed".to_string(), "bots".to_string())].into(),
            ..Default::default()
        })
        .await
        .expect("follow the feed")
        .into_inner();
    let mut created_players = None;
    let mut joined = None;
    while created_players.is_none() || joined.is_none() {
        let event = tokio::time::timeout(PATIENCE, feed.next())
            .await
            .expect("the feed replays the match's events")
            .expect("the feed stays open")
            .expect("an event");
        match event.kind {
            Some(Kind::Created(c)) => created_players = Some(c.seat_players),
            Some(Kind::SeatFilled(f)) if f.seat == 1 => joined = f.player,
            _ => {}
        }
    }
    let created_players = created_players.unwrap();
    assert_eq!(created_players.len(), 1, "{created_players:?}");
    assert_eq!(created_players[0].display_name, "House player");
    assert_eq!(
        created_players[0].bot, "mcts:5",
        "the settings, not only a name"
    );
    let joined = joined.expect("the joining bot is named");
    assert_eq!(
        (joined.display_name.as_str(), joined.bot.as_str()),
        ("random", "random")
    );
}

#[tokio::test]
async fn a_seat_player_that_names_a_bot_is_refused_and_creates_nothing() {
    let host = bot_host().await;
    let mut matches = host.matches().await;
    let refused = matches
        .create_match(pb::CreateMatchRequest {
            seat_players: vec![pb::SeatPlayer {
                seat: 0,
                display_name: "Ada".into(),
                bot: "mcts:5".into(),
                ..Default::default()
            }],
            ..bot_match("lanza", 2, true, &[])
        })
        .await
        .expect_err("the server names bots");
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert!(
        refused.message().contains("seat a bot with `bots`"),
        "{refused:?}"
    );
    let listed = matches
        .list_matches(pb::ListMatchesRequest::default())
        .await
        .expect("list")
        .into_inner();
    assert!(listed.matches.is_empty(), "{listed:?}");
}

#[tokio::test]
async fn a_host_without_bot_threads_plays_other_matches_while_bot_seats_wait() {
    let root = tempfile::tempdir().expect("temp dir");
    let with_bots = HostOptions {
        data_dir: Some(root.path().join("data")),
        plugin_dir: Some(Host::fresh_plugin_dir(root.path())),
        args: vec!["--bot-threads".into(), "1".into()],
        ..HostOptions::default()
    };
    let mut host = Host::start_with(with_bots.clone()).await;
    let mut matches = host.matches().await;
    // A bot against an open seat: the bot moves first, then waits for the
    // seat, so the match is still running when the host stops.
    let bot_match_id = matches
        .create_match(bot_beside_an_open_seat("random"))
        .await
        .expect("create")
        .into_inner()
        .match_id;
    let joined = matches
        .join_match(pb::JoinMatchRequest {
            match_id: bot_match_id.clone(),
            ..Default::default()
        })
        .await
        .expect("join the open seat")
        .into_inner();
    host.kill();

    // Without bot threads: the bot's move, once needed, never comes; another
    // match plays all along.
    let without_bots = HostOptions {
        args: vec!["--bot-threads".into(), "0".into()],
        ..with_bots.clone()
    };
    let mut host = Host::start_with(without_bots).await;
    let mut matches = host.matches().await;
    // The human moves until the bot's move is needed (Lanza has turns
    // where one seat alone acts).
    let mut waiting = spectator(&mut matches, &bot_match_id).await;
    for _ in 0..20 {
        assert_eq!(waiting.state, pb::MatchState::Running as i32, "{waiting:?}");
        let bot = &waiting.seats[0];
        if bot.to_move && !bot.has_acted {
            break;
        }
        let human = legal(&mut matches, &bot_match_id, &joined.token)
            .await
            .expect("legal actions");
        let first = human.actions.first().expect("the human is to move").id;
        submit(
            &mut matches,
            &bot_match_id,
            &joined.token,
            first,
            Some(human.version),
        )
        .await
        .expect("the human's move");
        waiting = spectator(&mut matches, &bot_match_id).await;
    }
    assert!(
        waiting.seats[0].to_move,
        "the bot's move is needed: {waiting:?}"
    );
    let other = matches
        .create_match(bot_match("lanza", 2, true, &[]))
        .await
        .expect("a match without bots is created")
        .into_inner();
    let token = &other.seats[0].token;
    let other_legal = legal(&mut matches, &other.match_id, token)
        .await
        .expect("legal actions");
    let first = other_legal.actions[0].id;
    submit(
        &mut matches,
        &other.match_id,
        token,
        first,
        Some(other_legal.version),
    )
    .await
    .expect("the other match plays");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let still = spectator(&mut matches, &bot_match_id).await;
    assert_eq!(
        (still.version, still.seats[0].has_acted),
        (waiting.version, false),
        "no bot moved on a host without bot threads: {waiting:?}"
    );
    host.kill();

    // With bot threads again, the bot plays on.
    let log = root.path().join("host.log");
    let host = Host::start_with(HostOptions {
        log_file: Some(log.clone()),
        ..with_bots
    })
    .await;
    let mut matches = host.matches().await;
    // Lanza's orders are simultaneous: the bot's shows as having acted.
    tokio::time::timeout(PATIENCE, async {
        loop {
            let view = spectator(&mut matches, &bot_match_id).await;
            if view.version > waiting.version || view.seats[0].has_acted {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .unwrap_or_else(|_| {
        panic!(
            "the bot moves once bot threads serve the match:\n{}",
            std::fs::read_to_string(&log).unwrap_or_default()
        )
    });
}
