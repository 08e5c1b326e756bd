//! The search: information-set UCT through [`DynState`], one iteration at a
//! time.
//!
//! Each iteration
//! 1. draws a world: the root resampled for the bot's seat (the bot's view
//!    is all it uses of the real state);
//! 2. descends the tree: at a decision every mover picks its own action by
//!    UCB1 over its own statistics (decoupled UCT, so simultaneous moves need
//!    nothing more), untried actions first; at a chance node the outcome is
//!    drawn from the game's distribution (a sampled node keeps at most
//!    [`SAMPLED_BRANCHES`] outcomes and then draws among them);
//! 3. adds the first node it reaches that the tree lacks. A node is a
//!    sequence of transitions; when the game hides something from the bot's
//!    seat, also of what the seat saw after each (its view), so a revealed
//!    tile or a turn that passed leads to its own node;
//! 4. plays on at random for at most the playout depth, and scores the end
//!    ([`crate::score`]): the ranks of a finished game, else the game's
//!    evaluation, else a draw;
//! 5. adds each mover's score to the action it picked at every node passed.

use std::time::{Duration, Instant};

use tabletop_sdk::{ActionId, Chance, DynState, GameError, Move, Player, Status, Viewer};

use crate::rng::Rng;
use crate::score;
use crate::spec::{Budget, MctsConfig};
use crate::tree::{Arm, Kind, NodeId, ROOT, Tree, arm_index};

/// A sampled chance node keeps at most this many outcomes in the tree; the
/// draws after that pick one of them, each equally likely.
pub(crate) const SAMPLED_BRANCHES: usize = 8;

/// What a search found, and what it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    /// The action chosen for the bot's seat.
    pub action: ActionId,
    /// Iterations run (0 when the seat had one legal action).
    pub iterations: u64,
    /// Nodes in the tree at the end.
    pub nodes: usize,
    /// How many iterations tried each of the seat's legal actions at the
    /// root, ascending by action (empty when nothing was searched).
    pub visits: Vec<(ActionId, u32)>,
    /// Wall-clock time spent.
    pub elapsed: Duration,
}

/// One pick on the way down: at `node`, mover number `mover` (seat
/// `seat`) chose `action`.
#[derive(Debug, Clone, Copy)]
struct Pick {
    node: NodeId,
    mover: usize,
    seat: Player,
    action: ActionId,
}

struct Search<'a> {
    config: &'a MctsConfig,
    me: Player,
    /// Whether the game hides something from the bot's seat here: then a
    /// child is keyed by what the seat sees after the transition too.
    observe: bool,
    rng: Rng,
    tree: Tree,
    scores: Vec<f64>,
    legal: Vec<ActionId>,
    moves: Vec<Move>,
    key: Vec<u64>,
    picks: Vec<Pick>,
}

/// Searches from `root` for seat `me` of a `players`-seat match, which the
/// caller has checked is to move with `legal` (ascending, not empty). The
/// search stops at its budget or after `limit`, whichever comes first.
pub(crate) fn search(
    root: &dyn DynState,
    players: u32,
    me: Player,
    legal: &[ActionId],
    seed: u64,
    config: &MctsConfig,
    limit: Option<Duration>,
) -> Result<Choice, GameError> {
    let start = Instant::now();
    if let [only] = legal {
        return Ok(Choice {
            action: *only,
            iterations: 0,
            nodes: 0,
            visits: Vec::new(),
            elapsed: start.elapsed(),
        });
    }
    let mut rng = Rng::new(seed);
    let observe = hides_something(root, me, &mut rng)?;
    let mut search = Search {
        config,
        me,
        observe,
        rng,
        tree: Tree::new(config.max_nodes),
        scores: vec![0.5; players as usize],
        legal: Vec::new(),
        moves: Vec::new(),
        key: Vec::new(),
        picks: Vec::new(),
    };
    let mut iterations = 0u64;
    loop {
        let time_up = |limit: Duration| iterations > 0 && start.elapsed() >= limit;
        let done = match config.budget {
            Budget::Iterations(n) => iterations >= n || limit.is_some_and(time_up),
            Budget::Time(budget) => time_up(limit.map_or(budget, |l| l.min(budget))),
        };
        if done {
            break;
        }
        search.iterate(root)?;
        iterations += 1;
    }
    let visits = search.root_visits(legal);
    let action = best(&visits);
    Ok(Choice {
        action,
        iterations,
        nodes: search.tree.nodes.len(),
        visits: visits.iter().map(|v| (v.0, v.1)).collect(),
        elapsed: start.elapsed(),
    })
}

impl Search<'_> {
    fn iterate(&mut self, root: &dyn DynState) -> Result<(), GameError> {
        let mut world = root.resample(Viewer::Seat(self.me), self.rng.next_u64())?;
        self.picks.clear();
        if self.descend(world.as_mut())? {
            self.playout(world.as_mut())?;
        }
        for pick in &self.picks {
            let arms = &mut self.tree.node(pick.node).arms[pick.mover];
            if let Ok(i) = arms.binary_search_by_key(&pick.action, |a| a.action) {
                arms[i].visits += 1;
                arms[i].total += self.scores[pick.seat as usize];
            }
        }
        Ok(())
    }

    /// Walks `world` down the tree, adding one node. Returns whether a
    /// playout must score the world (`false`: the game ended in the tree and
    /// `scores` holds its result).
    fn descend(&mut self, world: &mut dyn DynState) -> Result<bool, GameError> {
        let mut node = ROOT;
        loop {
            let status = world.status()?;
            let kind = self.tree.node(node).kind;
            match status {
                Status::Terminal => {
                    score::from_results(&world.results()?, &mut self.scores);
                    return Ok(false);
                }
                Status::Chance => {
                    match kind {
                        Kind::Fresh => self.tree.node(node).kind = Kind::Chance,
                        Kind::Chance => {}
                        Kind::Decide(_) => return Ok(true),
                    }
                    let outcome = self.tree_outcome(node, &world.chance()?)?;
                    world.apply_chance(outcome)?;
                    self.key.clear();
                    self.key.push(outcome);
                }
                Status::ToMove(movers) => {
                    match kind {
                        Kind::Fresh => {
                            let fresh = self.tree.node(node);
                            fresh.kind = Kind::Decide(movers);
                            fresh.arms = vec![Vec::new(); movers.len()];
                        }
                        Kind::Decide(known) if known == movers => {}
                        _ => return Ok(true),
                    }
                    self.key.clear();
                    self.moves.clear();
                    for (mover, seat) in movers.iter().enumerate() {
                        world.legal_actions(seat, &mut self.legal)?;
                        let arms = &mut self.tree.node(node).arms[mover];
                        let action =
                            select(arms, &self.legal, &mut self.rng, self.config.exploration)
                                .ok_or_else(|| no_legal_action(seat))?;
                        self.moves.push(Move {
                            player: seat,
                            action,
                        });
                        self.key.push(action);
                        self.picks.push(Pick {
                            node,
                            mover,
                            seat,
                            action,
                        });
                    }
                    world.apply(&self.moves)?;
                }
            }
            if self.observe {
                self.key
                    .push(fingerprint(&world.view(Viewer::Seat(self.me))?));
            }
            match self.tree.child(node, &self.key) {
                Some((child, false)) => node = child,
                // A new node, or a full tree: play out from here.
                Some((_, true)) | None => return Ok(true),
            }
        }
    }

    /// The outcome of chance node `node` for this iteration.
    fn tree_outcome(&mut self, node: NodeId, chance: &Chance) -> Result<u64, GameError> {
        match chance {
            Chance::Explicit(outcomes) => draw_explicit(outcomes, &mut self.rng),
            Chance::Sampled => {
                let children = &self.tree.node(node).children;
                if children.len() < SAMPLED_BRANCHES {
                    return Ok(self.rng.next_u64());
                }
                let nth = self.rng.below(children.len());
                Ok(children.keys().nth(nth).map_or(0, |key| key[0]))
            }
        }
    }

    /// Plays `world` on at random for at most the playout depth and puts
    /// each seat's score into `scores`.
    fn playout(&mut self, world: &mut dyn DynState) -> Result<(), GameError> {
        let mut status = world.status()?;
        // The next single mover's move, drawn from the list the last ply lent.
        let mut drawn: Option<Move> = None;
        let mut steps = 0u32;
        loop {
            match status {
                Status::Terminal => {
                    score::from_results(&world.results()?, &mut self.scores);
                    return Ok(());
                }
                _ if steps >= self.config.playout_depth => {
                    return score::at_cut_off(world, &mut self.scores);
                }
                Status::Chance => {
                    let outcome = match world.chance()? {
                        Chance::Explicit(outcomes) => draw_explicit(&outcomes, &mut self.rng)?,
                        Chance::Sampled => self.rng.next_u64(),
                    };
                    world.apply_chance(outcome)?;
                    status = world.status()?;
                }
                Status::ToMove(movers) => {
                    self.moves.clear();
                    match drawn.take() {
                        Some(single) => self.moves.push(single),
                        None => {
                            for seat in movers.iter() {
                                let legal = world.lend_legal_actions(seat)?;
                                if legal.is_empty() {
                                    return Err(no_legal_action(seat));
                                }
                                let action = legal[self.rng.below(legal.len())];
                                self.moves.push(Move {
                                    player: seat,
                                    action,
                                });
                            }
                        }
                    }
                    let (next, lent) = world.apply_and_lend_legal(&self.moves, None)?;
                    if let Status::ToMove(next_movers) = next
                        && next_movers.len() == 1
                        && let Some(seat) = next_movers.first()
                        && !lent.is_empty()
                    {
                        drawn = Some(Move {
                            player: seat,
                            action: lent[self.rng.below(lent.len())],
                        });
                    }
                    status = next;
                }
            }
            steps += 1;
        }
    }

    /// The visits and mean score of each of the bot's `legal` actions at
    /// the root.
    fn root_visits(&mut self, legal: &[ActionId]) -> Vec<(ActionId, u32, f64)> {
        let me = self.me;
        let root = self.tree.node(ROOT);
        let mine = match root.kind {
            Kind::Decide(movers) => movers.iter().position(|seat| seat == me),
            _ => None,
        };
        let arms: &[Arm] = mine.map_or(&[], |i| &root.arms[i]);
        legal
            .iter()
            .map(
                |&action| match arms.binary_search_by_key(&action, |a| a.action) {
                    Ok(i) if arms[i].visits > 0 => {
                        let arm = &arms[i];
                        (action, arm.visits, arm.total / f64::from(arm.visits))
                    }
                    _ => (action, 0, 0.0),
                },
            )
            .collect()
    }
}

/// The most visited action (`visits` is not empty); ties go to the better
/// mean, then to the lower id.
fn best(visits: &[(ActionId, u32, f64)]) -> ActionId {
    let mut best = visits[0];
    for &candidate in &visits[1..] {
        if (candidate.1, candidate.2) > (best.1, best.2) {
            best = candidate;
        }
    }
    best.0
}

/// Whether two resamples of `root` for seat `me` differ (three tries):
/// whether the game hides anything from the seat. It reads only what the
/// seat sees, as resampling does.
fn hides_something(root: &dyn DynState, me: Player, rng: &mut Rng) -> Result<bool, GameError> {
    let viewer = Viewer::Seat(me);
    let first = root.resample(viewer, rng.next_u64())?.position()?;
    for _ in 0..3 {
        if root.resample(viewer, rng.next_u64())?.position()? != first {
            return Ok(true);
        }
    }
    Ok(false)
}

/// A 64-bit FNV-1a hash of `text`: stable on every machine and run.
fn fingerprint(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// One mover's pick among `legal` at a node whose arms are `arms`: an
/// untried action (each equally likely) while there is one, else the best by
/// UCB1 with availability counts. `None` when `legal` is empty.
fn select(
    arms: &mut Vec<Arm>,
    legal: &[ActionId],
    rng: &mut Rng,
    exploration: f64,
) -> Option<ActionId> {
    let mut untried = 0usize;
    let mut chosen = None;
    for &action in legal {
        let i = arm_index(arms, action);
        arms[i].available += 1;
        if arms[i].visits == 0 {
            untried += 1;
            // Reservoir sampling: each untried action equally likely.
            if rng.below(untried) == 0 {
                chosen = Some(action);
            }
        }
    }
    if chosen.is_some() {
        return chosen;
    }
    let mut best: Option<(ActionId, f64)> = None;
    for &action in legal {
        let i = arm_index(arms, action);
        let arm = &arms[i];
        let visits = f64::from(arm.visits);
        let value =
            arm.total / visits + exploration * (f64::from(arm.available).ln() / visits).sqrt();
        if best.is_none_or(|(_, b)| value > b) {
            best = Some((action, value));
        }
    }
    best.map(|(action, _)| action)
}

/// An outcome of an explicit chance node, by its probabilities.
fn draw_explicit(outcomes: &[(u64, f64)], rng: &mut Rng) -> Result<u64, GameError> {
    let weight = |p: f64| if p.is_finite() && p > 0.0 { p } else { 0.0 };
    let total: f64 = outcomes.iter().map(|&(_, p)| weight(p)).sum();
    if !(total > 0.0 && total.is_finite()) {
        return Err(GameError::internal(
            "chance node lists no outcome with positive probability",
        ));
    }
    let mut point = rng.unit() * total;
    let mut last = outcomes[0].0;
    for &(outcome, p) in outcomes {
        let p = weight(p);
        if p > 0.0 {
            last = outcome;
            if point < p {
                return Ok(outcome);
            }
            point -= p;
        }
    }
    // Rounding can leave `point` a hair above the last weight.
    Ok(last)
}

fn no_legal_action(seat: Player) -> GameError {
    GameError::internal(format!("seat {seat} is to move but has no legal action"))
}
