//! Position texts (F11) as a user pastes them: a text for another player
//! count is refused as that first, a bad part is quoted (in part), and
//! every example position in the README starts a match.

use focus::{Focus, Position, Rules, write_position};
use tabletop_sdk::conformance::check_readme_positions;
use tabletop_sdk::{DynGame, ErrorKind, InProcess};

use crate::support::options;

fn start_text(players: u32) -> String {
    write_position(&Position::start(Rules::standard(players).unwrap()).to_raw())
}

/// The message refusing `text` in a `players`-player match.
fn refusal(players: u32, text: &str) -> String {
    let error = InProcess::new(Focus)
        .new_state(players, &options(&[]), Some(text))
        .err()
        .unwrap_or_else(|| panic!("accepted for {players} players: {text}"));
    assert_eq!(error.kind, ErrorKind::InvalidPosition, "{}", error.message);
    error.message
}

#[test]
fn a_position_for_another_player_count_is_refused_as_that_first() {
    for (written, players) in [(2, 4), (2, 3), (3, 2), (3, 4), (4, 2), (4, 3)] {
        let message = refusal(players, &start_text(written));
        assert!(
            message.contains(&format!(
                "this position is for {written} players; the match has {players}"
            )),
            "{written} in {players}: {message}"
        );
    }
    // Without the count fields, the board tells: all 36 pieces of F2.
    let board_only = start_text(2).split(' ').next().unwrap().to_string() + " 1";
    let message = refusal(3, &board_only);
    assert!(
        message.contains("this position is for 2 players; the match has 3"),
        "{message}"
    );
    // A piece of a player the match lacks.
    let with_p3 = board_only.replacen('2', "3", 1);
    let message = refusal(2, &with_p3);
    assert!(
        message.contains("pieces of P3, so it is for at least 3 players; the match has 2"),
        "{message}"
    );
}

#[test]
fn a_bad_field_is_named_and_quoted_in_part() {
    let start = start_text(2);
    let message = refusal(2, &format!("{start} {}=1", "k".repeat(5_000)));
    assert!(message.contains("unknown field"), "{message}");
    assert!(message.len() < 300, "{}", message.len());
    let message = refusal(2, &start.replace("reserves=0,0", "reserves=0,x"));
    assert!(
        message.contains("`x` in `reserves` is not a count"),
        "{message}"
    );
    // Counts come after the form: 17 R pieces.
    let message = refusal(2, &start.replacen(",1,", ",.,", 1));
    assert!(
        message.contains("seat 0 (P1) has 17 on the board, 0 in reserve and 0 captured"),
        "{message}"
    );
}

#[test]
fn every_example_position_in_the_readme_starts_a_match() {
    let game = InProcess::new(Focus);
    let count = check_readme_positions(&game, include_str!("../README.md"))
        .unwrap_or_else(|failure| panic!("{failure}"));
    assert!(count >= 3, "the README shows {count} example positions");
}
