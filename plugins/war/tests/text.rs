//! Seat names and the terminal board: South is seat 0 and North seat 1,
//! every sentence names a seat as `seat 0 (South)`, and the board carries
//! file letters and rank numbers as the notation writes points.

use std::collections::BTreeMap;

use tabletop_sdk::{DynGame, Viewer};

use crate::support::{FILLERS, game, position, position_with};

#[test]
fn w3_south_is_seat_0_and_north_seat_1() {
    assert_eq!(game().seat_names(2).unwrap(), ["South", "North"]);
}

#[test]
fn render_text_names_seats_as_the_api_and_the_game_do() {
    let setup = game().new_state(2, &BTreeMap::new(), None).unwrap();
    let text = setup.render_text(Viewer::Spectator).unwrap();
    assert!(text.contains("setup: seat 0 (South) places on 1"), "{text}");
    let play = position_with(
        "north",
        &format!("I@d4 {FILLERS}"),
        "tiles #d5-d6:south =c5-d5:north\nhand south 0 3 north 1 2",
    );
    let text = play.render_text(Viewer::Spectator).unwrap();
    assert!(text.contains("move 1: seat 1 (North) to move"), "{text}");
    assert!(
        text.contains("seat 0 (South): 4 units, hand 0 entrenchment 3 railway, tiles: #d5-d6"),
        "{text}"
    );
    assert!(
        text.contains("seat 1 (North): 3 units, hand 1 entrenchment 2 railway, tiles: =c5-d5"),
        "{text}"
    );
}

#[test]
fn the_terminal_board_has_file_letters_and_rank_numbers() {
    let state = position("south", "C@d4 i@f8");
    let text = state.render_text(Viewer::Spectator).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let files = "    a   b   c   d   e   f   g";
    assert_eq!(lines[0], files, "{text}");
    assert_eq!(lines[24], files, "{text}");
    // Rank 12 on top, rank 1 at the bottom, numbered on both sides.
    assert!(
        lines[1].starts_with(" 12 ") && lines[1].ends_with(" 12"),
        "{text}"
    );
    assert!(
        lines[23].starts_with("  1 ") && lines[23].ends_with(" 1"),
        "{text}"
    );
    // The unit on d4 sits under the letter d, on the line of rank 4.
    let rank4 = lines.iter().find(|l| l.starts_with("  4 ")).unwrap();
    let d = files.find('d').unwrap();
    assert_eq!(rank4.chars().nth(d), Some('C'), "{text}");
    assert!(rank4.ends_with(" 4"), "{rank4}");
    let rank8 = lines.iter().find(|l| l.starts_with("  8 ")).unwrap();
    assert_eq!(rank8.chars().nth(files.find('f').unwrap()), Some('i'));
    assert!(lines.iter().all(|l| l.chars().count() <= 80));
}

#[test]
fn a_board_whose_labels_are_not_files_and_ranks_gets_no_wrong_margin_names() {
    // The default board with two points renamed: their column and row
    // lose their margin names, the others keep theirs.
    let doc = war::board::DEFAULT_BOARD
        .replace(" d4 ", " mid ")
        .replace(" d4\n", " mid\n");
    let state = game()
        .new_state(2, &crate::support::options(&[("board", &doc)]), None)
        .unwrap_or_else(|e| panic!("{}", e.message));
    let text = state.render_text(Viewer::Spectator).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "    a   b   c       e   f   g", "{text}");
    assert!(lines.iter().any(|l| l.starts_with("    .")), "{text}");
}
