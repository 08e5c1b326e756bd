//! The example positions of a game's README, read back: a README shows a
//! position in a fenced code block whose info string is `position`,
//! optionally followed by `players=N` and the match's options
//! (`` ```position players=4 rail_tiles=5 ``), and every such block must
//! parse, so an example never drifts from the notation.

use std::collections::BTreeMap;

use super::Failure;
use crate::dynamic::DynGame;

/// One example position of a README.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadmePosition {
    /// The line of the opening fence, from 1.
    pub line: usize,
    /// `players=N`, if the block says.
    pub players: Option<u32>,
    /// The other `name=value` words of the info string.
    pub options: BTreeMap<String, String>,
    /// The block's text.
    pub text: String,
}

/// Every example position in `markdown`, in order.
///
/// ````
/// let readme = "Start:\n\n```position players=2\nab\ncd\n```\n";
/// let found = tabletop_sdk::conformance::readme_positions(readme);
/// assert_eq!(found.len(), 1);
/// assert_eq!(found[0].players, Some(2));
/// assert_eq!(found[0].text, "ab\ncd");
/// ````
pub fn readme_positions(markdown: &str) -> Vec<ReadmePosition> {
    let mut found = Vec::new();
    let mut open: Option<ReadmePosition> = None;
    let mut lines: Vec<&str> = Vec::new();
    let mut in_other_block = false;
    for (index, line) in markdown.lines().enumerate() {
        let fence = line.trim_start().strip_prefix("```");
        match (&mut open, fence) {
            (Some(_), Some("")) => {
                let mut position = open.take().expect("a block is open");
                position.text = lines.join("\n");
                lines.clear();
                found.push(position);
            }
            (Some(_), _) => lines.push(line),
            (None, Some(_)) if in_other_block => in_other_block = false,
            (None, Some(info)) => {
                let mut words = info.split_whitespace();
                if words.next() == Some("position") {
                    let mut position = ReadmePosition {
                        line: index + 1,
                        players: None,
                        options: BTreeMap::new(),
                        text: String::new(),
                    };
                    for word in words {
                        let (name, value) = word.split_once('=').unwrap_or((word, ""));
                        match (name, value.parse()) {
                            ("players", Ok(n)) => position.players = Some(n),
                            _ => {
                                position.options.insert(name.into(), value.into());
                            }
                        }
                    }
                    open = Some(position);
                } else {
                    in_other_block = true;
                }
            }
            (None, None) => {}
        }
    }
    found
}

/// Starts a match of `game` from every example position in `markdown`
/// (with its `players`, else the fewest the game allows, and its options)
/// and returns how many there were; fails naming the first that does not
/// parse.
pub fn check_readme_positions(game: &dyn DynGame, markdown: &str) -> Result<usize, Failure> {
    let positions = readme_positions(markdown);
    for position in &positions {
        let players = position.players.unwrap_or(game.manifest().min_players);
        if let Err(e) = game.new_state(players, &position.options, Some(&position.text)) {
            return Err(Failure::new(
                "readme",
                format!(
                    "{}: the README's example position at line {} ({players} players, options \
                     {:?}) does not parse: {}",
                    game.manifest().name,
                    position.line,
                    position.options,
                    e.message
                ),
            ));
        }
    }
    Ok(positions.len())
}
