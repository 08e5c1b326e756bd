//! A game's built plugin against the same game linked in-process: the same
//! seeded random matches must look the same through both, step by step.

use std::fmt::Debug;

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::context::{Ctx, viewers};
use super::report::Recorder;
use super::{Config, Failure, Summary};
use crate::chance;
use crate::dynamic::{DynGame, DynState};
use crate::error::{ErrorKind, GameError};
use crate::types::{ActionId, Attempt, Move, Player, Status, Transition};

/// Plays the same seeded random matches on `plugin` (a game's built plugin,
/// loaded) and `in_process` (the same game linked in),
/// `config.agreement_matches` per player count and option set of `config`,
/// and fails at the first step where the two differ.
///
/// Both must have the same manifest. At every step they must agree on the
/// status, every seat's legal actions and the notation of each mover's, the
/// position, the view, text and board for every viewer, the targets of
/// every seat's legal actions, the refusal (kind and
/// message) of an illegal id and of an empty joint action, the explanation
/// of an illegal id and of a text and the action space, the evaluation, the
/// seat names, the chance node, what a joint action leaves (status and the
/// first mover's legal actions, as the host's one-call ply returns them),
/// every viewer's event for each transition, and at the end the results.
/// Chance outcomes are drawn with [`chance::draw`] as the host draws them,
/// all movers of a simultaneous turn move together, and in a game whose
/// manifest says `removable_players` a random seat is now and then taken out
/// on both.
///
/// Returns what the matches covered (matches, transitions, chance nodes,
/// simultaneous turns, removals).
pub fn agree(
    plugin: &dyn DynGame,
    in_process: &dyn DynGame,
    config: &Config,
) -> Result<Summary, Failure> {
    let name = &in_process.manifest().name;
    if plugin.manifest() != in_process.manifest() {
        return Err(Failure::new(
            "agreement",
            format!(
                "{name} agreement: the plugin's manifest differs from the in-process game's\n  \
                 plugin:     {:?}\n  in-process: {:?}",
                plugin.manifest(),
                in_process.manifest()
            ),
        ));
    }
    let mut summary = Summary::default();
    let recorder = Recorder::new(&|_| {}, true);
    recorder.check.set("agreement");
    for &players in &config.player_counts {
        let names = (plugin.seat_names(players), in_process.seat_names(players));
        if names.0 != names.1 {
            return Err(Failure::new(
                "agreement",
                format!(
                    "{name} agreement: the seat names of {players} seats differ
  plugin:                          {:?}
  in-process: {:?}",
                    names.0, names.1
                ),
            ));
        }
        for options in &config.option_sets {
            for i in 0..config.agreement_matches {
                let mut ctx = Ctx::start(
                    in_process,
                    players,
                    options,
                    config.seed.wrapping_add(u64::from(i)),
                    false,
                    &recorder,
                );
                recorder.check.set("agreement");
                agree_on_one_match(&mut ctx, plugin, config, &mut summary)?;
            }
        }
    }
    Ok(summary)
}

/// One match's state on both paths.
struct Sides {
    plugin: Box<dyn DynState>,
    in_process: Box<dyn DynState>,
}

impl Sides {
    /// Asks both sides the same question: both must answer, and alike.
    fn ask<T: PartialEq + Debug>(
        &mut self,
        ctx: &Ctx<'_>,
        what: &str,
        mut question: impl FnMut(&mut dyn DynState) -> Result<T, GameError>,
    ) -> Result<T, Failure> {
        let plugin = ctx.ok(&format!("{what} (plugin)"), question(self.plugin.as_mut()))?;
        let in_process = ctx.ok(
            &format!("{what} (in-process)"),
            question(self.in_process.as_mut()),
        )?;
        if plugin != in_process {
            return Err(ctx.fail(format!(
                "the plugin and the game in-process differ on {what}\n  plugin:     \
                 {plugin:?}\n  in-process: {in_process:?}"
            )));
        }
        Ok(in_process)
    }

    /// Asks both sides to refuse something: both must refuse it alike, as bad
    /// input (a fault fails).
    fn refusal(
        &mut self,
        ctx: &Ctx<'_>,
        what: &str,
        mut attempt: impl FnMut(&mut dyn DynState) -> Result<(), GameError>,
    ) -> Result<(), Failure> {
        self.ask(ctx, what, |state| match attempt(state) {
            Ok(()) => Ok(None),
            Err(e) if e.kind.is_fault() => Err(e),
            Err(e) => Ok(Some::<(ErrorKind, String)>((e.kind, e.message))),
        })
        .map(|_| ())
    }

    fn clone_both(&self, ctx: &Ctx<'_>) -> Result<Sides, Failure> {
        Ok(Sides {
            plugin: ctx.ok("clone_state (plugin)", self.plugin.clone_state())?,
            in_process: ctx.ok("clone_state (in-process)", self.in_process.clone_state())?,
        })
    }

    /// Every viewer's event for `transition`, which took `before` to `self`.
    fn events_agree(
        &self,
        ctx: &Ctx<'_>,
        before: &Sides,
        transition: &Transition,
    ) -> Result<(), Failure> {
        for viewer in viewers(ctx.players) {
            let plugin = ctx.ok(
                "event (plugin)",
                self.plugin
                    .event(before.plugin.as_ref(), transition, viewer),
            )?;
            let in_process = ctx.ok(
                "event (in-process)",
                self.in_process
                    .event(before.in_process.as_ref(), transition, viewer),
            )?;
            if plugin != in_process {
                return Err(ctx.fail(format!(
                    "the plugin and the game in-process differ on the event of {transition:?} \
                     for {viewer:?}\n  plugin:     {plugin}\n  in-process: {in_process}"
                )));
            }
        }
        Ok(())
    }

    /// Everything every viewer can see of the state, and every seat's legal
    /// actions (returned, by seat).
    fn states_agree(&mut self, ctx: &Ctx<'_>) -> Result<Vec<Vec<ActionId>>, Failure> {
        self.ask(ctx, "the position", |s| s.position())?;
        for viewer in viewers(ctx.players) {
            self.ask(ctx, &format!("the view for {viewer:?}"), |s| s.view(viewer))?;
            self.ask(ctx, &format!("the text for {viewer:?}"), |s| {
                s.render_text(viewer)
            })?;
            self.ask(ctx, &format!("the board for {viewer:?}"), |s| {
                s.render_svg(viewer)
            })?;
        }
        (0..ctx.players)
            .map(|p| {
                let (legal, _) = self.ask(ctx, &format!("the legal actions of seat {p}"), |s| {
                    let mut legal = Vec::new();
                    s.legal_actions(p, &mut legal)?;
                    let targets = s.action_targets(p, &legal)?;
                    Ok((legal, targets))
                })?;
                Ok(legal)
            })
            .collect()
    }
}

/// What happens at one step of a match.
enum Step {
    Transition(Transition),
    Remove(Player),
}

fn agree_on_one_match(
    ctx: &mut Ctx<'_>,
    plugin: &dyn DynGame,
    config: &Config,
    summary: &mut Summary,
) -> Result<(), Failure> {
    let mut rng = ChaCha8Rng::seed_from_u64(ctx.seed ^ 0xa9ee_5a11);
    let removable = ctx.game.manifest().removable_players;
    let mut sides = Sides {
        plugin: ctx.ok(
            "new_state (plugin)",
            plugin.new_state(ctx.players, ctx.options, None),
        )?,
        in_process: ctx.ok(
            "new_state (in-process)",
            ctx.game.new_state(ctx.players, ctx.options, None),
        )?,
    };
    let mut removed: Vec<Player> = Vec::new();
    let mut chance_index = 0u64;
    loop {
        let status = sides.ask(ctx, "the status", |s| s.status())?;
        let legal = sides.states_agree(ctx)?;
        let step = match status {
            Status::Terminal => {
                sides.ask(ctx, "the results", |s| s.results())?;
                break;
            }
            Status::Chance => {
                let node = sides.ask(ctx, "the chance node", |s| s.chance())?;
                let outcome = ctx.ok("draw", chance::draw(&node, ctx.seed, chance_index))?;
                chance_index += 1;
                summary.chance_nodes += 1;
                Step::Transition(Transition::Chance(outcome))
            }
            Status::ToMove(movers) => {
                let still_in: Vec<Player> =
                    (0..ctx.players).filter(|p| !removed.contains(p)).collect();
                if removable && still_in.len() > 1 && rng.random_ratio(1, 16) {
                    Step::Remove(*still_in.choose(&mut rng).expect("seats are still in"))
                } else {
                    if movers.len() > 1 {
                        summary.simultaneous_turns += 1;
                    }
                    let mut moves = Vec::new();
                    for p in movers.iter() {
                        let legal = &legal[p as usize];
                        sides.ask(ctx, &format!("the notation of seat {p}'s actions"), |s| {
                            let (mut text, mut ends) = (String::new(), Vec::new());
                            s.actions_to_strings(p, legal, &mut text, &mut ends)?;
                            Ok((text, ends))
                        })?;
                        let Some(&action) = legal.choose(&mut rng) else {
                            return Err(
                                ctx.fail(format!("seat {p} is to move but has no legal action"))
                            );
                        };
                        moves.push(Move { player: p, action });
                    }
                    let mut illegal = moves.clone();
                    illegal[0].action = legal[illegal[0].player as usize]
                        .last()
                        .map_or(0, |a| a.wrapping_add(1));
                    sides.refusal(ctx, &format!("the refusal of {illegal:?}"), |s| {
                        s.apply(&illegal)
                    })?;
                    sides.refusal(ctx, "the refusal of an empty joint action", |s| {
                        s.apply(&[])
                    })?;
                    let (p, bad) = (illegal[0].player, illegal[0].action);
                    sides.ask(ctx, "the action space", |s| s.action_space())?;
                    let players = ctx.players as usize;
                    sides.ask(ctx, "the evaluation", |s| {
                        let mut values = vec![0.0; players];
                        let offered = s.evaluate(&mut values)?;
                        Ok((offered, values))
                    })?;
                    sides.ask(ctx, &format!("the explanation of action {bad}"), |s| {
                        s.explain_refusal(p, Attempt::Id(bad))
                    })?;
                    sides.ask(ctx, "the explanation of a text", |s| {
                        s.explain_refusal(p, Attempt::Text("zz99-zz99"))
                    })?;
                    Step::Transition(Transition::Moves(moves))
                }
            }
        };
        match step {
            Step::Transition(transition) => {
                let before = sides.clone_both(ctx)?;
                match &transition {
                    Transition::Moves(moves) => {
                        sides.ask(ctx, &format!("what {moves:?} leaves"), |s| {
                            let (status, legal) = s.apply_and_lend_legal(moves, None)?;
                            Ok((status, legal.to_vec()))
                        })?;
                    }
                    Transition::Chance(outcome) => {
                        sides.ask(ctx, &format!("apply_chance {outcome}"), |s| {
                            s.apply_chance(*outcome)
                        })?;
                    }
                }
                sides.events_agree(ctx, &before, &transition)?;
                summary.transitions += 1;
            }
            Step::Remove(seat) => {
                sides.ask(ctx, &format!("remove_player {seat}"), |s| {
                    s.remove_player(seat)
                })?;
                removed.push(seat);
                summary.removals += 1;
            }
        }
        ctx.step += 1;
        if ctx.step > config.max_steps {
            return Err(ctx.fail(format!(
                "the match did not end within {} steps",
                config.max_steps
            )));
        }
    }
    summary.matches += 1;
    Ok(())
}
