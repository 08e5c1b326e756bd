//! The event schemas hold for what the games really send: every Watch event
//! of every recorded playthrough (`tests/playthroughs/*.txt`, each viewer's
//! stream) is checked against its game's `plugins/<game>/events.schema.json`,
//! or against `docs/host-events.schema.json` when the host, not the game,
//! described it. The recordings are regenerated from the real host and the
//! real plugins (`scripts/playthroughs`), so a change to an event that its
//! schema does not allow fails here.
//!
//! The recordings are short, so seeded random matches of every game, played
//! on its built plugin as the host loads it, check the events they never
//! reach (jumps and shots, captures of pieces that had stopped, Esel gifts)
//! for every viewer as well. Those load the built plugins, like the
//! end-to-end tests: build them first (`scripts/test` does).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use jsonschema::Validator;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use tabletop_loader::Plugin;
use tabletop_sdk::{Chance, DynGame, Move, Status, Transition, Viewer};
use tabletop_tests::{built_plugin, workspace_dir};

/// The games whose events are described, one schema each.
const GAMES: [&str; 4] = ["focus", "lanza", "lanzeloth", "war"];

/// The `type`s of the events the host describes itself.
const HOST_TYPES: [&str; 13] = [
    "joined",
    "resigned",
    "timeout",
    "out",
    "resigned_out",
    "paused",
    "resumed",
    "time_added",
    "aborted",
    "adjudicated",
    "absent",
    "quarantined",
    "released",
];

/// One host event of each type, as the host writes them.
fn host_event_examples() -> Vec<Value> {
    vec![
        json!({ "type": "joined", "seat": 1 }),
        json!({ "type": "resigned", "seat": 1 }),
        json!({ "type": "timeout", "seat": 0 }),
        json!({ "type": "out", "seat": 2 }),
        json!({ "type": "resigned_out", "seat": 3 }),
        json!({ "type": "paused" }),
        json!({ "type": "resumed" }),
        json!({ "type": "time_added", "seat": 1, "ms": 30000 }),
        json!({ "type": "aborted", "reason": "power cut in hall B" }),
        json!({ "type": "adjudicated", "results": [
            { "seat": 0, "rank": 1, "score": 0.0, "resigned": false },
            { "seat": 1, "rank": 2, "score": 0.0, "resigned": false },
        ] }),
        json!({ "type": "absent", "seats": [2] }),
        json!({ "type": "quarantined", "reason": "the plugin's worker died in `view`" }),
        json!({ "type": "released" }),
    ]
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The schema file of `game`.
fn game_schema_path(game: &str) -> PathBuf {
    workspace_dir()
        .join("plugins")
        .join(game)
        .join("events.schema.json")
}

fn host_schema_path() -> PathBuf {
    workspace_dir().join("docs/host-events.schema.json")
}

/// A schema compiled as draft 2020-12, which each file declares.
fn compile(path: &Path) -> Validator {
    let schema = read_json(path);
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema",
        "{} declares draft 2020-12",
        path.display()
    );
    jsonschema::draft202012::new(&schema)
        .unwrap_or_else(|e| panic!("{} does not compile: {e}", path.display()))
}

/// Every game's validator, by game name.
fn game_validators() -> BTreeMap<&'static str, Validator> {
    GAMES
        .iter()
        .map(|&game| (game, compile(&game_schema_path(game))))
        .collect()
}

/// Why `event` fails `validator`, one line per error; empty when it is valid.
fn errors(validator: &Validator, event: &Value) -> Vec<String> {
    validator
        .iter_errors(event)
        .map(|e| format!("{e} (at `{}`)", e.instance_path()))
        .collect()
}

/// One recorded event: where it was written, and its JSON.
#[derive(Debug)]
struct Recorded {
    place: String,
    event: Value,
}

/// Every recording's game and the events of its Watch streams (every
/// viewer's), in file order.
fn recordings() -> Vec<(String, Vec<Recorded>)> {
    let dir = workspace_dir().join("tests/playthroughs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|file| {
            let text = std::fs::read_to_string(file).expect("a recording");
            let name = file.file_name().unwrap_or_default().to_string_lossy();
            let game = text
                .lines()
                .find_map(|l| l.strip_prefix("game: "))
                .unwrap_or_else(|| panic!("{name} has no `game:` header"))
                .trim()
                .to_string();
            let events = text
                .lines()
                .enumerate()
                .filter_map(|(i, line)| {
                    // `v12 transition [digest] {json}`, as the recorder writes it.
                    let (_, rest) = line.split_once(" transition [")?;
                    let (_, json) = rest.split_once("] ")?;
                    let event = serde_json::from_str(json)
                        .unwrap_or_else(|e| panic!("{name}:{}: the event is not JSON: {e}", i + 1));
                    Some(Recorded {
                        place: format!("{name}:{}", i + 1),
                        event,
                    })
                })
                .collect();
            (game, events)
        })
        .collect()
}

fn is_host_event(event: &Value) -> bool {
    event["type"]
        .as_str()
        .is_some_and(|t| HOST_TYPES.contains(&t))
}

#[test]
fn every_schema_is_a_valid_draft_2020_12_schema() {
    let mut paths: Vec<PathBuf> = GAMES.iter().map(|g| game_schema_path(g)).collect();
    paths.push(host_schema_path());
    for path in paths {
        let schema = read_json(&path);
        if let Err(e) = jsonschema::draft202012::meta::validate(&schema) {
            panic!(
                "{} is not a valid draft 2020-12 schema: {e}",
                path.display()
            );
        }
    }
}

#[test]
fn every_recorded_event_matches_its_games_schema_or_the_hosts() {
    let games = game_validators();
    let host = compile(&host_schema_path());
    let mut checked: BTreeMap<String, usize> = BTreeMap::new();
    let mut host_events = 0;
    let mut failures = Vec::new();
    for (game, events) in recordings() {
        let validator = games
            .get(game.as_str())
            .unwrap_or_else(|| panic!("a recording of `{game}`, which has no schema here"));
        for Recorded { place, event } in events {
            let (which, found) = if is_host_event(&event) {
                host_events += 1;
                ("the host's", errors(&host, &event))
            } else {
                *checked.entry(game.clone()).or_default() += 1;
                ("its game's", errors(validator, &event))
            };
            if !found.is_empty() {
                failures.push(format!(
                    "{place}: {event}\n  fails {which} schema: {}",
                    found.join("; ")
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} recorded events do not match their schema:\n{}",
        failures.len(),
        failures.join("\n")
    );
    for game in GAMES {
        let seen = checked.get(game).copied().unwrap_or(0);
        assert!(seen >= 20, "only {seen} recorded events of {game}");
    }
    assert!(host_events > 0, "no recording holds a host event");
}

#[test]
fn every_kind_of_turn_event_occurs_in_the_recordings() {
    // The recordings exercise what the schemas describe, not just a corner
    // of it: each game's main event kinds are there.
    let mut kinds: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (game, events) in recordings() {
        for Recorded { event, .. } in events {
            let kind = match (game.as_str(), &event["kind"]) {
                ("focus" | "war", Value::String(kind)) => kind.clone(),
                _ => event["type"].as_str().unwrap_or("?").to_string(),
            };
            kinds.entry(game.clone()).or_default().push(kind);
        }
    }
    // A chance at the match's creation (a deal, a setup, a random opening
    // swap) comes before any watcher: the random matches below check those.
    let expect = [
        ("focus", &["shift", "drop"][..]),
        ("lanza", &["turn", "place", "reentry_order"][..]),
        ("lanzeloth", &["move"][..]),
        ("war", &["place", "move", "place_tile"][..]),
    ];
    for (game, wanted) in expect {
        let seen = kinds.get(game).cloned().unwrap_or_default();
        for kind in wanted {
            assert!(
                seen.iter().any(|k| k == kind),
                "no `{kind}` event of {game} is recorded"
            );
        }
    }
}

/// The first recorded event of `game` for which `pick` holds.
fn recorded(game: &str, pick: impl Fn(&Value) -> bool) -> Value {
    recordings()
        .into_iter()
        .filter(|(g, _)| g == game)
        .flat_map(|(_, events)| events)
        .map(|r| r.event)
        .find(|e| pick(e))
        .unwrap_or_else(|| panic!("no such recorded {game} event"))
}

#[test]
fn a_malformed_event_is_rejected() {
    let games = game_validators();
    let lanza = &games["lanza"];
    let turn = recorded("lanza", |e| e["type"] == "turn");
    assert!(errors(lanza, &turn).is_empty(), "{turn}");

    // A piece without the field where it was captured.
    let mut missing = turn.clone();
    missing["pieces"][0]
        .as_object_mut()
        .expect("a piece is an object")
        .remove("captured_at");
    assert!(!errors(lanza, &missing).is_empty(), "{missing}");

    // A result no piece can have, and a field that is no field.
    let mut unknown = turn.clone();
    unknown["pieces"][0]["result"] = json!("vanished");
    assert!(!errors(lanza, &unknown).is_empty(), "{unknown}");
    let mut off_board = turn.clone();
    off_board["pieces"][0]["from"] = json!("z9");
    assert!(!errors(lanza, &off_board).is_empty(), "{off_board}");

    // A stopped piece must say why.
    let mut no_reason = turn;
    no_reason["pieces"][0]["result"] = json!("stopped");
    no_reason["pieces"][0]["reason"] = Value::Null;
    assert!(!errors(lanza, &no_reason).is_empty(), "{no_reason}");

    // A field the schema does not describe.
    let focus = &games["focus"];
    let mut extra = recorded("focus", |e| e["kind"] == "shift");
    extra["secret"] = json!(1);
    assert!(!errors(focus, &extra).is_empty(), "{extra}");

    // A face-down gift that tells its number would leak a hidden tile (Z11).
    let lanzeloth = &games["lanzeloth"];
    let leak = json!({
        "type": "move", "player": 0, "action": "place p2",
        "steps": [{"step": "gift", "from": 1, "to": 0, "source": "face-down", "tile": 7}]
    });
    assert!(!errors(lanzeloth, &leak).is_empty(), "{leak}");

    // A shot that captured nothing is no fire (W7).
    let war = &games["war"];
    let mut no_hit = recorded("war", |e| e["kind"] == "move");
    no_hit["kind"] = json!("fire");
    no_hit["direction"] = json!("N");
    no_hit["to"] = Value::Null;
    no_hit["unit"] = json!("cannon");
    assert!(!errors(war, &no_hit).is_empty(), "{no_hit}");
}

#[test]
fn a_host_event_is_never_a_game_event_and_the_reverse() {
    let games = game_validators();
    let host = compile(&host_schema_path());
    let examples = host_event_examples();
    assert_eq!(
        examples.len(),
        HOST_TYPES.len(),
        "an example of every host type"
    );
    for event in examples {
        assert!(errors(&host, &event).is_empty(), "{event}");
        for (game, validator) in &games {
            assert!(
                !errors(validator, &event).is_empty(),
                "{game}'s schema accepts the host's {event}"
            );
        }
    }
    assert!(!errors(&host, &json!({ "type": "resigned" })).is_empty());
    assert!(!errors(&host, &json!({ "type": "paused", "seat": 0 })).is_empty());
    assert!(!errors(&host, &json!({ "type": "time_added", "seat": 0 })).is_empty());
    assert!(!errors(&host, &json!({ "type": "moves", "seat": 0 })).is_empty());
    assert!(!errors(&host, &json!({ "type": "quarantined" })).is_empty());
}

/// The built plugin of `game`, loaded as the host loads it.
fn load(game: &str, cache: &Path) -> std::sync::Arc<Plugin> {
    Plugin::load_with_cache(&built_plugin(game), cache)
        .unwrap_or_else(|e| panic!("the built {game} plugin does not load: {e}"))
}

/// Plays a seeded random match of `game` and hands every event, as every
/// viewer (each seat, then the spectator) is told it, to `told`.
fn random_match(
    game: &dyn DynGame,
    players: u32,
    options: &[(&str, &str)],
    seed: u64,
    told: &mut dyn FnMut(Viewer, Value),
) {
    let raw = options
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut state = game
        .new_state(players, &raw, None)
        .unwrap_or_else(|e| panic!("{options:?}: {}", e.message));
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut legal = Vec::new();
    for _ in 0..5_000 {
        let transition = match state.status().expect("a status") {
            Status::Terminal => return,
            Status::Chance => Transition::Chance(match state.chance().expect("a chance node") {
                Chance::Explicit(outcomes) => outcomes[rng.random_range(0..outcomes.len())].0,
                Chance::Sampled => rng.random(),
            }),
            Status::ToMove(movers) => Transition::Moves(
                movers
                    .iter()
                    .map(|player| {
                        state
                            .legal_actions(player, &mut legal)
                            .expect("legal actions");
                        let action = legal[rng.random_range(0..legal.len())];
                        Move { player, action }
                    })
                    .collect(),
            ),
        };
        let before = state.clone_state().expect("a copy");
        match &transition {
            Transition::Moves(moves) => state.apply(moves),
            Transition::Chance(outcome) => state.apply_chance(*outcome),
        }
        .expect("a legal transition applies");
        for viewer in (0..players).map(Viewer::Seat).chain([Viewer::Spectator]) {
            let event = state
                .event(before.as_ref(), &transition, viewer)
                .expect("an event");
            told(
                viewer,
                serde_json::from_str(&event).expect("the event is JSON"),
            );
        }
    }
}

/// Every event of the random matches of `name` that fails its schema, and
/// the events seen, flattened to `field=value` words (see [`features`]).
fn check_random_matches(
    name: &str,
    matches: &[(u32, &[(&str, &str)])],
    seeds: std::ops::Range<u64>,
) -> (Vec<String>, Vec<String>) {
    let validator = compile(&game_schema_path(name));
    let cache = tempfile::tempdir().expect("a cache directory");
    let game = load(name, cache.path());
    let mut failures = Vec::new();
    let mut seen = BTreeSet::new();
    for &(players, options) in matches {
        for seed in seeds.clone() {
            random_match(
                game.as_ref(),
                players,
                options,
                seed,
                &mut |viewer, event| {
                    let found = errors(&validator, &event);
                    if !found.is_empty() && failures.len() < 20 {
                        failures.push(format!(
                            "{name}, {players} players {options:?}, seed {seed}, {viewer:?}: \
                         {event}\n  {}",
                            found.join("; ")
                        ));
                    }
                    features(&event, &mut seen);
                },
            );
        }
    }
    (failures, seen.into_iter().collect())
}

/// Words naming what an event holds: `field=value` for every string value
/// and `field=set` for every other non-empty one, at any depth.
fn features(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(fields) => {
            for (key, field) in fields {
                match field {
                    Value::String(s) => {
                        out.insert(format!("{key}={s}"));
                    }
                    Value::Null => {}
                    Value::Array(items) if items.is_empty() => {}
                    other => {
                        out.insert(format!("{key}=set"));
                        features(other, out);
                    }
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| features(item, out)),
        _ => {}
    }
}

/// Checks the random matches of one game and that they reached `wanted`.
fn random_matches_match_the_schema(
    name: &str,
    matches: &[(u32, &[(&str, &str)])],
    seeds: std::ops::Range<u64>,
    wanted: &[&str],
) {
    let (failures, seen) = check_random_matches(name, matches, seeds);
    assert!(
        failures.is_empty(),
        "events of random {name} matches fail the schema:\n{}",
        failures.join("\n")
    );
    for word in wanted {
        assert!(
            seen.iter().any(|s| s == word),
            "no random {name} match told `{word}`: {seen:?}"
        );
    }
}

#[test]
fn every_event_of_random_focus_matches_matches_the_schema() {
    random_matches_match_the_schema(
        "focus",
        &[
            (2, &[("opening_swap", "random")]),
            (2, &[("opening_swap", "chosen"), ("max_turns", "120")]),
            (3, &[]),
            (4, &[]),
        ],
        0..3,
        &[
            "kind=shift",
            "kind=drop",
            "kind=swap",
            "to=captured",
            "to=reserve",
            "out=set",
            "type=chance",
            "result=set",
        ],
    );
}

#[test]
fn every_event_of_random_lanza_matches_matches_the_schema() {
    random_matches_match_the_schema(
        "lanza",
        &[
            (2, &[("max_turns", "60")]),
            (3, &[("max_turns", "60")]),
            (4, &[("max_turns", "60")]),
        ],
        0..8,
        &[
            "type=setup",
            "type=place",
            "type=reentry_order",
            "before_capture=stopped",
            "before_capture=moved",
            "reason=standoff",
            "reason=three_way",
        ],
    );
}

#[test]
fn every_event_of_random_lanzeloth_matches_matches_the_schema() {
    let small = [("max_number", "10"), ("copies", "2")];
    random_matches_match_the_schema(
        "lanzeloth",
        &[(2, &small), (4, &small), (3, &[("esel", "forced")])],
        0..3,
        &[
            "type=deal",
            "type=first-player",
            "step=turn-over",
            "step=esel",
            "source=face-down",
            "source=open",
            "step=win",
            "kind=new-middle",
        ],
    );
}

#[test]
fn every_event_of_random_war_matches_matches_the_schema() {
    random_matches_match_the_schema(
        "war",
        &[(2, &[]), (2, &[("rail_tiles", "5")])],
        0..2,
        &[
            "kind=jump",
            "kind=fire",
            "kind=place_tile",
            "kind=remove_tile",
            "seized=set",
            "cannons_removed=set",
            "tiles_changed_owner=set",
            "result=set",
        ],
    );
}
