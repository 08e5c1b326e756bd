//! The conformance kit: one suite of checks every game runs, in-process and
//! through its built plugin (in the spirit of OpenSpiel's random-simulation
//! tests).
//!
//! [`run`] plays many random matches for every configured player count and
//! option set, and at every decision checks that:
//! - each player to move has legal actions, ascending and unique, and players
//!   not to move have none;
//! - every legal action's text parses back to it, and ids that are not legal
//!   (and joint actions with a missing, extra or repeated player) are refused
//!   without changing the state;
//! - a clone is independent and equal; the position text round-trips to a state
//!   with identical views;
//! - **nothing leaks**: for every viewer, states resampled for that viewer give
//!   identical views, text, legal actions and error messages, and identical
//!   events for transitions that reveal nothing new to the viewer;
//! - explicit chance nodes refuse outcomes they do not list;
//! - every match ends within `max_steps` transitions and a terminal state has a
//!   result for every player, with someone in first place;
//! - replaying the log from the start gives identical states and views;
//! - no call ever reports a panic or a poisoned state;
//! - **removing a player** ([`crate::Game::remove_player`]): a game whose
//!   manifest says `removable_players: false` refuses it without a fault and
//!   without changing the state. A game that says `true` plays further random
//!   matches in which, at random decisions, a random seat still in is removed
//!   (up to all but one): the state stays consistent (position round-trip,
//!   clone), removing that seat again or a seat that does not exist is refused
//!   and changes nothing, the removed seat is never to move again and has no
//!   legal actions, the match still ends, the results rank every seat, and
//!   replaying the log (removals included) gives the same final state.
//!
//! Simultaneous moves are driven as the host drives them: each mover's action is
//! collected, and only the full joint action reaches the game, so a pending
//! action never exists in any state a viewer can see.

use std::collections::BTreeMap;

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::chance;
use crate::dynamic::{DynGame, DynState};
use crate::error::GameError;
use crate::types::{ActionId, Chance, Move, Player, Status, Transition, Viewer};

/// What to run.
#[derive(Debug, Clone)]
pub struct Config {
    /// Player counts to play (default: every count the manifest allows).
    pub player_counts: Vec<u32>,
    /// Option sets to play, raw `name = text` (default: one empty set).
    pub option_sets: Vec<BTreeMap<String, String>>,
    /// Random matches per player count and option set.
    pub matches: u32,
    /// A match that has not ended after this many transitions fails.
    pub max_steps: u64,
    /// Resampled states compared per viewer at each checked decision.
    pub resamples: u32,
    /// Run the expensive checks (resampling, position round-trip, illegal ids)
    /// at every `check_every`-th transition; 1 checks every one.
    pub check_every: u64,
    /// The first seed; match `i` uses `seed + i`.
    pub seed: u64,
}

impl Config {
    /// Defaults for `game`: every player count, 8 matches each, 2 resamples.
    pub fn for_game(game: &dyn DynGame) -> Config {
        let manifest = game.manifest();
        Config {
            player_counts: (manifest.min_players..=manifest.max_players).collect(),
            option_sets: vec![BTreeMap::new()],
            matches: 8,
            max_steps: 100_000,
            resamples: 2,
            check_every: 1,
            seed: 1,
        }
    }
}

/// What a successful run covered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Matches played to the end.
    pub matches: u64,
    /// Transitions applied (moves and chance).
    pub transitions: u64,
    /// Chance outcomes drawn.
    pub chance_nodes: u64,
    /// Decisions where several players moved at once.
    pub simultaneous_turns: u64,
    /// Matches in which some player stopped being to move while others went on.
    pub matches_with_dropout: u64,
    /// Players removed with `remove_player` (games that declare
    /// `removable_players` only), over the matches played for it.
    pub removals: u64,
}

/// A failed check: where (game, players, options, seed, step) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// Human-readable location and problem.
    pub message: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

struct Ctx<'a> {
    game: &'a dyn DynGame,
    players: u32,
    options: &'a BTreeMap<String, String>,
    seed: u64,
    step: u64,
}

impl Ctx<'_> {
    fn fail(&self, what: impl std::fmt::Display) -> Failure {
        Failure {
            message: format!(
                "{} conformance: players={} options={:?} seed={} step={}: {what}",
                self.game.manifest().name,
                self.players,
                self.options,
                self.seed,
                self.step
            ),
        }
    }

    /// Unwraps a call that must succeed; any error (a panic above all) fails.
    fn ok<T>(&self, call: &str, result: Result<T, GameError>) -> Result<T, Failure> {
        result.map_err(|e| self.fail(format!("{call} failed ({:?}): {}", e.kind, e.message)))
    }

    /// Checks that a call that should be refused was refused as bad input, not a fault.
    fn refused<T: std::fmt::Debug>(
        &self,
        what: &str,
        result: Result<T, GameError>,
    ) -> Result<GameError, Failure> {
        match result {
            Ok(value) => Err(self.fail(format!("{what} was accepted ({value:?})"))),
            Err(e) if e.kind.is_fault() => Err(self.fail(format!(
                "{what} was refused with a fault ({:?}): {}",
                e.kind, e.message
            ))),
            Err(e) => Ok(e),
        }
    }
}

/// Everything a viewer can observe of a state; must not change across resamples.
#[derive(Debug, PartialEq, Eq)]
struct Observation {
    view: String,
    text: String,
    legal: Vec<ActionId>,
    parse_error: Option<String>,
}

fn observe(ctx: &Ctx<'_>, state: &dyn DynState, viewer: Viewer) -> Result<Observation, Failure> {
    let view = ctx.ok("view", state.view(viewer))?;
    let text = ctx.ok("render_text", state.render_text(viewer))?;
    let (legal, parse_error) = match viewer {
        Viewer::Seat(p) => {
            let mut legal = Vec::new();
            ctx.ok("legal_actions", state.legal_actions(p, &mut legal))?;
            let parse_error = state
                .parse_action(p, "?? not an action ??")
                .err()
                .map(|e| e.message);
            (legal, parse_error)
        }
        Viewer::Spectator => (Vec::new(), None),
    };
    Ok(Observation {
        view,
        text,
        legal,
        parse_error,
    })
}

fn viewers(players: u32) -> impl Iterator<Item = Viewer> {
    (0..players)
        .map(Viewer::Seat)
        .chain(std::iter::once(Viewer::Spectator))
}

/// A fingerprint of a whole state: its position and every viewer's view.
fn fingerprint(ctx: &Ctx<'_>, state: &dyn DynState) -> Result<String, Failure> {
    let mut out = ctx.ok("position", state.position())?;
    for viewer in viewers(ctx.players) {
        out.push('\n');
        out.push_str(&ctx.ok("view", state.view(viewer))?);
    }
    Ok(out)
}

/// Runs the whole kit against `game`.
pub fn run(game: &dyn DynGame, config: &Config) -> Result<Summary, Failure> {
    let mut summary = Summary::default();
    for &players in &config.player_counts {
        for options in &config.option_sets {
            for i in 0..config.matches {
                let mut ctx = Ctx {
                    game,
                    players,
                    options,
                    seed: config.seed.wrapping_add(u64::from(i)),
                    step: 0,
                };
                play_one(&mut ctx, config, &mut summary)?;
            }
        }
    }
    if game.manifest().removable_players {
        for &players in &config.player_counts {
            for options in &config.option_sets {
                for i in 0..config.matches {
                    let mut ctx = Ctx {
                        game,
                        players,
                        options,
                        seed: config.seed.wrapping_add(u64::from(i)) ^ 0x0be5_eed5,
                        step: 0,
                    };
                    play_with_removals(&mut ctx, config, &mut summary)?;
                }
            }
        }
    }
    Ok(summary)
}

/// One step of a match with removals, for its replay.
enum Step {
    Transition(Transition),
    Remove(Player),
}

/// A random match in which random seats are taken out at random decisions.
fn play_with_removals(
    ctx: &mut Ctx<'_>,
    config: &Config,
    summary: &mut Summary,
) -> Result<(), Failure> {
    let mut rng = ChaCha8Rng::seed_from_u64(ctx.seed ^ 0x5eed_0f0f);
    let start = ctx.ok(
        "new_state",
        ctx.game.new_state(ctx.players, ctx.options, None),
    )?;
    let mut state = ctx.ok("clone_state", start.clone_state())?;
    let mut log: Vec<Step> = Vec::new();
    let mut removed: Vec<Player> = Vec::new();
    let mut chance_index = 0u64;
    let mut legal = Vec::new();
    loop {
        let status = ctx.ok("status", state.status())?;
        let step = match status {
            Status::Terminal => {
                check_results(ctx, state.as_ref())?;
                break;
            }
            Status::Chance => {
                let node = ctx.ok("chance", state.chance())?;
                let outcome = ctx.ok("draw", chance::draw(&node, ctx.seed, chance_index))?;
                chance_index += 1;
                Step::Transition(Transition::Chance(outcome))
            }
            Status::ToMove(movers) => {
                if let Some(&gone) = removed.iter().find(|&&p| movers.contains(p)) {
                    return Err(ctx.fail(format!("removed player {gone} is to move again")));
                }
                for &gone in &removed {
                    ctx.ok("legal_actions", state.legal_actions(gone, &mut legal))?;
                    if !legal.is_empty() {
                        return Err(ctx.fail(format!("removed player {gone} has legal actions")));
                    }
                }
                let still_in: Vec<Player> =
                    (0..ctx.players).filter(|p| !removed.contains(p)).collect();
                if still_in.len() > 1 && rng.random_ratio(1, 16) {
                    let seat = *still_in.choose(&mut rng).expect("seats are still in");
                    Step::Remove(seat)
                } else {
                    let mut moves = Vec::new();
                    for p in movers.iter() {
                        ctx.ok("legal_actions", state.legal_actions(p, &mut legal))?;
                        let Some(&action) = legal.choose(&mut rng) else {
                            return Err(
                                ctx.fail(format!("player {p} is to move but has no legal action"))
                            );
                        };
                        moves.push(Move { player: p, action });
                    }
                    Step::Transition(Transition::Moves(moves))
                }
            }
        };
        match &step {
            Step::Transition(transition) => apply(ctx, state.as_mut(), transition)?,
            Step::Remove(seat) => {
                ctx.ok(&format!("remove_player {seat}"), state.remove_player(*seat))?;
                removed.push(*seat);
                summary.removals += 1;
                check_position_round_trip(ctx, state.as_ref())?;
                check_clone(ctx, state.as_ref())?;
                let before = fingerprint(ctx, state.as_ref())?;
                for bad in [*seat, ctx.players, u32::MAX] {
                    ctx.refused(
                        &format!("removing seat {bad} (removed already or no such seat)"),
                        state.remove_player(bad),
                    )?;
                    if fingerprint(ctx, state.as_ref())? != before {
                        return Err(
                            ctx.fail(format!("a refused removal of seat {bad} changed the state"))
                        );
                    }
                }
            }
        }
        log.push(step);
        ctx.step += 1;
        if ctx.step > config.max_steps {
            return Err(ctx.fail(format!(
                "the match with removals did not end within {} steps",
                config.max_steps
            )));
        }
    }
    let mut replay = start;
    for step in &log {
        match step {
            Step::Transition(transition) => apply(ctx, replay.as_mut(), transition)?,
            Step::Remove(seat) => ctx.ok("remove_player", replay.remove_player(*seat))?,
        }
    }
    if fingerprint(ctx, replay.as_ref())? != fingerprint(ctx, state.as_ref())? {
        return Err(ctx.fail("replaying the log with its removals gives a different final state"));
    }
    Ok(())
}

fn play_one(ctx: &mut Ctx<'_>, config: &Config, summary: &mut Summary) -> Result<(), Failure> {
    let mut rng = ChaCha8Rng::seed_from_u64(ctx.seed ^ 0x7ab1_e70b);
    let start = ctx.ok(
        "new_state",
        ctx.game.new_state(ctx.players, ctx.options, None),
    )?;
    let mut state = ctx.ok("clone_state", start.clone_state())?;
    let mut log: Vec<Transition> = Vec::new();
    let mut chance_index = 0u64;
    let mut ever_moved: Vec<bool> = vec![false; ctx.players as usize];
    let mut dropped_out = false;
    let mut legal = Vec::new();
    if !ctx.game.manifest().removable_players {
        // The manifest says no: `remove_player` must refuse, not fault, and
        // leave the state as it was.
        let before = fingerprint(ctx, state.as_ref())?;
        ctx.refused(
            "remove_player in a game whose manifest says removable_players: false",
            state.remove_player(0),
        )?;
        if fingerprint(ctx, state.as_ref())? != before {
            return Err(ctx.fail("a refused remove_player changed the state"));
        }
    }

    loop {
        let check = ctx.step.is_multiple_of(config.check_every.max(1));
        if check {
            check_position_round_trip(ctx, state.as_ref())?;
            check_clone(ctx, state.as_ref())?;
            check_hidden_information(ctx, config, state.as_ref(), &mut rng)?;
        }
        let status = ctx.ok("status", state.status())?;
        let transition = match status {
            Status::Terminal => {
                check_results(ctx, state.as_ref())?;
                break;
            }
            Status::Chance => {
                let node = ctx.ok("chance", state.chance())?;
                if check && let Chance::Explicit(outcomes) = &node {
                    check_unlisted_outcome_refused(ctx, state.as_ref(), outcomes)?;
                }
                let outcome = ctx.ok("draw", chance::draw(&node, ctx.seed, chance_index))?;
                chance_index += 1;
                summary.chance_nodes += 1;
                Transition::Chance(outcome)
            }
            Status::ToMove(movers) => {
                if movers.is_empty() {
                    return Err(ctx.fail("status says players are to move, but names none"));
                }
                if movers.len() > 1 {
                    summary.simultaneous_turns += 1;
                }
                let mut moves = Vec::new();
                for p in 0..ctx.players {
                    ctx.ok("legal_actions", state.legal_actions(p, &mut legal))?;
                    if !movers.contains(p) {
                        if !legal.is_empty() {
                            return Err(ctx.fail(format!(
                                "player {p} is not to move but has {} legal actions",
                                legal.len()
                            )));
                        }
                        if ever_moved[p as usize] {
                            dropped_out = true;
                        }
                        continue;
                    }
                    ever_moved[p as usize] = true;
                    let lent = ctx.ok("lend_legal_actions", state.lend_legal_actions(p))?;
                    if lent != legal.as_slice() {
                        return Err(ctx.fail(format!(
                            "player {p}: lend_legal_actions lends {lent:?}, legal_actions copies {legal:?}"
                        )));
                    }
                    if legal.is_empty() {
                        return Err(
                            ctx.fail(format!("player {p} is to move but has no legal action"))
                        );
                    }
                    if legal.windows(2).any(|w| w[0] >= w[1]) {
                        return Err(ctx.fail(format!(
                            "legal actions of player {p} are not ascending and unique: {legal:?}"
                        )));
                    }
                    if check {
                        check_notation(ctx, state.as_ref(), p, &legal)?;
                    }
                    let action = *legal.choose(&mut rng).expect("legal is not empty");
                    moves.push(Move { player: p, action });
                }
                if check {
                    check_illegal_refused(ctx, state.as_mut(), &moves, &mut rng)?;
                }
                Transition::Moves(moves)
            }
        };
        let before = ctx.ok("clone_state", state.clone_state())?;
        apply(ctx, state.as_mut(), &transition)?;
        if check && let Transition::Moves(moves) = &transition {
            check_apply_and_lend(ctx, before.as_ref(), moves, state.as_ref())?;
        }
        if check {
            check_events(
                ctx,
                config,
                before.as_ref(),
                &transition,
                state.as_ref(),
                &mut rng,
            )?;
        }
        log.push(transition);
        ctx.step += 1;
        summary.transitions += 1;
        if ctx.step > config.max_steps {
            return Err(ctx.fail(format!(
                "the match did not end within {} transitions",
                config.max_steps
            )));
        }
    }

    // Replaying the log reproduces the match exactly.
    let mut replay = start;
    for transition in &log {
        apply(ctx, replay.as_mut(), transition)?;
    }
    if fingerprint(ctx, replay.as_ref())? != fingerprint(ctx, state.as_ref())? {
        return Err(ctx.fail("replaying the log from the start gives a different final state"));
    }
    summary.matches += 1;
    if dropped_out {
        summary.matches_with_dropout += 1;
    }
    Ok(())
}

fn apply(ctx: &Ctx<'_>, state: &mut dyn DynState, transition: &Transition) -> Result<(), Failure> {
    match transition {
        Transition::Moves(moves) => ctx.ok(&format!("apply {moves:?}"), state.apply(moves)),
        Transition::Chance(outcome) => ctx.ok(
            &format!("apply_chance {outcome}"),
            state.apply_chance(*outcome),
        ),
    }
}

/// `apply_and_lend_legal` from `before` agrees with `apply` (which took
/// `before` to `after`) followed by `status` and `legal_actions`, for the
/// first mover and for every seat named.
fn check_apply_and_lend(
    ctx: &Ctx<'_>,
    before: &dyn DynState,
    moves: &[Move],
    after: &dyn DynState,
) -> Result<(), Failure> {
    let status = ctx.ok("status", after.status())?;
    let mut expected = Vec::new();
    for asked in std::iter::once(None).chain((0..ctx.players).map(Some)) {
        let mut twin = ctx.ok("clone_state", before.clone_state())?;
        let (lent_status, lent) = ctx.ok(
            &format!("apply_and_lend_legal {moves:?} for {asked:?}"),
            twin.apply_and_lend_legal(moves, asked),
        )?;
        if lent_status != status {
            return Err(ctx.fail(format!(
                "apply_and_lend_legal reports {lent_status:?}, apply then status {status:?}"
            )));
        }
        expected.clear();
        if let Status::ToMove(movers) = status
            && let Some(player) = asked.or(movers.first())
        {
            ctx.ok("legal_actions", after.legal_actions(player, &mut expected))?;
        }
        if lent != expected.as_slice() {
            return Err(ctx.fail(format!(
                "apply_and_lend_legal for {asked:?} lends {lent:?}, apply then legal_actions \
                 gives {expected:?}"
            )));
        }
    }
    Ok(())
}

fn check_position_round_trip(ctx: &Ctx<'_>, state: &dyn DynState) -> Result<(), Failure> {
    let text = ctx.ok("position", state.position())?;
    let parsed = ctx
        .game
        .new_state(ctx.players, ctx.options, Some(&text))
        .map_err(|e| {
            ctx.fail(format!(
                "position does not parse back ({}): {text}",
                e.message
            ))
        })?;
    let again = ctx.ok("position", parsed.position())?;
    if again != text {
        return Err(ctx.fail(format!(
            "position does not round-trip:\n  printed: {text}\n  reparsed: {again}"
        )));
    }
    if fingerprint(ctx, parsed.as_ref())? != fingerprint(ctx, state)? {
        return Err(ctx.fail(format!(
            "a state parsed from its position has different views: {text}"
        )));
    }
    Ok(())
}

fn check_clone(ctx: &Ctx<'_>, state: &dyn DynState) -> Result<(), Failure> {
    let copy = ctx.ok("clone_state", state.clone_state())?;
    if fingerprint(ctx, copy.as_ref())? != fingerprint(ctx, state)? {
        return Err(ctx.fail("a clone differs from its original"));
    }
    Ok(())
}

fn check_notation(
    ctx: &Ctx<'_>,
    state: &dyn DynState,
    player: Player,
    legal: &[ActionId],
) -> Result<(), Failure> {
    // The batched notation of the whole list equals the per-action one.
    let mut batch = String::from("prefix ");
    let mut ends = Vec::new();
    ctx.ok(
        "actions_to_strings",
        state.actions_to_strings(player, legal, &mut batch, &mut ends),
    )?;
    if ends.len() != legal.len() {
        return Err(ctx.fail(format!(
            "actions_to_strings gave {} ends for {} actions",
            ends.len(),
            legal.len()
        )));
    }
    let mut start = "prefix ".len();
    for (&action, &end) in legal.iter().zip(&ends) {
        let one = ctx.ok("action_to_string", state.action_to_string(player, action))?;
        if batch.get(start..end as usize) != Some(one.as_str()) {
            return Err(ctx.fail(format!(
                "action {action}: actions_to_strings gives {:?}, action_to_string `{one}`",
                batch.get(start..end as usize)
            )));
        }
        start = end as usize;
    }
    if start != batch.len() {
        return Err(ctx.fail("actions_to_strings wrote text beyond its last end"));
    }
    for &action in legal {
        let text = ctx.ok("action_to_string", state.action_to_string(player, action))?;
        let parsed = state.parse_action(player, &text).map_err(|e| {
            ctx.fail(format!(
                "action {action} prints as `{text}`, which does not parse back: {}",
                e.message
            ))
        })?;
        if parsed != action {
            return Err(ctx.fail(format!(
                "action {action} prints as `{text}`, which parses to {parsed}"
            )));
        }
        // A single action's own notation is never a shorthand for others.
        let expanded = ctx.ok("expand_notation", state.expand_notation(player, &text))?;
        if let Some(list) = expanded {
            return Err(ctx.fail(format!(
                "action {action} prints as `{text}`, which expands as a shorthand to {list:?}"
            )));
        }
    }
    for garbage in ["", "\u{0}\u{7f}", "999999999999999999999999"] {
        // Garbage is no shorthand, or one refused as bad input (never a fault).
        if let Err(e) = state.expand_notation(player, garbage)
            && e.kind.is_fault()
        {
            return Err(ctx.fail(format!(
                "expanding `{garbage:?}` failed with a fault ({:?}): {}",
                e.kind, e.message
            )));
        }
    }
    for garbage in [
        "",
        "?? not an action ??",
        "\u{0}\u{7f}",
        "999999999999999999999999",
    ] {
        ctx.refused(
            &format!("parsing `{garbage:?}` as an action"),
            state.parse_action(player, garbage),
        )?;
    }
    Ok(())
}

/// Ids that are not legal for `player` (near the legal ones, and far away).
fn illegal_ids(legal: &[ActionId], rng: &mut ChaCha8Rng) -> Vec<ActionId> {
    let max = legal.iter().copied().max().unwrap_or(0);
    let mut candidates = vec![max.wrapping_add(1), u64::MAX, u64::MAX / 3, rng.random()];
    candidates.extend(legal.iter().map(|a| a.wrapping_add(1)));
    candidates.retain(|a| legal.binary_search(a).is_err());
    candidates.sort_unstable();
    candidates.dedup();
    candidates.truncate(8);
    candidates
}

fn check_illegal_refused(
    ctx: &Ctx<'_>,
    state: &mut dyn DynState,
    moves: &[Move],
    rng: &mut ChaCha8Rng,
) -> Result<(), Failure> {
    let before = fingerprint(ctx, state)?;
    let mut attempts: Vec<(String, Vec<Move>)> = Vec::new();
    let mut legal = Vec::new();
    for (i, m) in moves.iter().enumerate() {
        ctx.ok("legal_actions", state.legal_actions(m.player, &mut legal))?;
        for bad in illegal_ids(&legal, rng) {
            let mut joint = moves.to_vec();
            joint[i].action = bad;
            attempts.push((format!("illegal id {bad} for player {}", m.player), joint));
        }
    }
    attempts.push(("an empty joint action".to_string(), Vec::new()));
    if moves.len() > 1 {
        attempts.push((
            "a joint action missing a mover".to_string(),
            moves[1..].to_vec(),
        ));
    }
    let mut repeated = moves.to_vec();
    repeated.push(moves[0]);
    attempts.push(("a joint action naming a player twice".to_string(), repeated));
    for p in (0..ctx.players).chain([ctx.players, u32::MAX]) {
        if moves.iter().all(|m| m.player != p) {
            let mut extra = moves.to_vec();
            extra.push(Move {
                player: p,
                action: moves[0].action,
            });
            attempts.push((format!("a joint action with non-mover {p}"), extra));
            break;
        }
    }
    for (what, joint) in attempts {
        ctx.refused(&what, state.apply(&joint))?;
        if fingerprint(ctx, state)? != before {
            return Err(ctx.fail(format!("{what} was refused but changed the state")));
        }
    }
    Ok(())
}

fn check_unlisted_outcome_refused(
    ctx: &Ctx<'_>,
    state: &dyn DynState,
    outcomes: &[(u64, f64)],
) -> Result<(), Failure> {
    let Some(unlisted) = [u64::MAX, 0, 1, 2, 1 << 40]
        .into_iter()
        .find(|o| outcomes.iter().all(|(listed, _)| listed != o))
    else {
        return Ok(());
    };
    let mut copy = ctx.ok("clone_state", state.clone_state())?;
    let before = fingerprint(ctx, copy.as_ref())?;
    ctx.refused(
        &format!("unlisted chance outcome {unlisted}"),
        copy.apply_chance(unlisted),
    )?;
    if fingerprint(ctx, copy.as_ref())? != before {
        return Err(ctx.fail("a refused chance outcome changed the state"));
    }
    Ok(())
}

fn check_hidden_information(
    ctx: &Ctx<'_>,
    config: &Config,
    state: &dyn DynState,
    rng: &mut ChaCha8Rng,
) -> Result<(), Failure> {
    for viewer in viewers(ctx.players) {
        let original = observe(ctx, state, viewer)?;
        for _ in 0..config.resamples {
            let other = ctx.ok("resample", state.resample(viewer, rng.random()))?;
            let seen = observe(ctx, other.as_ref(), viewer)?;
            if seen != original {
                return Err(ctx.fail(format!(
                    "{viewer:?} can tell a resampled state apart (views, text, legal actions or \
                     error messages differ): hidden information leaks\n  original: {original:?}\n  \
                     resampled: {seen:?}"
                )));
            }
            if let Viewer::Seat(p) = viewer {
                check_error_messages_agree(ctx, state, other.as_ref(), p, &original.legal)?;
            }
        }
    }
    Ok(())
}

/// Refusing the same illegal action must read the same in both worlds.
fn check_error_messages_agree(
    ctx: &Ctx<'_>,
    state: &dyn DynState,
    other: &dyn DynState,
    player: Player,
    legal: &[ActionId],
) -> Result<(), Failure> {
    let movers = match ctx.ok("status", state.status())? {
        Status::ToMove(movers) => movers,
        _ => return Ok(()),
    };
    if movers.len() != 1 || !movers.contains(player) {
        return Ok(());
    }
    let bad = legal.iter().copied().max().unwrap_or(0).wrapping_add(1);
    let joint = [Move {
        player,
        action: bad,
    }];
    let mut a = ctx.ok("clone_state", state.clone_state())?;
    let mut b = ctx.ok("clone_state", other.clone_state())?;
    let ea = a.apply(&joint).err().map(|e| e.message);
    let eb = b.apply(&joint).err().map(|e| e.message);
    if ea != eb {
        return Err(ctx.fail(format!(
            "the error for illegal id {bad} differs between resampled states: {ea:?} vs {eb:?}"
        )));
    }
    Ok(())
}

fn check_events(
    ctx: &Ctx<'_>,
    config: &Config,
    before: &dyn DynState,
    transition: &Transition,
    after: &dyn DynState,
    rng: &mut ChaCha8Rng,
) -> Result<(), Failure> {
    for viewer in viewers(ctx.players) {
        let event = ctx.ok("event", after.event(before, transition, viewer))?;
        if serde_json::from_str::<serde_json::Value>(&event).is_err() {
            return Err(ctx.fail(format!("event for {viewer:?} is not JSON: {event}")));
        }
        let view_after = ctx.ok("view", after.view(viewer))?;
        for _ in 0..config.resamples {
            let other_before = ctx.ok("resample", before.resample(viewer, rng.random()))?;
            let mut other_after = ctx.ok("clone_state", other_before.clone_state())?;
            let applied = match transition {
                Transition::Moves(moves) => other_after.apply(moves),
                Transition::Chance(outcome) => other_after.apply_chance(*outcome),
            };
            if let Err(e) = applied {
                if e.kind.is_fault() {
                    return Err(
                        ctx.fail(format!("apply on a resampled state faulted: {}", e.message))
                    );
                }
                continue;
            }
            // Only a transition that revealed the same to this viewer in both
            // worlds must be described the same way.
            if ctx.ok("view", other_after.view(viewer))? != view_after {
                continue;
            }
            let other_event = ctx.ok(
                "event",
                other_after.event(other_before.as_ref(), transition, viewer),
            )?;
            if other_event != event {
                return Err(ctx.fail(format!(
                    "the event for {viewer:?} differs between resampled worlds that look the same: \
                     hidden information leaks\n  original: {event}\n  resampled: {other_event}"
                )));
            }
        }
    }
    Ok(())
}

fn check_results(ctx: &Ctx<'_>, state: &dyn DynState) -> Result<(), Failure> {
    let results = ctx.ok("results", state.results())?;
    if results.len() != ctx.players as usize {
        return Err(ctx.fail(format!(
            "{} results for {} players",
            results.len(),
            ctx.players
        )));
    }
    if results.iter().any(|r| r.rank == 0 || r.rank > ctx.players) {
        return Err(ctx.fail(format!(
            "a rank is outside 1..={}: {results:?}",
            ctx.players
        )));
    }
    if results.iter().all(|r| r.rank != 1) {
        return Err(ctx.fail(format!("nobody is in first place: {results:?}")));
    }
    let mut legal = Vec::new();
    for p in 0..ctx.players {
        ctx.ok("legal_actions", state.legal_actions(p, &mut legal))?;
        if !legal.is_empty() {
            return Err(ctx.fail(format!("player {p} has legal actions after the end")));
        }
    }
    Ok(())
}

/// The path of the cdylib that cargo built for crate `crate_name` beside the
/// running test binary (`target/<profile>/lib<crate_name>.so`).
///
/// Panics with instructions when the file is missing: a test that needs the
/// built plugin fails, it never skips.
pub fn built_plugin_path(crate_name: &str) -> std::path::PathBuf {
    let exe = std::env::current_exe().expect("the test binary knows its path");
    // target/<profile>/deps/<test-binary>: the cdylib sits in target/<profile>.
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("the test binary lives in target/<profile>/deps");
    let file = format!(
        "{}{}{}",
        std::env::consts::DLL_PREFIX,
        crate_name.replace('-', "_"),
        std::env::consts::DLL_SUFFIX
    );
    let path = profile_dir.join(&file);
    assert!(
        path.is_file(),
        "the built plugin {} is missing: build it first (`cargo build -p {crate_name}`, or \
         `scripts/test`, which builds every plugin before testing)",
        path.display()
    );
    path
}
