//! One player's orders for a turn (ruling L5): a different direction card for
//! each of their three pieces, written `K2 Q5 J1` (ruling L13).
//!
//! As an action id, orders are `36·(k−1) + 6·(q−1) + (j−1)` for the cards k,
//! q, j of King, Queen and Jack: ids below [`ORDER_IDS`], of which the 120
//! with three different cards are legal.

use std::fmt;

use crate::board::Dir;
use crate::piece::Rank;

/// Order action ids are below this; placement ids start here.
pub const ORDER_IDS: u64 = 216;

/// Cards for a player's King, Queen and Jack, pairwise different.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Orders {
    cards: [Dir; 3],
}

/// Why a text or id is not a valid set of orders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OrdersError {
    /// The text is not three `<rank><card>` tokens.
    Syntax(String),
    /// Two pieces got the same card (ruling L5).
    RepeatedCard(u8),
    /// A piece got no card or two cards.
    PieceNotOnce(char),
    /// The id is not an order id.
    BadId(u64),
}

impl fmt::Display for OrdersError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OrdersError::Syntax(t) => write!(
                f,
                "`{t}` is not an order: write a card 1-6 for each piece, like `K2 Q5 J1`"
            ),
            OrdersError::RepeatedCard(c) => {
                write!(
                    f,
                    "card {c} is given twice: each piece needs a different card (ruling L5)"
                )
            }
            OrdersError::PieceNotOnce(r) => write!(f, "piece {r} needs exactly one card"),
            OrdersError::BadId(id) => write!(f, "action {id} is not an order"),
        }
    }
}

impl std::error::Error for OrdersError {}

impl Orders {
    /// Orders giving `cards` to King, Queen and Jack; refused if two cards repeat.
    pub fn new(king: Dir, queen: Dir, jack: Dir) -> Result<Orders, OrdersError> {
        if king == queen || king == jack {
            return Err(OrdersError::RepeatedCard(king.card()));
        }
        if queen == jack {
            return Err(OrdersError::RepeatedCard(queen.card()));
        }
        Ok(Orders {
            cards: [king, queen, jack],
        })
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

    /// Reads `K2 Q5 J1`: three tokens in any order, each a rank letter and a card.
    pub fn parse(text: &str) -> Result<Orders, OrdersError> {
        let mut cards: [Option<Dir>; 3] = [None; 3];
        let tokens: Vec<&str> = text.split_whitespace().collect();
        if tokens.len() != 3 {
            return Err(OrdersError::Syntax(text.to_string()));
        }
        for token in tokens {
            let mut chars = token.chars();
            let (Some(letter), Some(digit), None) = (chars.next(), chars.next(), chars.next())
            else {
                return Err(OrdersError::Syntax(text.to_string()));
            };
            let rank =
                Rank::from_letter(letter).ok_or_else(|| OrdersError::Syntax(text.to_string()))?;
            let card = digit
                .to_digit(10)
                .and_then(|d| Dir::new(d as u8))
                .ok_or_else(|| OrdersError::Syntax(text.to_string()))?;
            let slot = &mut cards[rank as usize];
            if slot.is_some() {
                return Err(OrdersError::PieceNotOnce(letter));
            }
            *slot = Some(card);
        }
        match cards {
            [Some(k), Some(q), Some(j)] => Orders::new(k, q, j),
            _ => Err(OrdersError::Syntax(text.to_string())),
        }
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
    fn refuses_bad_orders() {
        assert_eq!(Orders::parse("K2 Q2 J1"), Err(OrdersError::RepeatedCard(2)));
        assert_eq!(
            Orders::parse("K2 K3 J1"),
            Err(OrdersError::PieceNotOnce('K'))
        );
        for bad in [
            "",
            "K2 Q5",
            "K7 Q5 J1",
            "K0 Q5 J1",
            "X2 Q5 J1",
            "K2 Q5 J1 K3",
            "K22 Q5 J1",
        ] {
            assert!(Orders::parse(bad).is_err(), "{bad}");
        }
        assert!(Orders::from_id(0).is_err(), "K1 Q1 J1 repeats a card");
        assert!(Orders::from_id(ORDER_IDS).is_err());
    }
}
