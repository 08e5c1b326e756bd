//! Why an action is refused: the one judge of an attempt, by id or by text,
//! that `parse_action`, `apply` and `explain_refusal` all ask, so a refusal
//! says the same wherever it comes from.
//!
//! The move generator (`rules`) decides what is legal; this module is asked
//! only about what it refused, and names the first rule the attempt breaks:
//! whose turn it is, the phase (W3), the unit and its owner (W4), then the
//! rule of the action itself (W4–W7, W9, W10), and last the compulsory
//! capture (W8), which is the only reason left for an action that is
//! otherwise sound.

use tabletop_sdk::{ActionId, Player, Refusal};

use crate::board::{Board, DIRECTIONS, Direction, SegmentKind};
use crate::moves::Action;
use crate::notation::{Reading, action_to_string, read, segment_text};
use crate::position::{Phase, Position};
use crate::reasons;
use crate::side::{Side, TileKind, UnitKind};

/// The legal action `text` names for `player`, or why it is refused.
/// Texts that are layouts are the host's to expand first
/// ([`crate::layout::expand`]); here they are refused as notation.
pub fn parse(pos: &Position, player: Player, text: &str) -> Result<ActionId, Refusal> {
    let reading = read(pos.board(), text)?;
    let action = judge_reading(pos, player, reading)?;
    Ok(action.id(pos.board()))
}

/// Why `text` is refused for `player`, or `None` when it is accepted: a
/// layout that expands, or a single legal action.
pub fn explain_text(pos: &Position, player: Player, text: &str) -> Option<Refusal> {
    match crate::layout::expand(pos, player, text) {
        Err(refusal) => return Some(refusal),
        Ok(Some(_)) => return None,
        Ok(None) => {}
    }
    parse(pos, player, text).err()
}

/// Why action `id` is refused for `player`, or `None` when it is legal.
pub fn explain_id(pos: &Position, player: Player, id: ActionId) -> Option<Refusal> {
    let Some(action) = Action::from_id(id, pos.board()) else {
        return Some(Refusal::illegal(
            reasons::NO_SUCH_ACTION,
            crate::no_such_action(id).message,
        ));
    };
    judge(pos, player, action).err()
}

/// Whether `player` may play `action` now, and if not, why.
pub fn judge(pos: &Position, player: Player, action: Action) -> Result<Action, Refusal> {
    turn(pos, player)?;
    if pos
        .legal_ids()
        .binary_search(&action.id(pos.board()))
        .is_ok()
    {
        return Ok(action);
    }
    Err(why(pos, action))
}

/// [`judge`] for a text's reading: a placement must also name the next
/// empty start point, if it names one (W3).
fn judge_reading(pos: &Position, player: Player, reading: Reading) -> Result<Action, Refusal> {
    let action = match reading {
        Reading::Action(action) => action,
        Reading::Place { kind, at } => {
            turn(pos, player)?;
            if pos.phase() == Phase::Play {
                return Err(setup_over());
            }
            let side = pos.to_move();
            if let (Some(at), Some(next)) = (at, pos.next_start()) {
                let expected = pos.board().start_point(side, next);
                if at != expected {
                    return Err(Refusal::illegal(
                        reasons::NOT_NEXT_START_POINT,
                        format!(
                            "{} places on its next empty start point, {} ({}), not on {} (W3)",
                            side.label(),
                            crate::board::start_number_name(side, next),
                            pos.board().label(expected),
                            pos.board().label(at)
                        ),
                    ));
                }
            }
            Action::Place(kind)
        }
    };
    judge(pos, player, action)
}

/// The game is on and `player` is the side to move.
fn turn(pos: &Position, player: Player) -> Result<(), Refusal> {
    if let Phase::Over(_) = pos.phase() {
        return Err(Refusal::illegal(
            reasons::GAME_OVER,
            "the game is over: no more actions (W11)",
        ));
    }
    let side = pos.to_move();
    if player as usize != side.index() {
        let who =
            Side::from_index(player as usize).map_or_else(|| format!("seat {player}"), Side::label);
        return Err(Refusal::illegal(
            reasons::NOT_YOUR_TURN,
            format!(
                "{who} is not to move: it is {}'s turn (W3, W4: the sides take turns)",
                side.label()
            ),
        ));
    }
    Ok(())
}

fn setup_over() -> Refusal {
    Refusal::illegal(
        reasons::SETUP_OVER,
        "the setup is over: units are placed only during the setup (W3)",
    )
}

/// Why `action`, which the side to move may not play now, is refused.
fn why(pos: &Position, action: Action) -> Refusal {
    let side = pos.to_move();
    let written = action_to_string(pos, action);
    match (pos.phase(), action) {
        (Phase::Setup, Action::Place(kind)) => Refusal::illegal(
            reasons::TOO_MANY_UNITS,
            format!(
                "{} has placed all its {} {} (W3)",
                side.label(),
                kind.army_count(),
                kind.plural()
            ),
        ),
        (Phase::Setup, _) => Refusal::illegal(
            reasons::SETUP_NOT_OVER,
            format!(
                "{written}: the setup is not over, and {} places its next unit first (W3)",
                side.label()
            ),
        ),
        (_, Action::Place(_)) => setup_over(),
        (_, Action::Move { from, to }) => {
            why_move(pos, &written, from, to).unwrap_or_else(|| compulsory(pos, &written))
        }
        (_, Action::Jump { from, to }) => why_jump(pos, &written, from, to),
        (_, Action::Fire { from, dir }) => why_fire(pos, &written, from, dir),
        (_, Action::PlaceTile { segment, kind }) => why_place_tile(pos, &written, segment, kind)
            .unwrap_or_else(|| compulsory(pos, &written)),
        (_, Action::RemoveTile { segment }) => {
            why_remove_tile(pos, &written, segment).unwrap_or_else(|| compulsory(pos, &written))
        }
    }
}

/// W8: the action is sound, but the side has a capture.
fn compulsory(pos: &Position, written: &str) -> Refusal {
    // With a capture on the board, the legal actions are the captures.
    let example = pos
        .legal_ids()
        .first()
        .and_then(|&id| Action::from_id(id, pos.board()))
        .filter(|a| a.is_capture());
    debug_assert!(example.is_some(), "{written}: sound, yet not legal");
    let example = example.map_or_else(String::new, |a| action_to_string(pos, a));
    Refusal::illegal(
        reasons::CAPTURE_COMPULSORY,
        format!(
            "{written} is not a capture, and {example} is possible: captures are compulsory (W8)"
        ),
    )
}

/// The unit of the side to move on `from`, or why there is none.
fn own_unit(pos: &Position, written: &str, from: u8) -> Result<UnitKind, Refusal> {
    let board = pos.board();
    match pos.unit(from) {
        None => Err(Refusal::illegal(
            reasons::NO_UNIT,
            format!(
                "{written}: there is no unit on {}; a side acts with its own units (W4)",
                board.label(from)
            ),
        )),
        Some(u) if u.side != pos.to_move() => Err(Refusal::illegal(
            reasons::NOT_YOUR_UNIT,
            format!(
                "{written}: the unit on {} is {}'s; a side acts with its own units (W4)",
                board.label(from),
                u.side.label()
            ),
        )),
        Some(u) => Ok(u.kind),
    }
}

/// What stops a path at one of its steps, from the mildest to the worst:
/// a unit in the way, a red line, a gap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Obstacle {
    /// The path passes through this point, which holds a unit.
    Unit(u8),
    /// The step runs along this red segment.
    Red(u16),
    /// No segment joins these two points, or an entrenchment lies on it.
    Gap(u8, u8),
}

/// A king step from `p`: the direction's neighbouring point, whether or not
/// a segment joins them.
fn neighbour(board: &Board, p: u8, dir: Direction) -> Option<u8> {
    let point = &board.points()[p as usize];
    let (dx, dy) = dir.delta();
    board.point_at(point.x + dx, point.y + dy)
}

/// What stops an ordinary step from `p` to its neighbour `q` (W4), if
/// anything does.
fn step_obstacle(pos: &Position, p: u8, q: u8) -> Option<Obstacle> {
    let Some(segment) = pos.board().segment_between(p, q) else {
        return Some(Obstacle::Gap(p, q));
    };
    match pos.effective_kind(segment) {
        None => Some(Obstacle::Gap(p, q)),
        Some(SegmentKind::Red) => Some(Obstacle::Red(segment)),
        Some(SegmentKind::Black | SegmentKind::Rail) => None,
    }
}

/// Why no path takes the unit on `from` to the empty point `to` (W4), or
/// `None` when one does. Every path the unit's kind allows is tried, ordinary
/// steps and rail travel, and the one closest to passing names the reason.
fn path_obstacle(pos: &Position, kind: UnitKind, from: u8, to: u8) -> Option<Option<Obstacle>> {
    let board = pos.board();
    // `None`: no path of the unit's kind reaches `to` at all. `Some(None)`:
    // a clear one does.
    let mut best: Option<Option<Obstacle>> = None;
    let mut consider = |obstacle: Option<Obstacle>| {
        best = Some(match best {
            None => obstacle,
            Some(None) => None,
            Some(Some(old)) => obstacle.map(|new| new.min(old)),
        });
    };
    for first in DIRECTIONS {
        let Some(q) = neighbour(board, from, first) else {
            continue;
        };
        let one = step_obstacle(pos, from, q);
        if q == to {
            consider(one);
        }
        if kind == UnitKind::Cavalry && q != to {
            for second in DIRECTIONS {
                if neighbour(board, q, second) != Some(to) {
                    continue;
                }
                let through = pos.unit(q).map(|_| Obstacle::Unit(q));
                let two = step_obstacle(pos, q, to);
                consider([one, through, two].into_iter().flatten().max());
            }
        }
    }
    // Rail travel: simple paths of one to three rail segments; only a unit
    // in the way can stop one.
    let rail = |p: u8| {
        DIRECTIONS.into_iter().filter_map(move |d| {
            let (q, segment) = board.link(p, d.index())?;
            (pos.effective_kind(segment) == Some(SegmentKind::Rail)).then_some(q)
        })
    };
    let mut paths: Vec<Vec<u8>> = vec![vec![from]];
    for _ in 0..3 {
        let mut longer = Vec::new();
        for path in &paths {
            let end = *path.last().expect("a path has a start");
            for q in rail(end) {
                if path.contains(&q) {
                    continue;
                }
                if q == to {
                    let blocked = path[1..].iter().find(|&&p| pos.unit(p).is_some());
                    consider(blocked.map(|&p| Obstacle::Unit(p)));
                } else {
                    let mut next = path.clone();
                    next.push(q);
                    longer.push(next);
                }
            }
        }
        paths = longer;
    }
    best
}

/// Why the move `from`-`to` breaks a rule of movement (W4, W9), or `None`
/// when a path is clear and only W8 can forbid it.
fn why_move(pos: &Position, written: &str, from: u8, to: u8) -> Option<Refusal> {
    let board = pos.board();
    let kind = match own_unit(pos, written, from) {
        Ok(kind) => kind,
        Err(refusal) => return Some(refusal),
    };
    if from == to {
        return Some(Refusal::illegal(
            reasons::SAME_POINT,
            format!("{written}: a move ends on another point than its start (W4)"),
        ));
    }
    if pos.unit(to).is_some() {
        return Some(Refusal::illegal(
            reasons::DESTINATION_OCCUPIED,
            format!(
                "{written}: {} holds a unit, and a move ends on an empty point (W4)",
                board.label(to)
            ),
        ));
    }
    if kind == UnitKind::Cannon && pos.seized().contains(&from) {
        return Some(Refusal::illegal(
            reasons::CANNON_SEIZED,
            format!(
                "{written}: the cannon on {} is seized and cannot move, though it may still \
                 fire (W9)",
                board.label(from)
            ),
        ));
    }
    let obstacle = match path_obstacle(pos, kind, from, to) {
        None => return Some(too_far(written, kind)),
        Some(None) => return None,
        Some(Some(obstacle)) => obstacle,
    };
    let refusal = match obstacle {
        Obstacle::Unit(p) => Refusal::illegal(
            reasons::PATH_BLOCKED,
            format!(
                "{written}: the way passes through {}, which holds a unit; a move passes only \
                 through empty points (W4)",
                board.label(p)
            ),
        ),
        Obstacle::Red(segment) => Refusal::illegal(
            reasons::RED_LINE,
            format!(
                "{written} crosses the red line {}: red lines carry no movement (W4)",
                segment_text(board, segment)
            ),
        ),
        Obstacle::Gap(p, q) => match board.segment_between(p, q) {
            Some(segment) => Refusal::illegal(
                reasons::GAP,
                format!(
                    "{written} crosses {}, which an entrenchment makes a gap: gaps carry no \
                     movement (W4, W10)",
                    segment_text(board, segment)
                ),
            ),
            None => Refusal::illegal(
                reasons::GAP,
                format!(
                    "{written}: no line joins {} and {}, and a gap carries no movement (W4)",
                    board.label(p),
                    board.label(q)
                ),
            ),
        },
    };
    Some(refusal)
}

fn too_far(written: &str, kind: UnitKind) -> Refusal {
    let reach = match kind {
        UnitKind::Cavalry => "cavalry makes one or two steps",
        UnitKind::Infantry => "infantry steps to a neighbouring point",
        UnitKind::Cannon => "a cannon steps to a neighbouring point",
    };
    Refusal::illegal(
        reasons::TOO_FAR,
        format!(
            "{written} is too far: {reach}, or travels one to three segments along a \
             railway (W4)"
        ),
    )
}

/// Why the jump `from`x`to` is refused (W5, W6).
fn why_jump(pos: &Position, written: &str, from: u8, to: u8) -> Refusal {
    let board = pos.board();
    let kind = match own_unit(pos, written, from) {
        Ok(kind) => kind,
        Err(refusal) => return refusal,
    };
    if kind == UnitKind::Cannon {
        return Refusal::illegal(
            reasons::CANNON_CANNOT_JUMP,
            format!("{written}: cannons do not jump; a cannon captures by firing (W6, W7)"),
        );
    }
    let (f, t) = (&board.points()[from as usize], &board.points()[to as usize]);
    let (dx, dy) = (t.x - f.x, t.y - f.y);
    let over = (dx % 2 == 0 && dy % 2 == 0)
        .then(|| Direction::from_delta(dx / 2, dy / 2))
        .flatten()
        .and_then(|dir| Some((dir, neighbour(board, from, dir)?)));
    let Some((dir, over)) = over else {
        return Refusal::illegal(
            reasons::NOT_A_JUMP,
            format!(
                "{written}: a jump goes from a point over its neighbour to the next point \
                 straight on (W6)"
            ),
        );
    };
    if pos.step(from, dir.index()) != Some(over) {
        return gap_refusal(pos, written, from, over, "captures never cross gaps (W5)");
    }
    let enemy = match pos.unit(over) {
        None => {
            return Refusal::illegal(
                reasons::NOTHING_TO_JUMP,
                format!(
                    "{written}: {} is empty, and a jump removes the enemy it passes over (W6)",
                    board.label(over)
                ),
            );
        }
        Some(u) if u.side == pos.to_move() => {
            return Refusal::illegal(
                reasons::JUMP_OVER_OWN_UNIT,
                format!(
                    "{written}: {} holds a unit of {}'s own, and a jump passes over an enemy (W6)",
                    board.label(over),
                    pos.to_move().label()
                ),
            );
        }
        Some(u) => u,
    };
    let defended = if pos.step(over, dir.index()) != Some(to) {
        let cut = match board.segment_between(over, to) {
            Some(segment) => format!(
                "an entrenchment makes {} a gap",
                segment_text(board, segment)
            ),
            None => format!(
                "no line joins {} and {}",
                board.label(over),
                board.label(to)
            ),
        };
        format!("{cut} beyond it")
    } else {
        debug_assert!(pos.unit(to).is_some(), "{written}: a sound jump refused");
        format!("{} behind it holds a unit", board.label(to))
    };
    Refusal::illegal(
        reasons::ENEMY_DEFENDED,
        format!(
            "{written}: the {} on {} is defended, as {defended} (W5)",
            enemy.kind.name(),
            board.label(over)
        ),
    )
}

/// A refusal for the gap between the neighbours `p` and `q`, with the rule.
fn gap_refusal(pos: &Position, written: &str, p: u8, q: u8, rule: &str) -> Refusal {
    let board = pos.board();
    let gap = match board.segment_between(p, q) {
        Some(segment) => format!(
            "an entrenchment makes {} a gap",
            segment_text(board, segment)
        ),
        None => format!("no line joins {} and {}", board.label(p), board.label(q)),
    };
    Refusal::illegal(reasons::GAP, format!("{written}: {gap}, and {rule}"))
}

/// Why the shot of the unit on `from` toward `dir` is refused (W7).
fn why_fire(pos: &Position, written: &str, from: u8, dir: Direction) -> Refusal {
    let board = pos.board();
    let side = pos.to_move();
    let kind = match own_unit(pos, written, from) {
        Ok(kind) => kind,
        Err(refusal) => return refusal,
    };
    if kind != UnitKind::Cannon {
        return Refusal::illegal(
            reasons::NOT_A_CANNON,
            format!(
                "{written}: the unit on {} is {}, and only cannons fire (W7)",
                board.label(from),
                kind.name()
            ),
        );
    }
    // The shot flies over empty points; it removed nothing, so it stops at
    // the first thing it meets.
    let mut at = from;
    let stop = loop {
        let Some(next) = pos.step(at, dir.index()) else {
            break match neighbour(board, at, dir) {
                Some(beyond) => match board.segment_between(at, beyond) {
                    Some(segment) => format!(
                        "stops at the entrenchment on {}",
                        segment_text(board, segment)
                    ),
                    None => format!(
                        "stops at the gap between {} and {}",
                        board.label(at),
                        board.label(beyond)
                    ),
                },
                None => "reaches the edge of the board".to_string(),
            };
        };
        match pos.unit(next) {
            None => at = next,
            Some(u) if u.side == side => {
                break format!("stops at {}, a unit of its own side", board.label(next));
            }
            Some(_) => {
                debug_assert!(
                    pos.undefended_landing(next, dir.index()).is_none(),
                    "{written}: a shot that hits refused"
                );
                break format!(
                    "stops at {}, whose enemy is defended (W5)",
                    board.label(next)
                );
            }
        }
    };
    Refusal::illegal(
        reasons::SHOT_REMOVES_NOTHING,
        format!("{written} removes no unit: the shot {stop}, and a shot must remove one (W7)"),
    )
}

/// Why placing a `kind` tile on `segment` breaks W10, or `None` when only
/// W8 can forbid it.
fn why_place_tile(pos: &Position, written: &str, segment: u16, kind: TileKind) -> Option<Refusal> {
    let board = pos.board();
    let side = pos.to_move();
    let seg = board.segments()[segment as usize];
    let where_ = segment_text(board, segment);
    if pos.in_hand(side, kind) == 0 {
        return Some(Refusal::illegal(
            reasons::NO_TILE_IN_HAND,
            format!(
                "{written}: {} has no {} tile in hand (W10)",
                side.label(),
                kind.name()
            ),
        ));
    }
    if seg.kind == SegmentKind::Rail {
        return Some(Refusal::illegal(
            reasons::PRINTED_RAILWAY,
            format!("{written}: {where_} is a printed railway, where no tile is placed (W10)"),
        ));
    }
    if pos.tile(segment).is_some() {
        return Some(Refusal::illegal(
            reasons::SEGMENT_HAS_TILE,
            format!("{written}: {where_} already holds a tile (W10)"),
        ));
    }
    let enemy = [seg.a, seg.b]
        .into_iter()
        .find(|&p| pos.unit(p).is_some_and(|u| u.side != side));
    if let Some(p) = enemy {
        return Some(Refusal::illegal(
            reasons::ENEMY_AT_SEGMENT_END,
            format!(
                "{written}: {}, an end of {where_}, holds an enemy unit, and a tile is placed \
                 where no enemy stands at either end (W10)",
                board.label(p)
            ),
        ));
    }
    None
}

/// Why taking the tile on `segment` back breaks W10, or `None` when only
/// W8 can forbid it.
fn why_remove_tile(pos: &Position, written: &str, segment: u16) -> Option<Refusal> {
    let where_ = segment_text(pos.board(), segment);
    match pos.tile(segment) {
        None => Some(Refusal::illegal(
            reasons::NO_TILE_THERE,
            format!("{written}: there is no tile on {where_} to take back (W10)"),
        )),
        Some(t) if t.owner != pos.to_move() => Some(Refusal::illegal(
            reasons::NOT_YOUR_TILE,
            format!(
                "{written}: the {} tile on {where_} is {}'s, and only its owner takes it \
                 back (W10)",
                t.kind.name(),
                t.owner.label()
            ),
        )),
        Some(_) => None,
    }
}
