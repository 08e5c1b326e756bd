//! Streams whose clients do not read: each holds at most its byte budget
//! on the server, is cut after the stream's patience with the position to
//! resume after, and gives its budget back when it closes; and the caps on
//! open streams.

use std::time::{Duration, Instant};

use tabletop_proto::v1 as pb;
use tabletop_proto::v1::watch_client::WatchClient;
use tabletop_tests::{Host, HostOptions};
use tokio_stream::StreamExt;
use tonic::transport::{Channel, Endpoint};

use crate::support::{reason, scrape};

/// The budget the tests give each stream.
const BUDGET: usize = 4096;

/// A connection whose streams take 1 KiB each before they stall: a client
/// that stops reading stops the server's sending after about that. (The
/// large connection window keeps the client's HTTP/2 library from taking
/// the many small frames it holds unread for an attack and closing the
/// connection.)
async fn stalling_connection(host: &Host) -> Channel {
    Endpoint::from_shared(host.url.clone())
        .expect("url")
        .initial_stream_window_size(1024)
        .initial_connection_window_size(16 << 20)
        .connect()
        .await
        .expect("connect")
}

fn from_the_start(match_id: &str) -> pb::WatchMatchRequest {
    pb::WatchMatchRequest {
        match_id: match_id.into(),
        from_version: Some(0),
        omit_views: true,
        ..Default::default()
    }
}

fn sample(metrics: &std::collections::HashMap<String, f64>, name: &str) -> f64 {
    metrics.get(name).copied().unwrap_or(0.0)
}

#[tokio::test]
async fn streams_that_never_read_hold_their_budget_at_most_are_cut_with_their_cursor_and_give_it_back()
 {
    let host = Host::start_with(HostOptions {
        args: [
            "--metrics-listen",
            "127.0.0.1:0",
            "--stream-buffer-bytes",
            &BUDGET.to_string(),
            "--stream-patience-ms",
            "300",
        ]
        .map(String::from)
        .to_vec(),
        ..Default::default()
    })
    .await;
    let metrics = host.metrics_address.clone().expect("metrics");
    let match_id = crate::support::finished_random_war(&host, 7).await;
    let mut all = Vec::new();
    let mut drained = WatchClient::new(host.channel().await);
    let mut stream = drained
        .watch_match(from_the_start(&match_id))
        .await
        .expect("watch")
        .into_inner();
    while let Some(event) = stream.next().await {
        all.push(event.expect("a reader that keeps up is never cut").seq);
    }
    assert!(all.len() > 200, "enough events to stall on: {}", all.len());

    // 2,000 streams over ten connections, none of them read, and one more
    // on a connection of its own, to read later.
    const STREAMS: usize = 2000;
    let mut first = WatchClient::new(stalling_connection(&host).await)
        .watch_match(from_the_start(&match_id))
        .await
        .expect("a stream opens")
        .into_inner();
    let mut stalled = Vec::with_capacity(STREAMS);
    for _ in 0..10 {
        let mut watcher = WatchClient::new(stalling_connection(&host).await);
        for _ in 0..STREAMS / 10 {
            let stream = watcher
                .watch_match(from_the_start(&match_id))
                .await
                .expect("a stream opens")
                .into_inner();
            stalled.push(stream);
        }
    }
    // Each is cut once its queue has stayed full for the patience; the
    // budget each held stays held until it closes.
    let mut peak = 0.0f64;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let now = scrape(&metrics).await;
        peak = peak.max(sample(&now, "tabletop_stream_buffered_bytes"));
        if sample(&now, "tabletop_streams_cut_total") > STREAMS as f64 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "only {} of {STREAMS} streams were cut",
            sample(&now, "tabletop_streams_cut_total")
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let held = sample(&scrape(&metrics).await, "tabletop_stream_buffered_bytes");
    assert!(held > 0.0, "the cut streams' queues are still held");
    assert!(
        peak <= ((STREAMS + 1) * BUDGET) as f64,
        "{peak} bytes buffered for {} streams of {BUDGET}",
        STREAMS + 1
    );

    // A stalled client that reads again gets what was queued, then the cut
    // naming the last of it; from there the stream goes on to the end.
    let mut seen = Vec::new();
    let cut = loop {
        match first.next().await {
            Some(Ok(event)) => seen.push(event.seq),
            Some(Err(status)) => break status,
            None => panic!("the stream ended without its cut"),
        }
    };
    assert_eq!(cut.code(), tonic::Code::Unavailable, "{cut:?}");
    assert_eq!(reason(&cut), "STREAM_FELL_BEHIND");
    let after: u64 = tabletop_tests::error_info(&cut)
        .expect("ErrorInfo")
        .metadata["after_seq"]
        .parse()
        .expect("a number");
    assert_eq!(
        Some(&after),
        seen.last(),
        "the cut names the last event sent"
    );
    assert_eq!(seen, all[..seen.len()], "in order, none lost");
    let mut resumed = drained
        .watch_match(pb::WatchMatchRequest {
            match_id: match_id.clone(),
            after_seq: Some(after),
            omit_views: true,
            ..Default::default()
        })
        .await
        .expect("resume")
        .into_inner();
    while let Some(event) = resumed.next().await {
        seen.push(event.expect("resumed").seq);
    }
    assert_eq!(seen, all, "every event once, across the cut");

    // Closed, they give every byte back.
    drop(first);
    drop(stalled);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let now = scrape(&metrics).await;
        let buffered = sample(&now, "tabletop_stream_buffered_bytes");
        if buffered == 0.0 && sample(&now, "tabletop_watch_streams") == 0.0 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{buffered} bytes still buffered after every stream closed"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn open_streams_count_against_their_caller_and_seat_until_they_close() {
    let host = Host::start_with(HostOptions {
        args: [
            "--max-streams-per-caller",
            "2",
            "--max-streams-per-seat",
            "1",
        ]
        .map(String::from)
        .to_vec(),
        ..Default::default()
    })
    .await;
    let mut matches = host.matches().await;
    let (match_id, tokens) = crate::support::create(&mut matches, "focus", 2, 3).await;
    let mut watcher = host.watch().await;
    let spectate = || pb::WatchMatchRequest {
        match_id: match_id.clone(),
        ..Default::default()
    };
    let first = watcher.watch_match(spectate()).await.expect("first");
    let _second = watcher.watch_match(spectate()).await.expect("second");
    let refused = watcher
        .watch_match(spectate())
        .await
        .expect_err("a third anonymous stream");
    assert_eq!(refused.code(), tonic::Code::ResourceExhausted);
    assert_eq!(reason(&refused), "STREAM_LIMIT");
    let info = tabletop_tests::error_info(&refused).expect("ErrorInfo");
    assert_eq!(info.metadata["limit"], "streams_per_caller");
    assert_eq!(info.metadata["credential"], "anonymous");
    // A seat's streams count against the seat, not the spectators.
    let as_seat = || pb::WatchMatchRequest {
        match_id: match_id.clone(),
        seat_token: tokens[0].clone(),
        ..Default::default()
    };
    let _seat = watcher
        .watch_match(as_seat())
        .await
        .expect("the seat's own");
    let refused = watcher
        .watch_match(as_seat())
        .await
        .expect_err("a second stream of the seat");
    assert_eq!(
        tabletop_tests::error_info(&refused)
            .expect("ErrorInfo")
            .metadata["limit"],
        "streams_per_seat"
    );
    // A closed stream gives its place back.
    drop(first);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match watcher.watch_match(spectate()).await {
            Ok(_) => break,
            Err(status) => {
                assert_eq!(reason(&status), "STREAM_LIMIT");
                assert!(
                    Instant::now() < deadline,
                    "the closed stream's place came back"
                );
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

#[tokio::test]
async fn the_cli_watching_through_a_stalled_pipe_is_cut_and_resumes_with_every_event_once() {
    use tokio::io::AsyncReadExt;
    let host = Host::start_with(HostOptions {
        args: [
            "--store",
            "memory",
            "--metrics-listen",
            "127.0.0.1:0",
            "--stream-buffer-bytes",
            "1024",
            "--stream-patience-ms",
            "200",
        ]
        .map(String::from)
        .to_vec(),
        ..Default::default()
    })
    .await;
    let match_id = crate::support::finished_random_war(&host, 7).await;
    let watch = || {
        tokio::process::Command::new(crate::cli::cli_binary())
            .args(["--server", &host.url, "--json", "watch", &match_id])
            .args(["--from-version", "0"])
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("start the CLI")
    };
    let read_all = |mut child: tokio::process::Child, pause: Duration| async move {
        let mut stdout = child.stdout.take().expect("stdout");
        // Nothing read meanwhile: the pipe fills, the CLI blocks writing
        // and reads no more of its stream.
        tokio::time::sleep(pause).await;
        let mut text = String::new();
        stdout.read_to_string(&mut text).await.expect("read");
        assert!(
            child.wait().await.expect("exit").success(),
            "the CLI ends well"
        );
        text
    };
    let fast = read_all(watch(), Duration::ZERO).await;
    assert!(fast.lines().count() > 100, "events enough to stall on");
    let slow = read_all(watch(), Duration::from_secs(2)).await;
    assert_eq!(slow, fast, "every event once, across the cut");
    let metrics = scrape(host.metrics_address.as_deref().expect("metrics")).await;
    assert!(
        sample(&metrics, "tabletop_streams_cut_total") >= 1.0,
        "the server cut the CLI's stream"
    );
}
