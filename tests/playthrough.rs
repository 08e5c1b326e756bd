//! Recorded playthroughs: a seeded match of one game played over the real API
//! and written down as a transcript of everything every viewer was shown —
//! each seat's and a spectator's view (JSON and text) after every action, the
//! legal actions with their notation, every Watch event, and the exported
//! record. `tests/playthroughs/*.txt` hold the recordings; `scripts/playthroughs`
//! rewrites them and `scripts/test` diffs a fresh run against them, so any
//! change of behaviour a player could see shows up as a diff.
//!
//! A recording starts with its header, which is all the generator reads:
//! ```text
//! game: focus
//! players: 2
//! options: max_turns=20 opening_swap=random
//! seed: 7
//! max_actions: 120
//! ```
//! Every seat to move picks uniformly among its legal actions with a ChaCha
//! generator seeded by `seed`; after `max_actions` submits seat 0 resigns,
//! then (where that left the others playing on) each next seat still in, so
//! every recording ends with a finished match and a public record. A view is
//! written whole the first time a viewer sees it, then as the fields that
//! changed; a viewer that sees exactly what an earlier one saw says so.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sha2::{Digest, Sha256};
use tabletop_proto::v1 as pb;
use tabletop_proto::v1::matches_client::MatchesClient;
use tokio_stream::StreamExt;
use tonic::transport::Channel;

use crate::{ADMIN_TOKEN, Host, legal};

/// JSON strings longer than this are written as their length and digest (War's
/// board drawing is ~50 KB per view); the digest still catches any change.
const LONG_STRING: usize = 600;

/// The line that separates a recording's header from what is generated.
const GENERATED: &str =
    "# Everything below is generated from the header above by scripts/playthroughs.";

/// What to play: the header of a recording.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// The game's name.
    pub game: String,
    /// Seats.
    pub players: u32,
    /// Game options.
    pub options: BTreeMap<String, String>,
    /// The match seed, which also seeds the choice of actions.
    pub seed: u64,
    /// Submits before seat 0 resigns (and the next seats, while the match
    /// plays on).
    pub max_actions: usize,
}

impl Spec {
    /// Reads the header at the start of a recording (up to the first blank line).
    pub fn from_recording(text: &str) -> Result<Spec, String> {
        let mut fields = BTreeMap::new();
        for line in text.lines().take_while(|l| !l.trim().is_empty()) {
            let (key, value) = line
                .split_once(':')
                .ok_or_else(|| format!("header line `{line}` is not `key: value`"))?;
            fields.insert(key.trim().to_string(), value.trim().to_string());
        }
        let field = |key: &str| {
            fields
                .get(key)
                .cloned()
                .ok_or_else(|| format!("the header has no `{key}`"))
        };
        let number = |key: &str| -> Result<u64, String> {
            field(key)?
                .parse()
                .map_err(|_| format!("`{key}` is not a number"))
        };
        let mut options = BTreeMap::new();
        for pair in field("options")?.split_whitespace() {
            let (k, v) = pair
                .split_once('=')
                .ok_or_else(|| format!("option `{pair}` is not `name=value`"))?;
            options.insert(k.to_string(), v.to_string());
        }
        Ok(Spec {
            game: field("game")?,
            players: u32::try_from(number("players")?).map_err(|_| "players is too large")?,
            options,
            seed: number("seed")?,
            max_actions: usize::try_from(number("max_actions")?)
                .map_err(|_| "max_actions is too large")?,
        })
    }

    /// The header, as [`Spec::from_recording`] reads it.
    pub fn header(&self) -> String {
        let options: Vec<String> = self
            .options
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        format!(
            "game: {}\nplayers: {}\noptions: {}\nseed: {}\nmax_actions: {}\n",
            self.game,
            self.players,
            options.join(" "),
            self.seed,
            self.max_actions
        )
    }
}

/// One viewer: a seat with its token, or the spectator.
#[derive(Debug, Clone)]
struct Viewer {
    label: String,
    seat: Option<u32>,
    token: String,
}

/// Plays `spec` on `host` and returns the whole recording (header included).
pub async fn record(host: &Host, spec: &Spec) -> Result<String, String> {
    let mut matches = host.matches().await;
    let created = matches
        // Choosing the seed takes a credential.
        .create_match(crate::as_admin(pb::CreateMatchRequest {
            game: spec.game.clone(),
            players: spec.players,
            seed: Some(spec.seed),
            options: spec.options.clone().into_iter().collect(),
            ..Default::default()
        }))
        .await
        .map_err(|e| format!("create {}: {e}", spec.game))?
        .into_inner();
    let match_id = created.match_id.clone();
    let mut viewers: Vec<Viewer> = created
        .seats
        .iter()
        .map(|s| Viewer {
            label: format!("seat {}", s.seat),
            seat: Some(s.seat),
            token: s.token.clone(),
        })
        .collect();
    viewers.sort_by_key(|v| v.seat);
    viewers.push(Viewer {
        label: "spectator".into(),
        seat: None,
        token: String::new(),
    });

    let mut watchers = Vec::new();
    for viewer in &viewers {
        let mut stream = host
            .watch()
            .await
            .watch_match(pb::WatchMatchRequest {
                match_id: match_id.clone(),
                seat_token: viewer.token.clone(),
                from_version: None,
                after_seq: None,
                omit_views: false,
            })
            .await
            .map_err(|e| format!("watch as {}: {e}", viewer.label))?
            .into_inner();
        // The first message (the snapshot) arrives before any action is
        // submitted, so every later event reaches this stream.
        let first = stream
            .next()
            .await
            .ok_or("the watch stream ended at once")?
            .map_err(|e| format!("watch as {}: {e}", viewer.label))?;
        watchers.push(tokio::spawn(async move {
            let mut events = vec![first];
            while let Some(Ok(event)) = stream.next().await {
                events.push(event);
            }
            events
        }));
    }

    let mut out = spec.header();
    writeln!(out, "\n{GENERATED}").unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
    let mut submitted = 0;
    let mut last_views = BTreeMap::new();
    loop {
        let spectator = view(&mut matches, &match_id, "").await?;
        write_views(
            &mut out,
            &mut matches,
            &match_id,
            &viewers,
            &spectator,
            &mut last_views,
        )
        .await?;
        if spectator.state != pb::MatchState::Running as i32 {
            break;
        }
        if submitted == spec.max_actions {
            // A resignation that takes the seat out (three or more seats)
            // leaves a running match: the next seat still in resigns too.
            let seat = spectator
                .seats
                .iter()
                .find(|s| !s.out)
                .map(|s| s.seat)
                .ok_or("a running match has every seat out")?;
            let resigned = matches
                .resign(pb::ResignRequest {
                    match_id: match_id.clone(),
                    seat_token: viewers[seat as usize].token.clone(),
                })
                .await
                .map_err(|e| format!("resign seat {seat}: {e}"))?
                .into_inner();
            writeln!(
                out,
                "\n>> seat {seat} resigns after {submitted} actions -> version {}",
                resigned.version
            )
            .unwrap();
            continue;
        }
        let seat = spectator
            .seats
            .iter()
            .find(|s| s.to_move && !s.has_acted)
            .map(|s| s.seat)
            .ok_or("a running match has no seat left to act")?;
        let token = &viewers[seat as usize].token;
        let legal = legal(&mut matches, &match_id, token)
            .await
            .map_err(|e| format!("legal actions of seat {seat}: {e}"))?;
        if legal.actions.is_empty() {
            return Err(format!("seat {seat} is to move but has no legal action"));
        }
        let action = &legal.actions[rng.random_range(0..legal.actions.len())];
        let answer = matches
            .submit_action(pb::SubmitActionRequest {
                match_id: match_id.clone(),
                seat_token: token.clone(),
                action: Some(pb::submit_action_request::Action::ActionId(action.id)),
                expected_version: Some(legal.version),
                ..Default::default()
            })
            .await
            .map_err(|e| format!("seat {seat} submits {}: {e}", action.notation))?
            .into_inner();
        submitted += 1;
        let version = answer.view.as_ref().map_or(0, |v| v.version);
        writeln!(
            out,
            "\n>> seat {seat} plays #{} {} -> version {version}",
            action.id, action.notation
        )
        .unwrap();
    }

    for (viewer, watcher) in viewers.iter().zip(watchers) {
        let events = tokio::time::timeout(Duration::from_secs(20), watcher)
            .await
            .map_err(|_| format!("the watch stream of {} did not end", viewer.label))?
            .map_err(|e| format!("watcher of {}: {e}", viewer.label))?;
        writeln!(out, "\n== Watch events as {} ==", viewer.label).unwrap();
        for event in events {
            write_event(&mut out, &event);
        }
    }

    let record = matches
        .export_record(pb::ExportRecordRequest {
            match_id: match_id.clone(),
            admin_token: ADMIN_TOKEN.into(),
        })
        .await
        .map_err(|e| format!("export: {e}"))?
        .into_inner();
    let mut record: serde_json::Value = serde_json::from_str(&record.record_json)
        .map_err(|e| format!("the record is not JSON: {e}"))?;
    normalize_record(&mut record);
    writeln!(
        out,
        "\n== Record ==\n{}",
        serde_json::to_string_pretty(&record).expect("JSON")
    )
    .unwrap();
    Ok(out)
}

/// Writes every viewer's view (and the legal actions of each seat to act)
/// at the current version.
async fn write_views(
    out: &mut String,
    matches: &mut MatchesClient<Channel>,
    match_id: &str,
    viewers: &[Viewer],
    spectator: &pb::MatchView,
    last_views: &mut BTreeMap<String, serde_json::Value>,
) -> Result<(), String> {
    writeln!(
        out,
        "\n== version {}: {}, to move {:?} ==",
        spectator.version,
        state_name(spectator.state),
        spectator.to_move
    )
    .unwrap();
    let mut shown: Vec<(String, String, String)> = Vec::new();
    for viewer in viewers {
        let v = view(matches, match_id, &viewer.token).await?;
        writeln!(out, "-- {} [{}]", viewer.label, digest(&v)).unwrap();
        for s in &v.seats {
            let mut flags = Vec::new();
            for (set, name) in [
                (s.filled, "filled"),
                (s.to_move, "to_move"),
                (s.has_acted, "has_acted"),
                (s.resigned, "resigned"),
                (s.out, "out"),
            ] {
                if set {
                    flags.push(name);
                }
            }
            writeln!(out, "seat {}: {}", s.seat, flags.join(" ")).unwrap();
        }
        if let Some(pending) = &v.pending_action {
            writeln!(out, "pending: {pending}").unwrap();
        }
        for r in &v.results {
            writeln!(
                out,
                "result: seat {} rank {} score {} resigned {}",
                r.seat, r.rank, r.score, r.resigned
            )
            .unwrap();
        }
        let json = compact_json(&v.view_json);
        let value: serde_json::Value = serde_json::from_str(&json).unwrap_or_default();
        let before = last_views.insert(viewer.label.clone(), value.clone());
        match shown.iter().find(|(_, j, t)| *j == json && *t == v.text) {
            Some((same, _, _)) => writeln!(out, "view and text: as {same}").unwrap(),
            None => {
                match before.as_ref().and_then(|b| changed_fields(b, &value)) {
                    Some(changes) => writeln!(out, "view changes: {changes}").unwrap(),
                    None => writeln!(out, "view: {json}").unwrap(),
                }
                writeln!(out, "text:").unwrap();
                for line in v.text.lines() {
                    writeln!(out, "| {line}").unwrap();
                }
            }
        }
        shown.push((viewer.label.clone(), json, v.text.clone()));
        if viewer
            .seat
            .is_some_and(|seat| v.seats.iter().any(|s| s.seat == seat && s.to_move))
        {
            match legal(matches, match_id, &viewer.token).await {
                Ok(legal) => {
                    let listed: Vec<String> = legal
                        .actions
                        .iter()
                        .map(|a| format!("#{} {}", a.id, a.notation))
                        .collect();
                    writeln!(out, "legal ({}): {}", listed.len(), listed.join(", ")).unwrap();
                }
                Err(e) => writeln!(out, "legal: {:?} {}", e.code(), e.message()).unwrap(),
            }
        }
    }
    Ok(())
}

fn write_event(out: &mut String, event: &pb::WatchEvent) {
    use pb::watch_event::Kind;
    match &event.kind {
        Some(Kind::Snapshot(view)) => {
            writeln!(out, "v{} snapshot [{}]", event.version, digest(view)).unwrap();
        }
        Some(Kind::Transition(t)) => {
            let view = t.view.as_ref().map(digest).unwrap_or_default();
            writeln!(
                out,
                "v{} transition [{view}] {}",
                event.version,
                compact_json(&t.event_json)
            )
            .unwrap();
        }
        Some(Kind::SeatActed(acted)) => {
            writeln!(out, "v{} seat {} acted", event.version, acted.seat).unwrap();
        }
        None => writeln!(out, "v{} (empty)", event.version).unwrap(),
    }
}

async fn view(
    matches: &mut MatchesClient<Channel>,
    match_id: &str,
    token: &str,
) -> Result<pb::MatchView, String> {
    matches
        .get_view(pb::GetViewRequest {
            match_id: match_id.to_string(),
            seat_token: token.to_string(),
            at_version: None,
            svg: false,
        })
        .await
        .map(tonic::Response::into_inner)
        .map_err(|e| format!("view: {e}"))
}

fn state_name(state: i32) -> &'static str {
    pb::MatchState::try_from(state).map_or("?", |s| s.as_str_name())
}

/// A short digest of everything a view shows (its match id aside, which is
/// random, and its plugin build's hash, which every compiler and build
/// setting changes), so Watch events can be matched with the views written above them.
/// It hashes the wire encoding, which leaves out fields at their defaults: a
/// field added to the API that a recorded match does not use changes no
/// digest, while any value a view shows does.
fn digest(view: &pb::MatchView) -> String {
    use prost::Message;
    let mut view = view.clone();
    view.match_id.clear();
    view.plugin_sha256.clear();
    short_hash(&view.encode_to_vec())
}

fn short_hash(bytes: &[u8]) -> String {
    hex::encode(&Sha256::digest(bytes)[..8])
}

/// The game's JSON on one line, with keys sorted and long strings replaced by
/// their length and digest.
fn compact_json(text: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(mut value) => {
            shorten(&mut value);
            value.to_string()
        }
        Err(_) => format!("(not JSON) {text}"),
    }
}

fn shorten(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::String(s) if s.len() > LONG_STRING => {
            *s = format!("<{} bytes, sha256 {}>", s.len(), short_hash(s.as_bytes()));
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(shorten),
        serde_json::Value::Object(fields) => fields.values_mut().for_each(shorten),
        _ => {}
    }
}

/// The top-level fields of a JSON object view that differ from the same
/// viewer's view written before (a field that went away shows as null), so
/// a board that never changes (War's points and lines) is written once.
/// `None` when either is not an object.
fn changed_fields(before: &serde_json::Value, after: &serde_json::Value) -> Option<String> {
    let (before, after) = (before.as_object()?, after.as_object()?);
    let mut changes = serde_json::Map::new();
    for (key, value) in after {
        if before.get(key) != Some(value) {
            changes.insert(key.clone(), value.clone());
        }
    }
    for key in before.keys().filter(|k| !after.contains_key(*k)) {
        changes.insert(key.clone(), serde_json::Value::Null);
    }
    Some(serde_json::Value::Object(changes).to_string())
}

/// Blanks what differs between two runs of the same playthrough: the random
/// match id, the hash of the plugin build (another compiler, another hash)
/// and wall-clock times.
fn normalize_record(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(fields) => {
            for (key, field) in fields.iter_mut() {
                if key == "match_id" || key == "plugin_sha256" {
                    *field = serde_json::Value::String("-".into());
                } else if key.ends_with("at_ms") {
                    *field = serde_json::Value::from(0);
                } else {
                    normalize_record(field);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(normalize_record),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_reads_back_as_written() {
        let spec = Spec {
            game: "focus".into(),
            players: 3,
            options: [("max_turns".to_string(), "9".to_string())].into(),
            seed: 11,
            max_actions: 40,
        };
        let text = format!("{}\nbody", spec.header());
        assert_eq!(Spec::from_recording(&text), Ok(spec));
    }

    #[test]
    fn a_header_without_a_field_is_refused() {
        let refused = Spec::from_recording("game: focus\nplayers: 2\n\n").unwrap_err();
        assert!(refused.contains("options"), "{refused}");
    }

    #[test]
    fn records_lose_their_match_id_build_hash_and_times_only() {
        let mut record = serde_json::json!({
            "match_id": "abc", "plugin_sha256": "0f1e", "created_at_ms": 5, "seed": 3,
            "actions": [{"at_ms": 9, "moves": [{"at_ms": 9, "action": 4}]}]
        });
        normalize_record(&mut record);
        assert_eq!(
            record,
            serde_json::json!({
                "match_id": "-", "plugin_sha256": "-", "created_at_ms": 0, "seed": 3,
                "actions": [{"at_ms": 0, "moves": [{"at_ms": 0, "action": 4}]}]
            })
        );
    }

    #[test]
    fn a_view_is_written_as_the_fields_that_changed() {
        let before = serde_json::json!({"board": [1, 2], "turn": 1, "gone": true});
        let after = serde_json::json!({"board": [1, 2], "turn": 2});
        assert_eq!(
            changed_fields(&before, &after).as_deref(),
            Some(r#"{"gone":null,"turn":2}"#)
        );
        assert_eq!(changed_fields(&serde_json::json!(3), &after), None);
    }

    #[test]
    fn long_strings_become_their_digest() {
        let long = "x".repeat(LONG_STRING + 1);
        let shown = compact_json(&serde_json::json!({"svg": long, "b": 1}).to_string());
        assert!(
            shown.starts_with(r#"{"b":1,"svg":"<601 bytes, sha256 "#),
            "{shown}"
        );
    }
}
