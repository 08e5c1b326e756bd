//! `counter`, a test-fixture game for the end-to-end tests: two or more
//! players take turns saying "tick" (or "pass") until `length` actions have
//! been made. Seat 0 wins if the number of ticks is even, seat 1 otherwise;
//! others share the last place. No chance, nothing hidden. With `think_ms`
//! every action takes that long to apply: a slow plugin, for the tests of
//! what the host does when a plugin call runs long; with `hang` an action
//! never returns at all (a stuck plugin). With `dice` every action
//! is followed by an explicit chance node (a roll of 0, 1 or 2 extra ticks),
//! for tests of how chance crosses the ABI.
//!
//! The plugin version comes from `FIXTURE_VERSION` at compile time (default
//! 1.0.0), so a test can build two versions of the same game from one crate.

#![forbid(unsafe_code)]

use tabletop_sdk::{
    ActionId, Chance, Game, GameError, Manifest, Move, OptionSpec, Player, PlayerResult, PlayerSet,
    Setup, Status, Viewer, serde_json,
};

/// The game.
#[derive(Debug, Default)]
pub struct Counter;

/// The state: how many actions and ticks so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct State {
    players: u32,
    length: u32,
    made: u32,
    ticks: u32,
    think_ms: u32,
    hang: bool,
    dice: bool,
    /// Whether the roll after the last action is still to be drawn.
    rolling: bool,
}

const TICK: ActionId = 0;
const PASS: ActionId = 1;

impl Counter {
    fn version() -> &'static str {
        option_env!("FIXTURE_VERSION").unwrap_or("1.0.0")
    }
}

impl Game for Counter {
    type State = State;
    type View<'a> = serde_json::Value;

    fn manifest(&self) -> Manifest {
        Manifest {
            name: "counter".into(),
            version: Counter::version().into(),
            min_players: 2,
            max_players: 4,
            options: vec![
                OptionSpec::int("length", 1, 100_000, 20, "Actions until the end."),
                OptionSpec::int(
                    "think_ms",
                    0,
                    60_000,
                    0,
                    "How long each action takes to apply (a slow plugin).",
                ),
                OptionSpec::bool("dice", false, "Roll 0-2 extra ticks after every action."),
                OptionSpec::bool("hang", false, "Applying an action never returns."),
            ],
            rules_summary: format!("Say tick or pass (fixture version {}).", Counter::version()),
            simultaneous: false,
            hidden_information: false,
            chance: true,
            removable_players: false,
        }
    }

    fn new_state(&self, setup: &Setup) -> Result<State, GameError> {
        Ok(State {
            players: setup.players,
            length: setup.options.int("length") as u32,
            made: 0,
            ticks: 0,
            think_ms: setup.options.int("think_ms") as u32,
            hang: setup.options.bool("hang"),
            dice: setup.options.bool("dice"),
            rolling: false,
        })
    }

    fn parse_position(&self, setup: &Setup, text: &str) -> Result<State, GameError> {
        // `length/made/ticks`, and `/roll` while a roll is due.
        let (counts, rolling) = match text.strip_suffix("/roll") {
            Some(counts) => (counts, true),
            None => (text, false),
        };
        let parts: Vec<u32> = counts
            .split('/')
            .map(|p| {
                p.parse()
                    .map_err(|_| GameError::invalid_position("not a number"))
            })
            .collect::<Result<_, _>>()?;
        let [length, made, ticks] = parts[..] else {
            return Err(GameError::invalid_position("expected length/made/ticks"));
        };
        let dice = setup.options.bool("dice");
        let most_ticks = if dice { made.saturating_mul(3) } else { made };
        if made > length || ticks > most_ticks || (rolling && (!dice || made == 0)) {
            return Err(GameError::invalid_position("counts out of range"));
        }
        Ok(State {
            players: setup.players,
            length,
            made,
            ticks,
            think_ms: setup.options.int("think_ms") as u32,
            hang: setup.options.bool("hang"),
            dice,
            rolling,
        })
    }

    fn position_to_string(&self, state: &State) -> String {
        let roll = if state.rolling { "/roll" } else { "" };
        format!("{}/{}/{}{roll}", state.length, state.made, state.ticks)
    }

    fn status(&self, state: &State) -> Status {
        if state.made >= state.length {
            Status::Terminal
        } else if state.rolling {
            Status::Chance
        } else {
            Status::ToMove(PlayerSet::single(state.made % state.players))
        }
    }

    fn chance(&self, _: &State) -> Chance {
        Chance::Explicit(vec![(0, 0.5), (1, 0.25), (2, 0.25)])
    }

    fn results(&self, state: &State) -> Vec<PlayerResult> {
        let winner = state.ticks % 2;
        (0..state.players)
            .map(|p| PlayerResult {
                rank: if p == winner { 1 } else { 2 },
                score: if p == winner { 1.0 } else { 0.0 },
            })
            .collect()
    }

    fn legal_actions(&self, state: &State, player: Player, out: &mut Vec<ActionId>) {
        out.clear();
        if matches!(self.status(state), Status::ToMove(s) if s.contains(player)) {
            out.extend([TICK, PASS]);
        }
    }

    fn apply(&self, state: &mut State, moves: &[Move]) -> Result<(), GameError> {
        let [m] = moves else {
            return Err(GameError::illegal("exactly one move is expected"));
        };
        if !matches!(self.status(state), Status::ToMove(s) if s.contains(m.player)) {
            return Err(GameError::not_your_turn("not your turn"));
        }
        match m.action {
            TICK => state.ticks += 1,
            PASS => {}
            other => return Err(GameError::illegal(format!("no action {other}"))),
        }
        std::thread::sleep(std::time::Duration::from_millis(state.think_ms.into()));
        if state.hang {
            loop {
                std::thread::park();
            }
        }
        state.made += 1;
        state.rolling = state.dice;
        Ok(())
    }

    fn apply_chance(&self, state: &mut State, outcome: u64) -> Result<(), GameError> {
        if !state.rolling {
            return Err(GameError::illegal("no roll is due"));
        }
        if outcome > 2 {
            return Err(GameError::illegal(format!(
                "a roll is 0, 1 or 2, not {outcome}"
            )));
        }
        state.ticks += outcome as u32;
        state.rolling = false;
        Ok(())
    }

    fn action_to_string(
        &self,
        _: &State,
        _: Player,
        action: ActionId,
    ) -> Result<String, GameError> {
        match action {
            TICK => Ok("tick".into()),
            PASS => Ok("pass".into()),
            other => Err(GameError::invalid_notation(format!("no action {other}"))),
        }
    }

    fn parse_action(
        &self,
        state: &State,
        player: Player,
        text: &str,
    ) -> Result<ActionId, GameError> {
        let id = match text {
            "tick" => TICK,
            "pass" => PASS,
            _ => return Err(GameError::invalid_notation("say tick or pass")),
        };
        if !matches!(self.status(state), Status::ToMove(s) if s.contains(player)) {
            return Err(GameError::not_your_turn("not your turn"));
        }
        Ok(id)
    }

    fn view(&self, state: &State, _: Viewer) -> serde_json::Value {
        serde_json::json!({
            "version": Counter::version(),
            "length": state.length,
            "made": state.made,
            "ticks": state.ticks,
        })
    }

    fn render_text(&self, state: &State, _: Viewer) -> String {
        format!(
            "counter {}: {} of {} actions, {} ticks\n",
            Counter::version(),
            state.made,
            state.length,
            state.ticks
        )
    }
}

tabletop_sdk::export_game!(Counter);
