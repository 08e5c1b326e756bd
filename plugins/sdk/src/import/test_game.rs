//! `counter`, the game the import side's tests adopt through its exported
//! table: players take turns saying "tick" (action 0) or "pass" (action 1)
//! until `length` actions have been made; with `dice` every action is
//! followed by an explicit chance node, a roll of 0, 1 or 2 extra ticks.
//! Seat 0 wins if the ticks are even, seat 1 otherwise.

use crate::export::{Instance, manifest_of};
use crate::{
    ActionId, Chance, Game, GameError, Manifest, Move, OptionSpec, Player, PlayerResult, PlayerSet,
    Setup, Status, Viewer,
};

/// The game.
#[derive(Debug, Default)]
pub(crate) struct Counter;

/// The state: the length, actions and ticks so far, and whether a roll is
/// due.
#[derive(Debug, Clone)]
pub(crate) struct Count {
    players: u32,
    length: u32,
    made: u32,
    ticks: u32,
    dice: bool,
    rolling: bool,
}

crate::declare_extensions!(Counter: []);

impl Instance for Counter {
    fn instance() -> &'static Self {
        &Counter
    }
    fn cached_manifest() -> &'static Manifest {
        static MANIFEST: std::sync::OnceLock<Manifest> = std::sync::OnceLock::new();
        MANIFEST.get_or_init(|| manifest_of(&Counter))
    }
}

impl Game for Counter {
    type State = Count;
    type View<'a> = serde_json::Value;

    fn manifest(&self) -> Manifest {
        Manifest {
            name: "counter".into(),
            version: "1.0.0".into(),
            min_players: 2,
            max_players: 4,
            options: vec![
                OptionSpec::int("length", 1, 1000, 20, "Actions until the end."),
                OptionSpec::bool("dice", false, "Roll 0-2 extra ticks after every action."),
            ],
            rules_summary: "Say tick or pass.".into(),
            simultaneous: false,
            hidden_information: false,
            chance: true,
            removable_players: false,
        }
    }

    fn new_state(&self, setup: &Setup) -> Result<Count, GameError> {
        Ok(Count {
            players: setup.players,
            length: setup.options.int("length") as u32,
            made: 0,
            ticks: 0,
            dice: setup.options.bool("dice"),
            rolling: false,
        })
    }

    fn parse_position(&self, setup: &Setup, text: &str) -> Result<Count, GameError> {
        let number = |part: Option<&str>| {
            part.and_then(|p| p.parse().ok())
                .ok_or_else(|| GameError::invalid_position("expected length/made/ticks"))
        };
        let (counts, rolling) = match text.strip_suffix("/roll") {
            Some(counts) => (counts, true),
            None => (text, false),
        };
        let mut parts = counts.split('/');
        Ok(Count {
            players: setup.players,
            length: number(parts.next())?,
            made: number(parts.next())?,
            ticks: number(parts.next())?,
            dice: setup.options.bool("dice"),
            rolling,
        })
    }

    fn position_to_string(&self, count: &Count) -> String {
        let roll = if count.rolling { "/roll" } else { "" };
        format!("{}/{}/{}{roll}", count.length, count.made, count.ticks)
    }

    fn status(&self, count: &Count) -> Status {
        if count.made >= count.length {
            Status::Terminal
        } else if count.rolling {
            Status::Chance
        } else {
            Status::ToMove(PlayerSet::single(count.made % count.players))
        }
    }

    fn chance(&self, _: &Count) -> Chance {
        Chance::Explicit(vec![(0, 0.5), (1, 0.25), (2, 0.25)])
    }

    fn results(&self, count: &Count) -> Vec<PlayerResult> {
        let winner = count.ticks % 2;
        (0..count.players)
            .map(|p| PlayerResult {
                rank: if p == winner { 1 } else { 2 },
                score: if p == winner { 1.0 } else { 0.0 },
            })
            .collect()
    }

    fn legal_actions(&self, count: &Count, player: Player, out: &mut Vec<ActionId>) {
        out.clear();
        if matches!(self.status(count), Status::ToMove(s) if s.contains(player)) {
            out.extend([0, 1]);
        }
    }

    fn apply(&self, count: &mut Count, moves: &[Move]) -> Result<(), GameError> {
        let [m] = moves else {
            return Err(GameError::illegal("exactly one move is expected"));
        };
        if !matches!(self.status(count), Status::ToMove(s) if s.contains(m.player)) {
            return Err(GameError::not_your_turn("not your turn"));
        }
        match m.action {
            0 => count.ticks += 1,
            1 => {}
            other => return Err(GameError::illegal(format!("no action {other}"))),
        }
        count.made += 1;
        count.rolling = count.dice;
        Ok(())
    }

    fn apply_chance(&self, count: &mut Count, outcome: u64) -> Result<(), GameError> {
        if !count.rolling || outcome > 2 {
            return Err(GameError::illegal("no such roll"));
        }
        count.ticks += outcome as u32;
        count.rolling = false;
        Ok(())
    }

    fn action_to_string(
        &self,
        _: &Count,
        _: Player,
        action: ActionId,
    ) -> Result<String, GameError> {
        match action {
            0 => Ok("tick".into()),
            1 => Ok("pass".into()),
            other => Err(GameError::invalid_notation(format!("no action {other}"))),
        }
    }

    fn parse_action(&self, _: &Count, _: Player, text: &str) -> Result<ActionId, GameError> {
        match text {
            "tick" => Ok(0),
            "pass" => Ok(1),
            _ => Err(GameError::invalid_notation("say tick or pass")),
        }
    }

    fn view(&self, count: &Count, _: Viewer) -> serde_json::Value {
        serde_json::json!({ "made": count.made, "ticks": count.ticks })
    }

    fn render_text(&self, count: &Count, _: Viewer) -> String {
        format!(
            "{} of {} actions, {} ticks\n",
            count.made, count.length, count.ticks
        )
    }
}
