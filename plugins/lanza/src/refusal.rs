//! Why an attempted action is refused: a reason code and one sentence citing
//! the ruling, for every way an action id or a text can fail. `parse_action`
//! and `explain_refusal` both read texts here, so the two never disagree.
//!
//! Lanza's states hide nothing (pending orders live in the host until a turn
//! is complete), so no explanation can reveal a secret. The README lists
//! every code with its rule.

use tabletop_sdk::text::quote;
use tabletop_sdk::{ActionId, Player, Refusal};

use crate::board::Field;
use crate::game::place_id;
use crate::orders::{ORDER_IDS, Orders};
use crate::piece::{PieceId, Rank, seat_label, seat_of_letter};
use crate::position::{Phase, Position};

/// How many action ids a match on the board of `state` can use: the 216
/// order ids and one placing id per field (see the README's action ids).
pub fn action_space(state: &Position) -> u64 {
    ORDER_IDS + state.board().len() as u64
}

/// Why `player` has nothing to do in `state`, or `None` if they are to move.
pub fn turn_refusal(state: &Position, player: Player) -> Option<Refusal> {
    let players = state.players();
    if player >= players {
        return Some(Refusal::illegal(
            "NO_SUCH_SEAT",
            format!(
                "seat {player} does not play in this {players}-player match: its seats are {} to \
                 {} (L2)",
                seat_label(0),
                seat_label(players - 1)
            ),
        ));
    }
    let (code, message) = match state.phase() {
        Phase::Setup => (
            "SETUP_NEXT",
            "the pieces are being shuffled onto the start fields: nobody acts before the setup \
             (L4)"
                .to_string(),
        ),
        Phase::Reentry(_) => (
            "REENTRY_DRAW_NEXT",
            "the re-entry order of the captured pieces is being drawn: nobody acts before the \
             draw (L10)"
                .to_string(),
        ),
        Phase::Over => (
            "GAME_OVER",
            "the game is over: nobody acts any more (L11, L12)".to_string(),
        ),
        _ if state.is_out(player) => (
            "SEAT_OUT",
            format!(
                "{} was taken out of the game: only the seats still in give orders (L5)",
                seat_label(player)
            ),
        ),
        Phase::Orders => return None,
        Phase::Place(_) => match state.placer() {
            Some((_, placer)) if placer == player => return None,
            Some((piece, placer)) => (
                "OTHER_SEAT_PLACES",
                format!(
                    "{} places {piece} now: captured pieces re-enter one at a time, each placed \
                     by its owner (L10)",
                    seat_label(placer)
                ),
            ),
            None => (
                "GAME_OVER",
                "the game is over: nobody acts any more (L11, L12)".to_string(),
            ),
        },
    };
    Some(Refusal::illegal(code, message))
}

/// Why action `id` is not legal for `player` in `state`, or `None` when it is.
pub fn explain_id(state: &Position, player: Player, id: ActionId) -> Option<Refusal> {
    if let Some(refusal) = turn_refusal(state, player) {
        return Some(refusal);
    }
    let space = action_space(state);
    if id >= space {
        return Some(Refusal::illegal(
            "OUTSIDE_ACTION_SPACE",
            format!(
                "action {id} is no lanza action: on the {}-field board the ids are below {space} \
                 (L13)",
                state.board().len()
            ),
        ));
    }
    let field = id
        .checked_sub(ORDER_IDS)
        .and_then(|i| usize::try_from(i).ok())
        .and_then(|i| state.board().field(i));
    match (state.phase(), field) {
        (Phase::Orders, None) => Orders::from_id(id).err().map(|e| e.refusal()),
        (Phase::Orders, Some(field)) => Some(placing_not_now(&format!(
            "action {id} places a piece on {}",
            state.board().name(field)
        ))),
        (_, None) => Some(orders_not_now(state, &format!("action {id} is an order"))),
        (_, Some(field)) => explain_field(state, field),
    }
}

/// Why the placing piece cannot re-enter on `field`, or `None` if it can.
fn explain_field(state: &Position, field: Field) -> Option<Refusal> {
    let board = state.board();
    let name = board.name(field);
    if !board.is_edge(field) {
        return Some(Refusal::illegal(
            "NOT_AN_EDGE_FIELD",
            format!(
                "{name} is not an edge field: a captured piece re-enters on an empty edge field \
                 (L10)"
            ),
        ));
    }
    state.piece_on(field).map(|occupant| {
        Refusal::illegal(
            "FIELD_TAKEN",
            format!(
                "{name} is taken by {occupant}: a captured piece re-enters on an empty edge \
                 field (L10)"
            ),
        )
    })
}

fn placing_not_now(what: &str) -> Refusal {
    Refusal::illegal(
        "PLACING_NOT_NOW",
        format!(
            "{what}, but no piece waits to re-enter: every piece is on the board and the players \
             give orders, like `K2 Q5 J1` (L10)"
        ),
    )
}

fn orders_not_now(state: &Position, what: &str) -> Refusal {
    let waiting = state
        .placer()
        .map_or_else(String::new, |(piece, _)| format!(": now {piece} is placed"));
    Refusal::illegal(
        "ORDERS_NOT_NOW",
        format!(
            "{what}, but orders wait until every captured piece is back on the board{waiting} \
             (L10)"
        ),
    )
}

/// Reads `text` as an action of `player`: the id when it is legal, else why
/// not. The refusal's `notation` flag says whether the text failed to read
/// at all.
pub fn read_text(state: &Position, player: Player, text: &str) -> Result<ActionId, Refusal> {
    if let Some(refusal) = turn_refusal(state, player) {
        return Err(refusal);
    }
    match state.phase() {
        Phase::Orders => match Orders::parse(text) {
            Ok(orders) => Ok(orders.id()),
            Err(e) if e.is_notation() && read_placement(state, text).is_ok() => Err(
                placing_not_now(&format!("`{}` places a piece", quote(text))),
            ),
            Err(e) => Err(e.refusal()),
        },
        _ => {
            let (named, field) = match read_placement(state, text) {
                Ok(placement) => placement,
                Err(_) if Orders::looks_like_orders(text) => {
                    return Err(orders_not_now(
                        state,
                        &format!("`{}` gives orders", quote(text)),
                    ));
                }
                Err(refusal) => return Err(refusal),
            };
            if let (Some(named), Some((piece, _))) = (named, state.placer())
                && !named.matches(piece)
            {
                return Err(Refusal::illegal(
                    "WRONG_PIECE",
                    format!(
                        "`{}` names {}, but the piece to re-enter now is {piece}, your {} (L10)",
                        quote(text),
                        named,
                        piece.rank().name()
                    ),
                ));
            }
            match explain_field(state, field) {
                Some(refusal) => Err(refusal),
                None => Ok(place_id(field)),
            }
        }
    }
}

/// The piece a placement text names before its `@`: a rank (`Q`), or a
/// seat and a rank (`BQ`).
#[derive(Debug, Clone, Copy)]
enum Named {
    Rank(Rank),
    Piece(PieceId),
}

impl Named {
    fn matches(self, piece: PieceId) -> bool {
        match self {
            Named::Rank(rank) => rank == piece.rank(),
            Named::Piece(named) => named == piece,
        }
    }
}

impl std::fmt::Display for Named {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Named::Rank(rank) => write!(f, "a {}", rank.name()),
            Named::Piece(piece) => write!(f, "{piece}"),
        }
    }
}

/// Reads a placement, `Q@e1`, `BQ@e1` or a bare `e1` (either case, blanks
/// around `@` ignored), as the piece it names, if any, and the field. The
/// error is a notation refusal.
fn read_placement(state: &Position, text: &str) -> Result<(Option<Named>, Field), Refusal> {
    let (piece, name) = match text.split_once('@') {
        Some((piece, name)) => (Some(piece.trim()), name.trim()),
        None => (None, text.trim()),
    };
    let named = match piece {
        None => None,
        Some(word) => Some(read_named(word).ok_or_else(|| {
            Refusal::notation(
                "UNKNOWN_PIECE",
                format!(
                    "`{}` names no piece: write the piece to place as its rank letter before \
                     the field, like `Q@e1` (L13)",
                    quote(word)
                ),
            )
        })?),
    };
    if name.is_empty() {
        return Err(Refusal::notation(
            "NO_FIELD",
            "no field was given: name the empty edge field the piece re-enters on, like `Q@e1` \
             (L10)",
        ));
    }
    let board = state.board();
    let field = board.parse_field(name).ok_or_else(|| {
        let (first, last) = board.name_range();
        Refusal::notation(
            "UNKNOWN_FIELD",
            format!(
                "`{}` is no field of the {}-field board: fields are named {first} to {last}, the \
                 column letter and the place in the column from the north (L13)",
                quote(name),
                board.len()
            ),
        )
    })?;
    Ok((named, field))
}

/// `Q` or `BQ` (either case).
fn read_named(word: &str) -> Option<Named> {
    let mut chars = word.chars();
    match (chars.next(), chars.next(), chars.next()) {
        (Some(rank), None, _) => Rank::from_letter(rank).map(Named::Rank),
        (Some(seat), Some(rank), None) => {
            let player = seat_of_letter(seat)?;
            PieceId::new(player, Rank::from_letter(rank)?).map(Named::Piece)
        }
        _ => None,
    }
}

/// The explanation of `Lanza::explain_refusal` for a text.
pub fn explain_text(state: &Position, player: Player, text: &str) -> Option<Refusal> {
    read_text(state, player, text).err()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use tabletop_sdk::{Attempt, ErrorKind, ExplainRefusal, Game, Setup};

    use super::*;
    use crate::game::Lanza;

    const ORDERS: &str = "turns 0; A Kc2 Qa1 Ja3 chips 0; B Kd1 Qc3 Je3 chips 0; orders";
    /// Seat B (1) places its Queen; c2 is an empty inner field, b1 an edge
    /// field holding AQ, e1 an empty edge field.
    const PLACE: &str = "turns 1; A Kc3 Qb1 Ja2 chips 1; B Kd2 Q- Jd3 chips 0; place BQ";
    const REENTRY: &str = "turns 1; A Kc3 Q- Ja2 chips 3; B Ka1 Q- Jd3 chips 3; reentry AQ BQ";
    const SETUP: &str = "turns 0; A K- Q- J- chips 0; B K- Q- J- chips 0; setup";
    const OVER: &str = "turns 1; A Kc3 Qb1 Ja2 chips 3; B Kd2 Q- Jd3 chips 0; over";
    /// Three players, seat B (1) taken out.
    const OUT: &str = "turns 3; A Ka2 Qb1 Jc1 chips 1; B K- Q- J- chips 1 out 1; \
                       C Ke1 Qa1 Jc2 chips 0; orders";

    fn position(text: &str) -> Position {
        let players = text.split(';').count() as u32 - 2;
        let setup = Setup::validate(&Lanza.manifest(), players, &BTreeMap::new()).unwrap();
        Lanza.parse_position(&setup, text).unwrap()
    }

    /// The reason code of `text` by `player`, checking that `parse_action`
    /// refuses it with the same sentence and kind.
    fn text_code(state: &str, player: Player, text: &str) -> String {
        let state = position(state);
        let refusal = Lanza
            .explain_refusal(&state, player, Attempt::Text(text))
            .unwrap_or_else(|| panic!("`{text}` is legal"));
        assert!(refusal.is_specific(), "{refusal:?}");
        let error = Lanza.parse_action(&state, player, text).unwrap_err();
        assert_eq!(error.message, refusal.message, "`{text}`");
        let kind = match (refusal.notation, turn_refusal(&state, player)) {
            (_, Some(_)) => ErrorKind::NotYourTurn,
            (true, None) => ErrorKind::InvalidNotation,
            (false, None) => ErrorKind::IllegalAction,
        };
        assert_eq!(error.kind, kind, "`{text}`: {}", error.message);
        refusal.reason
    }

    fn id_code(state: &str, player: Player, id: ActionId) -> String {
        let refusal = Lanza
            .explain_refusal(&position(state), player, Attempt::Id(id))
            .unwrap_or_else(|| panic!("action {id} is legal"));
        assert!(!refusal.notation && refusal.is_specific(), "{refusal:?}");
        refusal.reason
    }

    fn field_id(state: &str, name: &str) -> ActionId {
        let state = position(state);
        place_id(state.board().parse_field(name).unwrap())
    }

    #[test]
    fn malformed_orders_get_their_own_codes() {
        assert_eq!(text_code(ORDERS, 0, ""), "NO_ORDERS");
        assert_eq!(text_code(ORDERS, 0, "X2 Q5 J1"), "UNKNOWN_PIECE");
        assert_eq!(text_code(ORDERS, 0, "K7 Q5 J1"), "UNKNOWN_CARD");
        assert_eq!(text_code(ORDERS, 0, "K2Q5J1"), "MISSING_SEPARATOR");
        assert_eq!(text_code(ORDERS, 0, "K2 Q5"), "CARD_MISSING");
        assert_eq!(text_code(ORDERS, 0, "K2 K3 J1"), "TOO_MANY_CARDS");
    }

    #[test]
    fn a_card_given_twice_is_illegal_as_text_and_as_id_ruling_l5() {
        assert_eq!(text_code(ORDERS, 1, "K2 Q2 J1"), "CARD_REPEATED");
        assert_eq!(id_code(ORDERS, 1, 0), "CARD_REPEATED");
        let message = Lanza
            .explain_refusal(&position(ORDERS), 0, Attempt::Id(0))
            .unwrap()
            .message;
        assert_eq!(
            message,
            "card 1 is given to both your King and your Queen: your pieces get different cards \
             (L5)"
        );
    }

    #[test]
    fn placing_while_orders_are_due_and_ordering_while_a_piece_waits_are_refused_ruling_l10() {
        assert_eq!(text_code(ORDERS, 0, "Q@e1"), "PLACING_NOT_NOW");
        assert_eq!(text_code(ORDERS, 0, "e1"), "PLACING_NOT_NOW");
        assert_eq!(
            id_code(ORDERS, 0, field_id(ORDERS, "e1")),
            "PLACING_NOT_NOW"
        );
        assert_eq!(text_code(PLACE, 1, "K2 Q5 J1"), "ORDERS_NOT_NOW");
        assert_eq!(id_code(PLACE, 1, 51), "ORDERS_NOT_NOW");
    }

    #[test]
    fn malformed_placements_get_their_own_codes() {
        assert_eq!(text_code(PLACE, 1, ""), "NO_FIELD");
        assert_eq!(text_code(PLACE, 1, "Q@"), "NO_FIELD");
        assert_eq!(text_code(PLACE, 1, "X@e1"), "UNKNOWN_PIECE");
        assert_eq!(text_code(PLACE, 1, "z9"), "UNKNOWN_FIELD");
        assert_eq!(text_code(PLACE, 1, "Q@c9"), "UNKNOWN_FIELD");
        assert_eq!(text_code(PLACE, 1, "K@e1"), "WRONG_PIECE");
        assert_eq!(text_code(PLACE, 1, "AQ@e1"), "WRONG_PIECE");
    }

    #[test]
    fn a_piece_re_enters_only_on_an_empty_edge_field_ruling_l10() {
        assert_eq!(text_code(PLACE, 1, "Q@c2"), "NOT_AN_EDGE_FIELD");
        assert_eq!(
            id_code(PLACE, 1, field_id(PLACE, "c2")),
            "NOT_AN_EDGE_FIELD"
        );
        assert_eq!(text_code(PLACE, 1, "Q@b1"), "FIELD_TAKEN");
        assert_eq!(id_code(PLACE, 1, field_id(PLACE, "b1")), "FIELD_TAKEN");
        let message = Lanza
            .explain_refusal(&position(PLACE), 1, Attempt::Text("b1"))
            .unwrap()
            .message;
        assert_eq!(
            message,
            "b1 is taken by AQ: a captured piece re-enters on an empty edge field (L10)"
        );
    }

    #[test]
    fn ids_beyond_the_action_space_are_refused() {
        let space = action_space(&position(ORDERS));
        assert_eq!(space, 216 + 19);
        for id in [space, space + 1, u64::MAX] {
            assert_eq!(id_code(ORDERS, 0, id), "OUTSIDE_ACTION_SPACE");
            assert_eq!(id_code(PLACE, 1, id), "OUTSIDE_ACTION_SPACE");
        }
    }

    #[test]
    fn who_may_act_is_explained_with_the_seat_named() {
        assert_eq!(text_code(PLACE, 0, "Q@e1"), "OTHER_SEAT_PLACES");
        let message = Lanza
            .explain_refusal(&position(PLACE), 0, Attempt::Id(field_id(PLACE, "e1")))
            .unwrap()
            .message;
        assert!(message.starts_with("seat 1 (B) places BQ now"), "{message}");
        assert_eq!(text_code(OUT, 1, "K2 Q5 J1"), "SEAT_OUT");
        assert_eq!(id_code(OUT, 1, 51), "SEAT_OUT");
        assert_eq!(text_code(SETUP, 0, "K2 Q5 J1"), "SETUP_NEXT");
        assert_eq!(id_code(REENTRY, 1, 51), "REENTRY_DRAW_NEXT");
        assert_eq!(text_code(OVER, 0, "K2 Q5 J1"), "GAME_OVER");
        assert_eq!(id_code(ORDERS, 2, 51), "NO_SUCH_SEAT");
    }

    #[test]
    fn legal_actions_are_explained_as_nothing_wrong() {
        let orders = position(ORDERS);
        for text in ["K2 Q5 J1", "k2 q5 j1", "K2, Q5, J1"] {
            assert_eq!(explain_text(&orders, 0, text), None, "{text}");
        }
        for &id in Orders::all_ids() {
            assert_eq!(explain_id(&orders, 1, id), None, "{id}");
        }
        let place = position(PLACE);
        for text in ["Q@e1", "e1", "q@E1", "BQ@e1", " Q @ e1 "] {
            assert_eq!(
                read_text(&place, 1, text),
                Ok(field_id(PLACE, "e1")),
                "{text}"
            );
        }
    }

    #[test]
    fn seats_out_of_the_turn_are_refused_as_not_their_turn() {
        let state = position(PLACE);
        let error = Lanza.parse_action(&state, 0, "Q@e1").unwrap_err();
        assert_eq!(error.kind, ErrorKind::NotYourTurn);
        assert!(error.message.contains("seat 1 (B)"), "{}", error.message);
    }
}
