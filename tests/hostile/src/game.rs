//! The game checks behind the fuzz targets: a game's position and action
//! notation read from hostile text, through the [`Game`](tabletop_sdk::Game) trait, on states
//! built from fuzzed positions and from random play.
//!
//! Each check panics when the game breaks its contract: a panic inside the
//! game, a refusal with a fault kind or an over-long message, a position
//! that does not read back to itself, an action text read as an action that
//! is not legal, a legal action refused, or a refused action that changed
//! the state.

use std::sync::OnceLock;

use tabletop_sdk::{
    ActionId, Attempt, Chance, Extended, GameError, Manifest, Move, Player, Setup, Status, Viewer,
};

use crate::input::{Input, Rng, decode};

/// The longest message a refusal may carry: a hostile text is quoted in
/// part, never whole.
pub const LONGEST_MESSAGE: usize = 1023;

/// The message limit the checks apply: [`LONGEST_MESSAGE`], or the bytes
/// environment variable `TABLETOP_FUZZ_MESSAGE_LIMIT` says (0: none), to
/// look past long messages for other faults.
pub fn message_limit() -> usize {
    static LIMIT: OnceLock<usize> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        match std::env::var("TABLETOP_FUZZ_MESSAGE_LIMIT").map(|v| v.parse::<usize>()) {
            Ok(Ok(0)) => usize::MAX,
            Ok(Ok(limit)) => limit,
            _ => LONGEST_MESSAGE,
        }
    })
}

/// Action ids asked about beyond the legal ones, per player.
const FOREIGN_IDS: usize = 8;

/// Legal actions whose notation is read back, per player.
const ROUND_TRIPS: usize = 8;

/// Fuzz target: the input's text is a position (optionally followed by a
/// NUL and an action text). A position that parses must print and read
/// back to the same text, survive random play and answer every notation
/// call; one that does not parse must be refused cleanly.
pub fn position<G: Extended>(game: &G, data: &[u8]) {
    let manifest = game.manifest();
    let input = decode(&manifest, data);
    let Some(setup) = setup(&manifest, &input) else {
        return;
    };
    let (position, notation) = input
        .text
        .split_once('\0')
        .unwrap_or((input.text.as_ref(), ""));
    match game.parse_position(&setup, position) {
        Err(e) => check_refusal("parse_position", &e),
        Ok(state) => {
            check_round_trip(game, &setup, &state);
            exercise(game, &setup, state, &input, notation);
        }
    }
}

/// Fuzz target: the input's text is an action text (or a shorthand),
/// tried by every seat on a state reached by random play from the start.
pub fn notation<G: Extended>(game: &G, data: &[u8]) {
    let manifest = game.manifest();
    let input = decode(&manifest, data);
    let Some(setup) = setup(&manifest, &input) else {
        return;
    };
    match game.new_state(&setup) {
        Err(e) => check_refusal("new_state", &e),
        Ok(state) => exercise(game, &setup, state, &input, &input.text),
    }
}

/// Fuzz target: the input's text is the value of free-text option
/// `option` (War's board document). A value the game accepts must give a
/// start state whose position reads back and which plays.
pub fn option_text<G: Extended>(game: &G, option: &str, data: &[u8]) {
    let manifest = game.manifest();
    let mut input = decode(&manifest, data);
    input
        .options
        .insert(option.to_string(), input.text.to_string());
    let Some(setup) = setup(&manifest, &input) else {
        return;
    };
    match game.new_state(&setup) {
        Err(e) => check_refusal("new_state", &e),
        Ok(state) => {
            check_round_trip(game, &setup, &state);
            exercise(game, &setup, state, &input, "");
        }
    }
}

/// The setup `input` asks for, or `None` after checking the refusal.
fn setup(manifest: &Manifest, input: &Input<'_>) -> Option<Setup> {
    Setup::validate(manifest, input.players, &input.options)
        .map_err(|e| check_refusal("Setup::validate", &e))
        .ok()
}

/// Plays the input's random plies from `state`, then asks everything of the
/// state it reached, `text` included.
fn exercise<G: Extended>(game: &G, setup: &Setup, state: G::State, input: &Input<'_>, text: &str) {
    let mut rng = Rng::new(input.seed);
    let state = play(game, setup, state, input.plies, &mut rng);
    check_state(game, setup, &state, &mut rng);
    for player in 0..=setup.players {
        check_text(game, &state, player, text);
        check_ids(game, &state, player, &mut rng);
    }
    check_text(game, &state, Player::MAX, text);
}

/// A refusal of hostile input: a clear error, never a fault, never long.
pub fn check_refusal(what: &str, e: &GameError) {
    assert!(
        !e.kind.is_fault(),
        "{what} failed with a fault ({:?}): {}",
        e.kind,
        e.message
    );
    assert!(
        e.message.len() <= message_limit(),
        "{what} refused with a message of {} bytes (at most {}): {}…",
        e.message.len(),
        message_limit(),
        e.message.chars().take(200).collect::<String>()
    );
}

/// The position of `state` reads back to a state that prints the same.
fn check_round_trip<G: Extended>(game: &G, setup: &Setup, state: &G::State) {
    let printed = game.position_to_string(state);
    match game.parse_position(setup, &printed) {
        Ok(again) => assert_eq!(
            game.position_to_string(&again),
            printed,
            "a position does not print the same after reading it back"
        ),
        Err(e) => panic!(
            "the game's own position does not read back ({:?}: {}):\n{printed}",
            e.kind, e.message
        ),
    }
}

/// Status, results, views and texts of `state` are well formed.
fn check_state<G: Extended>(game: &G, setup: &Setup, state: &G::State, rng: &mut Rng) {
    match game.status(state) {
        Status::Terminal => assert_eq!(
            game.results(state).len(),
            setup.players as usize,
            "a finished game ranks every seat"
        ),
        Status::Chance => {
            if let Chance::Explicit(outcomes) = game.chance(state) {
                assert!(!outcomes.is_empty(), "a chance node lists no outcome");
            }
        }
        Status::ToMove(set) => assert!(!set.is_empty(), "a running game has nobody to move"),
    }
    // One viewer per input: views are large (War's carries its board
    // drawn) and are not what the fuzzer is after.
    let seat = rng.below(setup.players as usize + 1) as Player;
    let viewer = if seat < setup.players {
        Viewer::Seat(seat)
    } else {
        Viewer::Spectator
    };
    if let Err(e) = serde_json::to_string(&game.view(state, viewer)) {
        panic!("the view for {viewer:?} does not serialise: {e}");
    }
    let _ = game.render_text(state, viewer);
    let _ = action_space(game, state);
    if let Some(seats_out) = G::EXTENSIONS.seats_out {
        let _ = seats_out(game, state);
    }
    if let Some(resample) = G::EXTENSIONS.resample {
        let _ = resample(game, state, viewer, rng.next_u64());
    }
}

/// `text` as an action of `player`: read as a legal action or refused
/// cleanly, explained consistently, and as a shorthand expanded to steps
/// that play or are refused cleanly.
fn check_text<G: Extended>(game: &G, state: &G::State, player: Player, text: &str) {
    let mut legal = Vec::new();
    game.legal_actions(state, player, &mut legal);
    let explained = explain(game, state, player, Attempt::Text(text));
    match game.parse_action(state, player, text) {
        Ok(id) => {
            assert!(
                legal.contains(&id),
                "`{}` reads as action {id}, which is not legal for seat {player}",
                shorten(text)
            );
            assert!(
                explained.is_none(),
                "the legal `{}` is explained as refused: {explained:?}",
                shorten(text)
            );
        }
        Err(e) => {
            check_refusal("parse_action", &e);
            if let Some(refusal) = explained {
                check_explained(&refusal);
            }
        }
    }
    let Some(expand_notation) = G::EXTENSIONS.expand_notation else {
        return;
    };
    match expand_notation(game, state, player, text) {
        Err(e) => check_refusal("expand_notation", &e),
        Ok(None) => {}
        Ok(Some(steps)) => play_steps(game, state, player, &steps),
    }
}

/// Plays a shorthand's steps on a copy, as the host does, until one is
/// refused.
fn play_steps<G: Extended>(game: &G, state: &G::State, player: Player, steps: &[String]) {
    let mut copy = state.clone();
    for step in steps {
        let id = match game.parse_action(&copy, player, step) {
            Ok(id) => id,
            Err(e) => return check_refusal("parse_action of a shorthand's step", &e),
        };
        let moves = [Move { player, action: id }];
        if let Err(e) = game.apply(&mut copy, &moves) {
            return check_refusal("apply of a shorthand's step", &e);
        }
    }
}

/// The game's explanation of a refused attempt; `None` from a game
/// without the extension, as the host gets it.
fn explain<G: Extended>(
    game: &G,
    state: &G::State,
    player: Player,
    attempt: Attempt<'_>,
) -> Option<tabletop_sdk::Refusal> {
    G::EXTENSIONS
        .explain_refusal
        .and_then(|explain| explain(game, state, player, attempt))
}

/// The game's bound on action ids; 0 (none known) from a game without
/// the extension.
fn action_space<G: Extended>(game: &G, state: &G::State) -> u64 {
    G::EXTENSIONS
        .action_space
        .map_or(0, |space| space(game, state))
}

/// A refusal's explanation is specific and short.
fn check_explained(refusal: &tabletop_sdk::Refusal) {
    assert!(
        refusal.is_specific(),
        "a refusal is explained with the catch-all or malformed code `{}`",
        refusal.reason
    );
    assert!(
        refusal.message.len() <= message_limit(),
        "a refusal is explained in {} bytes (at most {})",
        refusal.message.len(),
        message_limit()
    );
}

/// Legal ids print and read back to themselves and are not explained as
/// refused; other ids print or are refused cleanly and, when explained, are
/// explained well.
fn check_ids<G: Extended>(game: &G, state: &G::State, player: Player, rng: &mut Rng) {
    let mut legal = Vec::new();
    game.legal_actions(state, player, &mut legal);
    assert!(
        legal.windows(2).all(|w| w[0] < w[1]),
        "legal actions of seat {player} are not in ascending id order"
    );
    for _ in 0..ROUND_TRIPS.min(legal.len()) {
        let id = legal[rng.below(legal.len())];
        let text = match game.action_to_string(state, player, id) {
            Ok(text) => text,
            Err(e) => panic!("legal action {id} does not print: {}", e.message),
        };
        match game.parse_action(state, player, &text) {
            Ok(back) => assert_eq!(back, id, "legal action {id} prints as `{text}`"),
            Err(e) => panic!(
                "legal action {id} prints as `{text}`, which is refused: {}",
                e.message
            ),
        }
        let explained = explain(game, state, player, Attempt::Id(id));
        assert!(
            explained.is_none(),
            "legal action {id} is explained as refused: {explained:?}"
        );
    }
    let space = action_space(game, state);
    let mut foreign: Vec<ActionId> = vec![u64::MAX, space, space.saturating_sub(1)];
    foreign.extend((0..FOREIGN_IDS).map(|_| match space {
        0 => rng.next_u64() % 4096,
        _ => rng.next_u64() % space,
    }));
    for id in foreign {
        if let Err(e) = game.action_to_string(state, player, id) {
            check_refusal("action_to_string", &e);
        }
        let explained = explain(game, state, player, Attempt::Id(id));
        match (legal.contains(&id), explained) {
            (true, Some(refusal)) => panic!("legal action {id} is explained as {refusal:?}"),
            (false, Some(refusal)) => check_explained(&refusal),
            (_, None) => {}
        }
    }
}

/// Plays up to `plies` random steps from `state`: chance outcomes and
/// joint actions of the seats to move, now and then after trying an illegal
/// joint action (refused, changing nothing) or taking a seat out.
pub fn play<G: Extended>(
    game: &G,
    setup: &Setup,
    mut state: G::State,
    plies: u32,
    rng: &mut Rng,
) -> G::State {
    let mut legal = Vec::new();
    for _ in 0..plies {
        match game.status(&state) {
            Status::Terminal => break,
            Status::Chance => {
                let outcome = match game.chance(&state) {
                    Chance::Explicit(outcomes) => {
                        assert!(!outcomes.is_empty(), "a chance node lists no outcome");
                        outcomes[rng.below(outcomes.len())].0
                    }
                    Chance::Sampled => rng.next_u64(),
                };
                if let Err(e) = game.apply_chance(&mut state, outcome) {
                    panic!("chance outcome {outcome} is refused: {}", e.message);
                }
            }
            Status::ToMove(set) => {
                assert!(!set.is_empty(), "a running game has nobody to move");
                let mut moves = Vec::with_capacity(set.len());
                for player in set.iter() {
                    game.legal_actions(&state, player, &mut legal);
                    assert!(
                        !legal.is_empty(),
                        "seat {player} is to move but has no legal action"
                    );
                    moves.push(Move {
                        player,
                        action: legal[rng.below(legal.len())],
                    });
                }
                if rng.below(4) == 0 {
                    refuse_illegal(game, &mut state, &moves, rng);
                }
                if let Err(e) = game.apply(&mut state, &moves) {
                    panic!("legal joint action {moves:?} is refused: {}", e.message);
                }
            }
        }
        if let Some(remove_player) = G::EXTENSIONS.remove_player
            && rng.below(32) == 0
        {
            let seat = rng.below(setup.players as usize + 1) as Player;
            if let Err(e) = remove_player(game, &mut state, seat) {
                check_refusal("remove_player", &e);
            }
        }
    }
    state
}

/// A joint action with one move made illegal (another id, a missing or
/// repeated move, a seat not to move) is refused and changes nothing.
fn refuse_illegal<G: Extended>(game: &G, state: &mut G::State, moves: &[Move], rng: &mut Rng) {
    let mut bad = moves.to_vec();
    let pick = rng.below(bad.len());
    match rng.below(4) {
        0 => bad[pick].action = u64::MAX - rng.below(4) as u64,
        1 => {
            bad.remove(pick);
        }
        2 => bad.push(bad[pick]),
        _ => bad[pick].player = bad[pick].player.wrapping_add(1 + rng.below(40) as Player),
    }
    let mut legal = Vec::new();
    let still_legal = bad.len() == moves.len()
        && bad.iter().all(|m| {
            game.legal_actions(state, m.player, &mut legal);
            legal.contains(&m.action)
        })
        && {
            let mut seats: Vec<Player> = bad.iter().map(|m| m.player).collect();
            seats.sort_unstable();
            seats.dedup();
            seats.len() == bad.len()
        };
    if still_legal {
        return;
    }
    let before = game.position_to_string(state);
    match game.apply(state, &bad) {
        Ok(()) => panic!("illegal joint action {bad:?} was applied"),
        Err(e) => check_refusal("apply of an illegal joint action", &e),
    }
    assert_eq!(
        game.position_to_string(state),
        before,
        "a refused joint action {bad:?} changed the state"
    );
}

/// At most 80 characters of `text`, for a panic message.
fn shorten(text: &str) -> String {
    text.chars().take(80).collect()
}
