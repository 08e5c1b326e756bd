//! The `tabletop` CLI as a tournament platform's operator uses it, against a
//! real host: labelled and retried creation, paged listings, the director's
//! commands and the admin's lift of a quarantine, the lifecycle feed
//! resumed from a cursor, and organizer
//! credentials, named players, join codes and re-issued tokens.

use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tabletop_tests::{ADMIN_TOKEN, Host, target_dir};
use tokio::io::{AsyncBufReadExt, BufReader};

/// Runs the CLI against `host` and returns its stdout; panics with its
/// stderr if it fails.
async fn cli(host: &Host, args: &[&str]) -> String {
    let output = cli_output(host, args).await;
    assert!(
        output.status.success(),
        "tabletop {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("utf-8 output")
}

async fn cli_output(host: &Host, args: &[&str]) -> std::process::Output {
    cli_as(host, &[("TABLETOP_ADMIN_TOKEN", ADMIN_TOKEN)], args).await
}

/// Runs the CLI against `host` with only the credentials in `env`.
async fn cli_as(host: &Host, env: &[(&str, &str)], args: &[&str]) -> std::process::Output {
    tokio::process::Command::new(cli_binary())
        .args(["--server", &host.url])
        .args(args)
        .env_remove("TABLETOP_ADMIN_TOKEN")
        .env_remove("TABLETOP_CREDENTIAL")
        .envs(env.iter().copied())
        .output()
        .await
        .expect("run the CLI")
}

/// The stdout of a CLI run that must succeed.
fn succeeded(output: std::process::Output) -> String {
    assert!(
        output.status.success(),
        "the CLI failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("utf-8 output")
}

pub(crate) fn cli_binary() -> std::path::PathBuf {
    target_dir().join(format!("tabletop{}", std::env::consts::EXE_SUFFIX))
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// Reads `feed --json` lines until `until` holds for the events so far (at
/// most 20 s), then stops the CLI.
async fn feed_until(host: &Host, args: &[&str], until: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let mut child = tokio::process::Command::new(cli_binary())
        .args(["--server", &host.url, "--json", "feed"])
        .args(args)
        .env("TABLETOP_ADMIN_TOKEN", ADMIN_TOKEN)
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start the feed");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut events = Vec::new();
    let read = async {
        while !until(&events) {
            match lines.next_line().await.expect("read the feed") {
                Some(line) => events.push(json(&line)),
                None => panic!("the feed ended early after {events:?}"),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(20), read)
        .await
        .expect("the feed delivered the expected events within 20 s");
    let _ = child.kill().await;
    events
}

fn of_match<'a>(events: &'a [Value], id: &str) -> Vec<&'a str> {
    events
        .iter()
        .filter(|e| e["match_id"] == id)
        .map(|e| e["type"].as_str().expect("a type"))
        .collect()
}

#[tokio::test]
async fn the_cli_creates_lists_directs_and_follows_a_tournament() {
    let host = Host::start().await;
    let create = [
        "--json",
        "new",
        "lanza",
        "--label",
        "tournament=cup",
        "--label",
        "round=1",
        "--request-id",
        "cup-1-table-1",
        "--bank-ms",
        "600000",
    ];
    let first = json(&cli(&host, &create).await);
    let retried = json(&cli(&host, &create).await);
    assert_eq!(
        first, retried,
        "a retried `new` returns the same match and tokens"
    );
    let adjudicated = first["match_id"].as_str().expect("an id").to_string();

    let mut changed = create.to_vec();
    changed[2] = "focus";
    let refused = cli_output(&host, &changed).await;
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("from a different request"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );

    let other = json(
        &cli(
            &host,
            &["--json", "new", "focus", "--label", "tournament=cup"],
        )
        .await,
    );
    let aborted = other["match_id"].as_str().expect("an id").to_string();
    let _unlabelled = cli(&host, &["--json", "new", "war"]).await;

    let listed = json(
        &cli(
            &host,
            &[
                "--json",
                "matches",
                "--label",
                "tournament=cup",
                "--page-size",
                "1",
                "--all",
            ],
        )
        .await,
    );
    let ids: Vec<&str> = listed
        .as_array()
        .expect("a list")
        .iter()
        .map(|m| m["match_id"].as_str().expect("an id"))
        .collect();
    assert_eq!(
        ids,
        [adjudicated.as_str(), aborted.as_str()],
        "oldest first, one page at a time"
    );

    let paused = cli(&host, &["pause", &adjudicated]).await;
    assert!(paused.contains("paused by a director"), "{paused}");
    let shown = json(&cli(&host, &["--json", "show", &adjudicated]).await);
    assert_eq!(shown["paused"], true);
    assert_eq!(shown["labels"]["round"], "1");
    let resumed = json(&cli(&host, &["--json", "resume", &adjudicated]).await);
    assert_eq!(resumed["paused"], false);
    // Only a plugin's fault quarantines a match: lifting one that is not
    // is refused, and none lists as quarantined.
    let lift = cli_output(&host, &["lift-quarantine", &adjudicated]).await;
    assert!(!lift.status.success());
    let said = String::from_utf8_lossy(&lift.stderr);
    assert!(said.contains("not quarantined"), "{said}");
    let quarantined = cli(
        &host,
        &[
            "--json",
            "matches",
            "--state",
            "quarantined",
            "--label",
            "tournament=cup",
        ],
    )
    .await;
    assert_eq!(json(&quarantined), serde_json::json!([]));

    let added = cli(
        &host,
        &[
            "--json",
            "add-time",
            &adjudicated,
            "--seat",
            "1",
            "--ms",
            "5000",
        ],
    )
    .await;
    assert_eq!(json(&added)["match_id"], adjudicated.as_str());

    let decided = json(
        &cli(
            &host,
            &["--json", "adjudicate", &adjudicated, "--ranks", "2,1"],
        )
        .await,
    );
    assert_eq!(decided["state"], "finished");
    assert_eq!(decided["adjudicated"], true);
    let winner: Vec<&Value> = decided["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter(|r| r["rank"] == 1)
        .collect();
    assert_eq!(winner.len(), 1);
    assert_eq!(winner[0]["seat"], 1, "the director's ranks are the result");

    let text = cli(&host, &["abort", &aborted, "--reason", "no show"]).await;
    assert!(text.contains("aborted by a director: no show"), "{text}");

    let both_ended = |events: &[Value]| {
        events.iter().any(|e| e["type"] == "aborted")
            && events.iter().any(|e| e["type"] == "finished")
    };
    let events = feed_until(&host, &["--label", "tournament=cup"], both_ended).await;
    assert!(
        events.iter().all(|e| e["labels"]["tournament"] == "cup"),
        "the label filter holds: {events:?}"
    );
    let cursors: Vec<u64> = events
        .iter()
        .map(|e| e["cursor"].as_u64().expect("a cursor"))
        .collect();
    assert!(
        cursors.windows(2).all(|w| w[0] < w[1]),
        "cursors increase: {cursors:?}"
    );
    let kinds = of_match(&events, &adjudicated);
    assert_eq!(kinds.first(), Some(&"created"), "{kinds:?}");
    for kind in ["paused", "resumed", "time_added", "finished"] {
        assert_eq!(
            kinds.iter().filter(|k| **k == kind).count(),
            1,
            "{kind} once: {kinds:?}"
        );
    }
    let finished = events
        .iter()
        .find(|e| e["match_id"] == adjudicated.as_str() && e["type"] == "finished")
        .expect("finished");
    assert_eq!(finished["adjudicated"], true);
    assert_eq!(of_match(&events, &aborted).last(), Some(&"aborted"));

    // A platform that saw up to the pause resumes after it: nothing earlier
    // comes again, everything later does.
    let pause_cursor = events
        .iter()
        .find(|e| e["type"] == "paused")
        .and_then(|e| e["cursor"].as_u64())
        .expect("a paused event");
    let from = pause_cursor.to_string();
    let resumed = feed_until(
        &host,
        &["--label", "tournament=cup", "--from", &from],
        |seen| seen.len() == cursors.iter().filter(|&&c| c > pause_cursor).count(),
    )
    .await;
    let later: Vec<&Value> = events
        .iter()
        .filter(|e| e["cursor"].as_u64() > Some(pause_cursor))
        .collect();
    assert_eq!(resumed.iter().collect::<Vec<_>>(), later);
}

#[tokio::test]
async fn the_cli_issues_credentials_names_players_and_reissues_tokens() {
    let host = Host::start().await;
    let issued = json(&cli(&host, &["--json", "credential", "issue", "cup office"]).await);
    let secret = issued["secret"].as_str().expect("a secret").to_string();
    let id = issued["credential_id"].as_str().expect("an id").to_string();
    assert_eq!(issued["tenant"], id.as_str(), "without --tenant, its own");
    let organizer = [("TABLETOP_CREDENTIAL", secret.as_str())];
    let other = json(
        &cli(
            &host,
            &[
                "--json",
                "credential",
                "issue",
                "rival",
                "--tenant",
                "rival-cup",
            ],
        )
        .await,
    );
    assert_eq!(other["tenant"], "rival-cup");
    let rival = [(
        "TABLETOP_CREDENTIAL",
        other["secret"].as_str().expect("a secret"),
    )];

    // The organizer chooses a seed and names seat 0; seat 1 is by invitation.
    let created = json(&succeeded(
        cli_as(
            &host,
            &organizer,
            &[
                "--json",
                "new",
                "focus",
                "--seed",
                "7",
                "--player",
                "0=Ada:cup-17",
                "--open-seat",
                "1",
            ],
        )
        .await,
    ));
    let match_id = created["match_id"].as_str().expect("an id").to_string();
    let code = created["join_codes"][0]["code"]
        .as_str()
        .expect("a join code")
        .to_string();
    let anonymous = cli_as(&host, &[], &["join", &match_id, "--name", "Mallory"]).await;
    assert!(!anonymous.status.success(), "no code, no seat");
    assert!(
        String::from_utf8_lossy(&anonymous.stderr).contains("Unauthenticated"),
        "{}",
        String::from_utf8_lossy(&anonymous.stderr)
    );
    let joined = json(&succeeded(
        cli_as(
            &host,
            &[],
            &[
                "--json",
                "join",
                &match_id,
                "--code",
                &code,
                "--name",
                "Grace",
                "--external-id",
                "cup-23",
            ],
        )
        .await,
    ));
    assert_eq!(joined["seat"], 1);
    let shown = succeeded(cli_as(&host, &[], &["show", &match_id]).await);
    assert!(
        shown.contains("players: seat 0 (P1) Ada (cup-17), seat 1 (P2) Grace (cup-23)"),
        "{shown}"
    );

    // Another tenant's organizer does not direct the match.
    let across = cli_as(&host, &rival, &["pause", &match_id]).await;
    assert!(
        String::from_utf8_lossy(&across.stderr).contains("PermissionDenied"),
        "{}",
        String::from_utf8_lossy(&across.stderr)
    );

    // A lost token: the organizer re-issues it and the old one stops working.
    let old = created["seats"][0]["token"]
        .as_str()
        .expect("a token")
        .to_string();
    let reissued = json(&succeeded(
        cli_as(
            &host,
            &organizer,
            &["--json", "reissue-token", &match_id, "--seat", "0"],
        )
        .await,
    ));
    let new = reissued["token"].as_str().expect("a new token");
    assert_ne!(new, old);
    assert!(
        !cli_as(&host, &[], &["legal", &match_id, "--token", &old])
            .await
            .status
            .success()
    );
    succeeded(cli_as(&host, &[], &["legal", &match_id, "--token", new]).await);

    // The organizer may not load plugins; once revoked, it may not create.
    let plugins = cli_as(&host, &organizer, &["plugins"]).await;
    assert!(
        String::from_utf8_lossy(&plugins.stderr).contains("PermissionDenied"),
        "{}",
        String::from_utf8_lossy(&plugins.stderr)
    );
    let listed = cli(&host, &["credential", "list"]).await;
    assert!(listed.contains(&id) && listed.contains("valid"), "{listed}");
    assert!(listed.contains("tenant rival-cup"), "{listed}");
    cli(&host, &["credential", "revoke", &id]).await;
    let refused = cli_as(&host, &organizer, &["new", "focus", "--seed", "8"]).await;
    assert!(
        !refused.status.success(),
        "a revoked credential creates nothing"
    );
    let listed = cli(&host, &["credential", "list"]).await;
    assert!(listed.contains("revoked at"), "{listed}");
}

#[tokio::test]
async fn the_cli_creates_a_delayed_match_and_says_a_spectator_watches_behind() {
    let host = Host::start().await;
    let created = json(
        &cli(
            &host,
            &["--json", "new", "focus", "--spectator-delay-moves", "1"],
        )
        .await,
    );
    let id = created["match_id"].as_str().expect("an id").to_string();
    let seat0 = created["seats"][0]["token"]
        .as_str()
        .expect("a token")
        .to_string();
    let legal = json(&cli(&host, &["--json", "legal", &id, "--token", &seat0]).await);
    let first = format!("#{}", legal["actions"][0]["id"]);
    cli(&host, &["move", &id, &first, "--token", &seat0]).await;

    let spectator = cli(&host, &["show", &id]).await;
    assert!(spectator.contains("version 0"), "{spectator}");
    assert!(
        spectator.contains("delayed: you are watching 1 move behind the match"),
        "{spectator}"
    );
    let shown = json(&cli(&host, &["--json", "show", &id]).await);
    assert_eq!(shown["delayed"], true);
    assert_eq!(shown["spectator_delay"]["moves"], 1);
    let seat = cli(&host, &["show", &id, "--token", &seat0]).await;
    assert!(seat.contains("version 1"), "{seat}");
    assert!(seat.contains("spectators watch 1 move behind"), "{seat}");
}

#[tokio::test]
async fn the_cli_seats_a_bot_and_plays_against_it() {
    let host = Host::start().await;
    let created = cli(
        &host,
        &[
            "new",
            "focus",
            "--players",
            "2",
            "--bot",
            "1=mcts:10",
            "-o",
            "max_turns=60",
        ],
    )
    .await;
    assert!(created.contains("seat 1 bot mcts:10"), "{created}");
    assert!(
        !created.contains("seat 1 token"),
        "no token for a bot: {created}"
    );
    let match_id = created
        .lines()
        .find_map(|l| l.strip_prefix("match "))
        .expect("a match id")
        .to_string();
    let token = created
        .lines()
        .find_map(|l| l.strip_prefix("seat 0 token "))
        .expect("seat 0's token")
        .to_string();
    let legal = json(&cli(&host, &["--json", "legal", &match_id, "--token", &token]).await);
    let first = legal["actions"][0]["notation"]
        .as_str()
        .expect("a legal action")
        .to_string();
    // One move, then quit once it is our turn again: the bot answered
    // without anyone pressing Enter.
    let mut play = tokio::process::Command::new(cli_binary())
        .args(["--server", &host.url, "play", &match_id, "--token", &token])
        .env_remove("TABLETOP_ADMIN_TOKEN")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run tabletop play");
    let mut stdin = play.stdin.take().expect("stdin");
    use tokio::io::AsyncWriteExt;
    stdin
        .write_all(format!("{first}\nq\n").as_bytes())
        .await
        .expect("type the moves");
    drop(stdin);
    let output = tokio::time::timeout(Duration::from_secs(120), play.wait_with_output())
        .await
        .expect("play ends")
        .expect("play runs");
    assert!(output.status.success());
    let shown = String::from_utf8(output.stdout).expect("utf-8");
    assert_eq!(
        shown.matches("your move").count(),
        2,
        "asked for a move, then again after the bot's: {shown}"
    );
    let view = json(&cli(&host, &["--json", "show", &match_id]).await);
    assert_eq!(view["version"], 2, "our move and the bot's: {view}");
}
