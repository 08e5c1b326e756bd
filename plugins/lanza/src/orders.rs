//! One player's orders for a turn (ruling L5): a different direction card for
//! each of their three pieces, written `K2 Q5 J1` (ruling L13).
//!
//! As an action id, orders are `36·(k−1) + 6·(q−1) + (j−1)` for the cards k,
//! q, j of King, Queen and Jack: ids below [`ORDER_IDS`], of which the 120
//! with three different cards are legal.

use std::fmt;

use tabletop_sdk::Refusal;
use tabletop_sdk::text::quote;

use crate::board::Dir;
use crate::piece::Rank;

/// Order action ids are below this; placement ids start here.
pub const ORDER_IDS: u64 = 216;

/// Cards for a player's King, Queen and Jack, pairwise different.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Orders {
    cards: [Dir; 3],
}

/// Why a text or id is not a valid set of orders: each variant is one reason
/// code of [`OrdersError::refusal`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OrdersError {
    /// The text holds no word at all.
    Empty,
    /// A word does not start with a rank letter K, Q or J (the word).
    UnknownPiece(String),
    /// A word's card is not one of 1–6: `K7`, `Kx`, `K22` (the word).
    UnknownCard(String),
    /// A word goes on after its card: `K2Q5`, `J1.` (the word).
    MissingSeparator(String),
    /// A piece got no card: `K2 Q5`, or a bare `K`.
    CardMissing(Rank),
    /// A piece got two cards or more: `K2 K3 J1`.
    TooManyCards(Rank),
    /// Two pieces got the same card (ruling L5).
    RepeatedCard {
        /// The card given twice.
        card: u8,
        /// The first piece given it, in K Q J order.
        first: Rank,
        /// The second.
        second: Rank,
    },
    /// The id is not an order id.
    BadId(u64),
}

impl OrdersError {
    /// The reason code (see the README's table of reason codes).
    pub fn code(&self) -> &'static str {
        match self {
            OrdersError::Empty => "NO_ORDERS",
            OrdersError::UnknownPiece(_) => "UNKNOWN_PIECE",
            OrdersError::UnknownCard(_) => "UNKNOWN_CARD",
            OrdersError::MissingSeparator(_) => "MISSING_SEPARATOR",
            OrdersError::CardMissing(_) => "CARD_MISSING",
            OrdersError::TooManyCards(_) => "TOO_MANY_CARDS",
            OrdersError::RepeatedCard { .. } => "CARD_REPEATED",
            OrdersError::BadId(_) => "NOT_AN_ORDER",
        }
    }

    /// Whether the text does not read as orders at all (the notation), as
    /// opposed to orders that read but break ruling L5 (or an id).
    pub fn is_notation(&self) -> bool {
        !matches!(
            self,
            OrdersError::RepeatedCard { .. } | OrdersError::BadId(_)
        )
    }

    /// The refusal a player gets: the code and one sentence citing the rule.
    pub fn refusal(&self) -> Refusal {
        if self.is_notation() {
            Refusal::notation(self.code(), self.to_string())
        } else {
            Refusal::illegal(self.code(), self.to_string())
        }
    }
}

impl fmt::Display for OrdersError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OrdersError::Empty => f.write_str(
                "no orders were given: give your King, Queen and Jack a card each, like \
                 `K2 Q5 J1` (L5)",
            ),
            OrdersError::UnknownPiece(word) => write!(
                f,
                "`{}` names no piece: each order starts with K, Q or J for your King, Queen or \
                 Jack, like `K2 Q5 J1` (L13)",
                quote(word)
            ),
            OrdersError::UnknownCard(word) => write!(
                f,
                "`{}` has no card 1 to 6: the direction cards are 1=N 2=NE 3=SE 4=S 5=SW 6=NW \
                 (L1)",
                quote(word)
            ),
            OrdersError::MissingSeparator(word) => write!(
                f,
                "`{}` runs on after its card: write one piece and its card per word, separated \
                 by blanks or commas, like `K2 Q5 J1` (L13)",
                quote(word)
            ),
            OrdersError::CardMissing(rank) => write!(
                f,
                "your {} has no card: every piece on the board gets a card each turn (L5)",
                rank.name()
            ),
            OrdersError::TooManyCards(rank) => write!(
                f,
                "your {} is given more than one card: every piece gets exactly one card each \
                 turn (L5)",
                rank.name()
            ),
            OrdersError::RepeatedCard {
                card,
                first,
                second,
            } => write!(
                f,
                "card {card} is given to both your {} and your {}: your pieces get different \
                 cards (L5)",
                first.name(),
                second.name()
            ),
            OrdersError::BadId(id) => write!(
                f,
                "action {id} is not an order: orders are the ids 0 to {} (L13)",
                ORDER_IDS - 1
            ),
        }
    }
}

impl std::error::Error for OrdersError {}

/// The words of an orders text: blanks and commas separate them, and
/// repeated separators count as one.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
}

/// One word of an orders text, `K2` (either case): its rank and card.
fn parse_word(word: &str) -> Result<(Rank, Dir), OrdersError> {
    let mut chars = word.chars();
    let rank = chars
        .next()
        .and_then(Rank::from_letter)
        .ok_or_else(|| OrdersError::UnknownPiece(word.to_string()))?;
    let rest = chars.as_str();
    let mut digits = rest.chars();
    let card = match (digits.next(), digits.next()) {
        (None, _) => return Err(OrdersError::CardMissing(rank)),
        (Some(digit), next) => {
            let card = digit.to_digit(10).and_then(|d| Dir::new(d as u8));
            match (card, next) {
                (Some(card), None) => card,
                // `K2Q5`, `J1.`: a card, then something that is no digit.
                (Some(_), Some(c)) if !c.is_ascii_digit() => {
                    return Err(OrdersError::MissingSeparator(word.to_string()));
                }
                _ => return Err(OrdersError::UnknownCard(word.to_string())),
            }
        }
    };
    Ok((rank, card))
}

impl Orders {
    /// Orders giving `cards` to King, Queen and Jack; refused if two cards repeat.
    pub fn new(king: Dir, queen: Dir, jack: Dir) -> Result<Orders, OrdersError> {
        let cards = [king, queen, jack];
        for (i, j) in [(0, 1), (0, 2), (1, 2)] {
            if cards[i] == cards[j] {
                return Err(OrdersError::RepeatedCard {
                    card: cards[i].card(),
                    first: Rank::ALL[i],
                    second: Rank::ALL[j],
                });
            }
        }
        Ok(Orders { cards })
    }

    /// The card of the piece of rank `rank`.
    pub fn card(&self, rank: Rank) -> Dir {
        self.cards[rank as usize]
    }

    /// The action id (see the module docs).
    pub fn id(&self) -> u64 {
        let [k, q, j] = self.cards.map(|d| u64::from(d.card() - 1));
        36 * k + 6 * q + j
    }

    /// The orders of action id `id`.
    pub fn from_id(id: u64) -> Result<Orders, OrdersError> {
        if id >= ORDER_IDS {
            return Err(OrdersError::BadId(id));
        }
        let card = |n: u64| Dir::new((n % 6) as u8 + 1).ok_or(OrdersError::BadId(id));
        Orders::new(card(id / 36)?, card(id / 6)?, card(id)?)
    }

    /// All 120 legal order ids, ascending.
    pub fn all_ids() -> &'static [u64] {
        static IDS: std::sync::OnceLock<Vec<u64>> = std::sync::OnceLock::new();
        IDS.get_or_init(|| {
            (0..ORDER_IDS)
                .filter(|&id| Orders::from_id(id).is_ok())
                .collect()
        })
    }

    /// Reads `K2 Q5 J1`: one word per piece, a rank letter and a card, in
    /// any order and either case, separated by blanks or commas. The first
    /// problem found is the error: a bad word (left to right), then a piece
    /// given two cards, a piece given none, and last a card given twice.
    pub fn parse(text: &str) -> Result<Orders, OrdersError> {
        let mut cards: [Option<Dir>; 3] = [None; 3];
        let mut any = false;
        for word in words(text) {
            any = true;
            let (rank, card) = parse_word(word)?;
            let slot = &mut cards[rank as usize];
            if slot.is_some() {
                return Err(OrdersError::TooManyCards(rank));
            }
            *slot = Some(card);
        }
        if !any {
            return Err(OrdersError::Empty);
        }
        match cards {
            [Some(k), Some(q), Some(j)] => Orders::new(k, q, j),
            _ => {
                let missing = Rank::ALL
                    .into_iter()
                    .find(|&r| cards[r as usize].is_none())
                    .unwrap_or(Rank::King);
                Err(OrdersError::CardMissing(missing))
            }
        }
    }

    /// Whether `text` reads as orders, whatever its cards: every word a
    /// piece and a card. A placement phase uses it to tell orders sent at
    /// the wrong time from a text that is nothing at all.
    pub fn looks_like_orders(text: &str) -> bool {
        let mut any = false;
        for word in words(text) {
            any = true;
            if parse_word(word).is_err() {
                return false;
            }
        }
        any
    }
}

impl Orders {
    /// The orders as text, `K2 Q5 J1` (what `Display` writes), built
    /// without `core::fmt`: a ListLegalActions with notation writes up to
    /// 120 of them, and the formatting machinery would cost as much again
    /// as the rest of that answer.
    pub fn notation(&self) -> String {
        let [k, q, j] = self.cards.map(Dir::digit);
        ['K', k, ' ', 'Q', q, ' ', 'J', j].into_iter().collect()
    }
}

impl fmt::Display for Orders {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.notation())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_120_orders_ruling_l5() {
        assert_eq!(Orders::all_ids().len(), 6 * 5 * 4);
        assert!(Orders::all_ids().windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn ids_and_text_round_trip() {
        for &id in Orders::all_ids() {
            let orders = Orders::from_id(id).unwrap();
            assert_eq!(orders.id(), id);
            assert_eq!(Orders::parse(&orders.to_string()), Ok(orders));
        }
    }

    #[test]
    fn notation_is_the_display_form_of_every_order() {
        for &id in Orders::all_ids() {
            let orders = Orders::from_id(id).unwrap();
            let [k, q, j] = orders.cards.map(Dir::card);
            assert_eq!(orders.notation(), format!("K{k} Q{q} J{j}"));
            assert_eq!(orders.to_string(), orders.notation());
        }
    }

    #[test]
    fn parses_the_rule_example_in_any_token_order() {
        let a = Orders::parse("K2 Q5 J1").unwrap();
        assert_eq!(Orders::parse("J1  K2 Q5"), Ok(a));
        assert_eq!(a.card(Rank::Queen).card(), 5);
    }

    #[test]
    fn blanks_commas_and_case_do_not_matter() {
        let a = Orders::parse("K2 Q5 J1").unwrap();
        for same in [
            "k2 q5 j1",
            "  K2   Q5\tJ1  ",
            "K2,Q5,J1",
            "K2, Q5, J1",
            "j1,k2 , Q5",
            ",K2 Q5 J1,",
        ] {
            assert_eq!(Orders::parse(same), Ok(a), "{same}");
        }
    }

    /// The code each malformed or illegal orders text is refused with.
    fn code(text: &str) -> &'static str {
        Orders::parse(text).unwrap_err().code()
    }

    #[test]
    fn each_bad_orders_text_gets_its_own_reason() {
        assert_eq!(code(""), "NO_ORDERS");
        assert_eq!(code(" , "), "NO_ORDERS");
        assert_eq!(code("X2 Q5 J1"), "UNKNOWN_PIECE");
        assert_eq!(code("2 Q5 J1"), "UNKNOWN_PIECE");
        for bad_card in ["K7 Q5 J1", "K0 Q5 J1", "Kx Q5 J1", "K22 Q5 J1", "K-2 Q5 J1"] {
            assert_eq!(code(bad_card), "UNKNOWN_CARD", "{bad_card}");
        }
        assert_eq!(code("K2Q5J1"), "MISSING_SEPARATOR");
        assert_eq!(code("K2;Q5;J1"), "MISSING_SEPARATOR");
        assert_eq!(code("K2 Q5 J1."), "MISSING_SEPARATOR");
        assert_eq!(code("K2 Q5"), "CARD_MISSING");
        assert_eq!(code("K Q5 J1"), "CARD_MISSING");
        assert_eq!(code("K2 K3 J1"), "TOO_MANY_CARDS");
        assert_eq!(code("K2 Q5 J1 K3"), "TOO_MANY_CARDS");
        assert_eq!(code("K2 Q2 J1"), "CARD_REPEATED");
        assert_eq!(
            Orders::parse("K2 Q5 J5"),
            Err(OrdersError::RepeatedCard {
                card: 5,
                first: Rank::Queen,
                second: Rank::Jack
            })
        );
        assert!(!Orders::parse("K2 Q2 J1").unwrap_err().refusal().notation);
        assert!(Orders::parse("K2 Q5").unwrap_err().refusal().notation);
        assert_eq!(
            Orders::parse("K2 Q5").unwrap_err().to_string(),
            "your Jack has no card: every piece on the board gets a card each turn (L5)"
        );
        assert_eq!(Orders::from_id(0).unwrap_err().code(), "CARD_REPEATED");
        assert_eq!(
            Orders::from_id(ORDER_IDS).unwrap_err().code(),
            "NOT_AN_ORDER"
        );
    }

    #[test]
    fn a_long_word_is_quoted_in_part() {
        let long = "x".repeat(5_000);
        let message = Orders::parse(&long).unwrap_err().to_string();
        assert!(message.len() < 400, "{message}");
    }

    #[test]
    fn orders_are_recognised_whatever_their_cards() {
        assert!(Orders::looks_like_orders("K2 Q2"));
        assert!(Orders::looks_like_orders("k1"));
        assert!(!Orders::looks_like_orders("e1"));
        assert!(!Orders::looks_like_orders(""));
    }
}
