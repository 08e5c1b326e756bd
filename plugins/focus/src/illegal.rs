//! Why an action is not legal now: one variant per reason, each with the
//! reason code a client branches on and a sentence naming the ruling.
//! [`crate::Position::check`] finds the reason; the plugin boundary sends
//! the same code and sentence whether the action came as an id or a text,
//! from `apply`, `parse_action` or `explain_refusal`.

use std::fmt;

use tabletop_sdk::{GameError, Player, Refusal};

use crate::board::{Direction, Square};
use crate::moves::{DROP_BASE, SWAP_BASE};
use crate::position::EndReason;
use crate::seats::{label, label_of};
use crate::tower::Colour;

/// Why a move is not legal for a player now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IllegalMove {
    /// `NO_SUCH_SEAT`: the match has no such seat.
    NoSuchSeat {
        /// The seat asked about.
        seat: Player,
        /// The match's player count.
        players: usize,
    },
    /// `NO_SUCH_ACTION`: the id is no Focus action (F11's ids).
    UnknownAction(u64),
    /// `NO_SUCH_SQUARE`: the id names a square the board lacks (F1).
    MissingSquare {
        /// The action id.
        action: u64,
        /// The square's name, as if the grid were full.
        square: String,
    },
    /// `OFF_BOARD`: the tower would land off the board (F1, F5).
    OffBoard {
        /// Where the tower stands.
        from: Square,
        /// Which way it would move.
        direction: Direction,
        /// Pieces, and squares, it would move.
        k: usize,
    },
    /// `GAME_OVER`: the game has ended, for this reason (F7–F10).
    GameOver(Option<EndReason>),
    /// `PLAYER_OUT`: the player is out and never moves again (F7).
    PlayerOut(Colour),
    /// `NOT_YOUR_TURN`: another seat, or chance, acts now.
    NotYourTurn {
        /// Who tried.
        seat: Colour,
        /// The seat to move; `None` when chance makes the opening swap.
        to_move: Option<Colour>,
        /// The ruling that says whose turn it is.
        ruling: &'static str,
    },
    /// `SWAP_FIRST`: player 1 chooses the opening swap before any move (F9).
    SwapFirst,
    /// `NO_SWAP_NOW`: a swap outside the opening (F9).
    NoSwapNow {
        /// Whether the match has an opening swap at all (`opening_swap`
        /// is not `none`).
        in_match: bool,
    },
    /// `EMPTY_SQUARE`: no tower stands on the square (F5).
    EmptySquare(Square),
    /// `NOT_YOUR_TOWER`: another player's piece tops the tower (F5).
    NotYourTower {
        /// The square.
        square: Square,
        /// The seat whose piece is on top.
        owner: Colour,
    },
    /// `TOO_FAR`: the move is longer than the tower is high (F5: the top k
    /// pieces move exactly k squares).
    TooFar {
        /// The square.
        from: Square,
        /// Squares, and so pieces, asked for.
        k: usize,
        /// The tower's height.
        height: usize,
    },
    /// `NO_RESERVE`: a drop with an empty reserve (F5).
    NoReserve(Colour),
    /// `SWAP_WRONG_PIECES`: the swap's squares do not hold a single R piece
    /// and a single G piece, in that order (F9).
    SwapWrongPieces {
        /// The first square, for the R piece.
        r: Square,
        /// The second square, for the G piece.
        g: Square,
    },
    /// `SWAP_KEEPS_SYMMETRY`: the squares are each other's half-turn
    /// images (F9).
    SwapKeepsSymmetry {
        /// The R piece's square.
        r: Square,
        /// The G piece's square.
        g: Square,
    },
}

impl IllegalMove {
    /// Every reason code, with the ruling it cites (for the README table
    /// and its test).
    pub const CODES: [(&'static str, &'static str); 15] = [
        ("NO_SUCH_SEAT", "—"),
        ("NO_SUCH_ACTION", "F11"),
        ("NO_SUCH_SQUARE", "F1"),
        ("OFF_BOARD", "F1, F5"),
        ("GAME_OVER", "F7–F10"),
        ("PLAYER_OUT", "F7"),
        ("NOT_YOUR_TURN", "F2–F4, F9"),
        ("SWAP_FIRST", "F9"),
        ("NO_SWAP_NOW", "F9"),
        ("EMPTY_SQUARE", "F5"),
        ("NOT_YOUR_TOWER", "F5"),
        ("TOO_FAR", "F5"),
        ("NO_RESERVE", "F5"),
        ("SWAP_WRONG_PIECES", "F9"),
        ("SWAP_KEEPS_SYMMETRY", "F9"),
    ];

    /// The reason code.
    pub fn code(&self) -> &'static str {
        match self {
            IllegalMove::NoSuchSeat { .. } => "NO_SUCH_SEAT",
            IllegalMove::UnknownAction(_) => "NO_SUCH_ACTION",
            IllegalMove::MissingSquare { .. } => "NO_SUCH_SQUARE",
            IllegalMove::OffBoard { .. } => "OFF_BOARD",
            IllegalMove::GameOver(_) => "GAME_OVER",
            IllegalMove::PlayerOut(_) => "PLAYER_OUT",
            IllegalMove::NotYourTurn { .. } => "NOT_YOUR_TURN",
            IllegalMove::SwapFirst => "SWAP_FIRST",
            IllegalMove::NoSwapNow { .. } => "NO_SWAP_NOW",
            IllegalMove::EmptySquare(_) => "EMPTY_SQUARE",
            IllegalMove::NotYourTower { .. } => "NOT_YOUR_TOWER",
            IllegalMove::TooFar { .. } => "TOO_FAR",
            IllegalMove::NoReserve(_) => "NO_RESERVE",
            IllegalMove::SwapWrongPieces { .. } => "SWAP_WRONG_PIECES",
            IllegalMove::SwapKeepsSymmetry { .. } => "SWAP_KEEPS_SYMMETRY",
        }
    }

    /// The explanation the explain-refusal extension gives.
    pub fn refusal(&self) -> Refusal {
        Refusal::illegal(self.code(), self.to_string())
    }

    /// Whether the reason is whose turn it is (or that nobody's is) rather
    /// than the move itself: such refusals have the kind `NotYourTurn`.
    fn is_about_the_turn(&self) -> bool {
        matches!(
            self,
            IllegalMove::NoSuchSeat { .. }
                | IllegalMove::GameOver(_)
                | IllegalMove::PlayerOut(_)
                | IllegalMove::NotYourTurn { .. }
        )
    }
}

fn direction_name(direction: Direction) -> &'static str {
    match direction {
        Direction::North => "north",
        Direction::East => "east",
        Direction::South => "south",
        Direction::West => "west",
    }
}

fn end_name(reason: Option<EndReason>) -> &'static str {
    match reason {
        Some(EndReason::LastStanding) | None => "one player or team is left (F7)",
        Some(EndReason::Domination) => "a player won by captures or removals (F8)",
        Some(EndReason::SymmetryRule) => "P1 won by the symmetry rule (F9)",
        Some(EndReason::TurnLimit) => "the move limit was reached (F10)",
    }
}

fn pieces(n: usize) -> String {
    if n == 1 {
        "1 piece".to_string()
    } else {
        format!("{n} pieces")
    }
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalMove::NoSuchSeat { seat, players } => write!(
                f,
                "there is no seat {seat}: a {players}-player match has seats 0 to {}",
                players.saturating_sub(1)
            ),
            IllegalMove::UnknownAction(id) => write!(
                f,
                "action {id} is no Focus action: moves are below {DROP_BASE}, drops \
                 {DROP_BASE} to {}, opening swaps from {SWAP_BASE} (F11)",
                DROP_BASE + 63
            ),
            IllegalMove::MissingSquare { action, square } => write!(
                f,
                "action {action} names {square}, a corner square the Focus board does not \
                 have (F1)"
            ),
            IllegalMove::OffBoard { from, direction, k } => write!(
                f,
                "moving {} {} from {from} leaves the board (F1, F5)",
                if *k == 1 {
                    "1 square".to_string()
                } else {
                    format!("{k} squares")
                },
                direction_name(*direction)
            ),
            IllegalMove::GameOver(reason) => {
                write!(f, "the game is over: {}", end_name(*reason))
            }
            IllegalMove::PlayerOut(seat) => write!(
                f,
                "{} is out of the game and is skipped from then on (F7)",
                label_of(*seat)
            ),
            IllegalMove::NotYourTurn {
                seat,
                to_move: Some(to_move),
                ruling,
            } => write!(
                f,
                "it is {}'s turn, not {}'s ({ruling})",
                label_of(*to_move),
                label_of(*seat)
            ),
            IllegalMove::NotYourTurn {
                seat,
                to_move: None,
                ..
            } => write!(
                f,
                "chance makes the opening swap before anyone moves, so not {} (F9)",
                label_of(*seat)
            ),
            IllegalMove::SwapFirst => f.write_str(
                "the opening swap comes first: exchange a single R piece with a single G \
                 piece, like `b2<>d2` (F9)",
            ),
            IllegalMove::NoSwapNow { in_match: false } => {
                f.write_str("this match has no opening swap: option `opening_swap` is none (F9)")
            }
            IllegalMove::NoSwapNow { in_match: true } => {
                f.write_str("the opening swap is made once, before the first move (F9)")
            }
            IllegalMove::EmptySquare(square) => {
                write!(f, "there is no tower on {square} to move (F5)")
            }
            IllegalMove::NotYourTower { square, owner } => write!(
                f,
                "the tower on {square} belongs to {}, whose piece is on top: a player moves \
                 only their own towers (F5)",
                label_of(*owner)
            ),
            IllegalMove::TooFar { from, k, height } => write!(
                f,
                "the tower on {from} has {}; it cannot move {k} (F5: the top k pieces move \
                 exactly k squares)",
                pieces(*height)
            ),
            IllegalMove::NoReserve(seat) => write!(
                f,
                "{} has no piece in reserve to drop (F5)",
                label(Player::from(*seat))
            ),
            IllegalMove::SwapWrongPieces { r, g } => write!(
                f,
                "{r}<>{g}: the opening swap exchanges a single R piece (the first square) with \
                 a single G piece (the second) (F9)"
            ),
            IllegalMove::SwapKeepsSymmetry { r, g } => write!(
                f,
                "{r} and {g} are each other's half-turn images: exchanging them keeps the \
                 symmetry (F9)"
            ),
        }
    }
}

impl std::error::Error for IllegalMove {}

impl From<IllegalMove> for GameError {
    fn from(e: IllegalMove) -> GameError {
        if e.is_about_the_turn() {
            GameError::not_your_turn(e.to_string())
        } else {
            GameError::illegal(e.to_string())
        }
    }
}
