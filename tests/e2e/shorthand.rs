//! A shorthand that stands for several actions (War's whole setup
//! layout, ruling W3) in one SubmitAction, applied all or nothing, each
//! action its own version, log entry and watch event.

use tabletop_proto::v1 as pb;
use tabletop_tests::{ADMIN_TOKEN, Host, target_dir};
use tokio_stream::StreamExt;
use tonic::Code;

use crate::support::{create, spectator, watch_as_spectator};

/// South's whole army by rank on the default board (3 + 7 + 7 + 7 start
/// points): 16 infantry, 6 cavalry, 2 cannons (W3).
const LAYOUT: &str = "III/CIIIIIC/IIIIIII/CACCAIC";

fn submit(
    match_id: &str,
    token: &str,
    notation: &str,
    expected: Option<u64>,
) -> pb::SubmitActionRequest {
    pb::SubmitActionRequest {
        match_id: match_id.to_string(),
        seat_token: token.to_string(),
        action: Some(pb::submit_action_request::Action::Notation(
            notation.to_string(),
        )),
        expected_version: expected,
        ..Default::default()
    }
}

/// The units of a War view as (point, side, kind).
fn units(view: &pb::MatchView) -> Vec<(String, String, String)> {
    let json: serde_json::Value = serde_json::from_str(&view.view_json).expect("view JSON");
    json["units"]
        .as_array()
        .expect("units")
        .iter()
        .map(|u| {
            let text = |k: &str| u[k].as_str().unwrap_or_default().to_string();
            (text("point"), text("side"), text("kind"))
        })
        .collect()
}

#[tokio::test]
async fn whole_layout_in_one_request() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    let (id, tokens) = create(&mut matches, "war", 2, 6).await;
    let mut stream = watch_as_spectator(&mut host.watch().await, &id).await;
    let first = stream.next().await.expect("snapshot").expect("ok");
    assert_eq!(first.version, 0);

    // A broken layout (a third cannon at placement 23) is refused whole,
    // naming the place, and nothing changes.
    let broken = "III/CIIIIIC/IIIIIII/CACCAAC";
    let refused = matches
        .submit_action(submit(&id, &tokens[0], broken, Some(0)))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert!(
        refused
            .message()
            .contains("placement 23 (`A`, character 26)")
            && refused.message().contains("too many cannons"),
        "{}",
        refused.message()
    );
    // North may not lay out while South places; a stale version is refused.
    let wrong_side = matches
        .submit_action(submit(&id, &tokens[1], "iii", None))
        .await
        .unwrap_err();
    assert_eq!(wrong_side.code(), Code::FailedPrecondition);
    let stale = matches
        .submit_action(submit(&id, &tokens[0], LAYOUT, Some(3)))
        .await
        .unwrap_err();
    assert_eq!(stale.code(), Code::FailedPrecondition);
    assert!(
        stale.message().contains("stale version"),
        "{}",
        stale.message()
    );
    let unchanged = spectator(&mut matches, &id).await;
    assert_eq!(unchanged.version, 0, "refusals change nothing");
    assert!(units(&unchanged).is_empty());

    // The whole layout in one request: 24 placements, 24 versions.
    let response = matches
        .submit_action(submit(&id, &tokens[0], LAYOUT, Some(0)))
        .await
        .expect("the layout is accepted")
        .into_inner();
    assert!(!response.pending);
    let view = response.view.expect("view");
    assert_eq!(view.version, 24);
    assert_eq!(view.to_move, vec![1], "North places next (W3)");
    let placed = units(&view);
    assert_eq!(placed.len(), 24);
    assert!(placed.contains(&("c1".into(), "south".into(), "infantry".into())));
    assert!(placed.contains(&("a2".into(), "south".into(), "cavalry".into())));
    assert!(placed.contains(&("b4".into(), "south".into(), "cannon".into())));

    // The watcher saw each placement as its own transition, in order.
    let expected: Vec<String> = LAYOUT
        .chars()
        .filter(|c| *c != '/')
        .enumerate()
        .map(|(i, c)| format!("{c}@{}", i + 1))
        .collect();
    for (i, notation) in expected.iter().enumerate() {
        let message = stream.next().await.expect("an event").expect("ok");
        assert_eq!(message.version, i as u64 + 1, "no placement is skipped");
        let Some(pb::watch_event::Kind::Transition(t)) = message.kind else {
            panic!("a transition: {message:?}");
        };
        let event: serde_json::Value = serde_json::from_str(&t.event_json).expect("event JSON");
        assert_eq!(event["moves"][0]["action"], notation.as_str(), "{event}");
        assert_eq!(units(&t.view.expect("view")).len(), i + 1);
    }

    // North lays out part of its army through the CLI, as words.
    let cli = target_dir().join(format!("tabletop{}", std::env::consts::EXE_SUFFIX));
    let output = tokio::process::Command::new(&cli)
        .args([
            "--server", &host.url, "--json", "move", &id, "III", "cC", "--token",
        ])
        .arg(&tokens[1])
        .args(["--expect-version", "24"])
        .output()
        .await
        .unwrap_or_else(|e| panic!("run {}: {e}", cli.display()));
    assert!(
        output.status.success(),
        "tabletop move: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let printed: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("tabletop --json prints JSON");
    assert_eq!(printed["view"]["version"], 29, "{printed}");

    // The record holds the expanded actions, and imports to the same view.
    let record = matches
        .export_record(pb::ExportRecordRequest {
            match_id: id.clone(),
            admin_token: ADMIN_TOKEN.into(),
        })
        .await
        .expect("export")
        .into_inner()
        .record_json;
    let json: serde_json::Value = serde_json::from_str(&record).expect("record JSON");
    let actions = json["actions"].as_array().expect("actions");
    assert_eq!(actions.len(), 29);
    assert_eq!(actions[0]["moves"][0]["notation"], "I@1");
    assert_eq!(actions[28]["moves"][0]["notation"], "C@V");
    let imported = matches
        .import_record(pb::ImportRecordRequest {
            record_json: record,
            admin_token: ADMIN_TOKEN.into(),
        })
        .await
        .expect("import")
        .into_inner();
    let now = spectator(&mut matches, &id).await;
    let imported_view = imported.view.expect("view");
    assert_eq!(imported_view.version, 29);
    assert_eq!(imported_view.view_json, now.view_json);
}
