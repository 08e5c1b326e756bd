//! Bot budgets and search slots: one creator's long searches leave another
//! creator's bot its own budget, and an anonymous caller's bot thinks
//! within the anonymous cap whatever its spec asks.

use std::time::{Duration, Instant};

use tabletop_proto::v1 as pb;
use tabletop_proto::v1::matches_client::MatchesClient;
use tabletop_tests::{Host, HostOptions, as_admin};
use tonic::transport::Channel;

use crate::support::scrape;
use crate::support::{E2E_MAX_TURNS, seat_bots, spectator};

/// A guard against a hang, not the assertion: the bots here move in
/// about a second at most.
const PATIENCE: Duration = Duration::from_secs(60);

/// A two-seat Lanza match (short) with `bots` seated and every other seat
/// open to anyone.
fn lanza_with(bots: &[(u32, &str)]) -> pb::CreateMatchRequest {
    let open_seats: Vec<u32> = (0..2)
        .filter(|seat| bots.iter().all(|&(bot, _)| bot != *seat))
        .collect();
    pb::CreateMatchRequest {
        game: "lanza".into(),
        players: 2,
        options: [("max_turns".to_string(), E2E_MAX_TURNS.to_string())].into(),
        bots: seat_bots(bots),
        public_open_seats: !open_seats.is_empty(),
        open_seats,
        ..Default::default()
    }
}

/// Takes the open seat of `match_id` (which starts it), and waits until
/// the bot in seat 0 has made its first move (Lanza's orders are
/// simultaneous: it shows as having acted, then waits for the joined seat,
/// so it searches once).
async fn join_and_wait_for_the_bot(matches: &mut MatchesClient<Channel>, match_id: &str) {
    matches
        .join_match(pb::JoinMatchRequest {
            match_id: match_id.to_string(),
            ..Default::default()
        })
        .await
        .expect("join the open seat");
    tokio::time::timeout(PATIENCE, async {
        loop {
            let view = spectator(matches, match_id).await;
            if view.seats[0].has_acted {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the bot moves");
}

#[tokio::test]
async fn a_creators_long_searches_leave_another_creators_bot_its_own_budget() {
    // Anonymous callers may think as long as the host allows here, as an
    // organizer credential may: one creator's 10 s bots against another's
    // 100 ms one.
    let host = Host::start_with(HostOptions {
        args: [
            "--store",
            "memory",
            "--bot-threads",
            "4",
            "--bot-searches-per-creator",
            "2",
            "--anonymous-bot-max-think-ms",
            "10000",
        ]
        .map(String::from)
        .to_vec(),
        ..HostOptions::default()
    })
    .await;
    let mut matches = host.matches().await;
    // Twelve matches of two long-thinking bots each, all queued before the
    // other creator's bot: a pool served in order would hold that bot
    // behind them for at least one round of 10 s searches.
    for _ in 0..12 {
        matches
            .create_match(lanza_with(&[(0, "mcts:10000ms"), (1, "mcts:10000ms")]))
            .await
            .expect("an anonymous bot match");
    }
    let other = matches
        .create_match(as_admin(lanza_with(&[(0, "mcts:100ms")])))
        .await
        .expect("the admin's bot match")
        .into_inner();
    let started = Instant::now();
    join_and_wait_for_the_bot(&mut matches, &other.match_id).await;
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(3),
        "another creator's 100 ms bot moved after {took:?}"
    );
}

#[tokio::test]
async fn an_anonymous_creators_bot_thinks_within_the_anonymous_cap() {
    let host = Host::start_with(HostOptions {
        args: ["--store", "memory", "--metrics-listen", "127.0.0.1:0"]
            .map(String::from)
            .to_vec(),
        ..HostOptions::default()
    })
    .await;
    let address = host.metrics_address.clone().expect("a metrics address");
    let mut matches = host.matches().await;
    let searched = |scraped: &std::collections::HashMap<String, f64>| {
        (
            scraped["tabletop_bot_search_seconds_count"],
            scraped["tabletop_bot_search_seconds_sum"],
        )
    };
    let mut before = searched(&scrape(&address).await);

    // Asking for 10 s, an anonymous caller's bot thinks 1 s (the default
    // anonymous cap); the admin's keeps the host's cap, so its 1.5 s. The
    // upper bounds leave a busy machine room: a search ends at the first
    // check past its limit, later when its idle-priority thread waits.
    for (request, at_least, below) in [
        (
            tonic::Request::new(lanza_with(&[(0, "mcts:10000ms")])),
            1.0,
            5.0,
        ),
        (as_admin(lanza_with(&[(0, "mcts:1500ms")])), 1.5, 10.0),
    ] {
        let created = matches
            .create_match(request)
            .await
            .expect("a bot match")
            .into_inner();
        join_and_wait_for_the_bot(&mut matches, &created.match_id).await;
        let after = searched(&scrape(&address).await);
        let (count, seconds) = (after.0 - before.0, after.1 - before.1);
        assert_eq!(count, 1.0, "one search so far");
        assert!(
            (at_least..below).contains(&seconds),
            "the search reported {seconds} s, expected [{at_least}, {below})"
        );
        before = after;
    }
}
