//! Bot specs: the short texts that name a bot and its settings, as a
//! match's seat, a record and the arena write them.
//!
//! ```text
//! random                 a uniformly random legal action
//! mcts                   the search with its defaults (1000 iterations)
//! mcts:2000              2000 iterations per move
//! mcts:500ms             half a second per move (also `2s`)
//! mcts:500ms:depth=40    playouts cut off after 40 transitions (default 20)
//! mcts:2000:c=1.2        exploration constant of UCB (default 0.7)
//! ```

use std::fmt;
use std::time::Duration;

/// How long the search may think about one move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// This many iterations: reproducible for a given seed.
    Iterations(u64),
    /// This much wall-clock time: as many iterations as fit.
    Time(Duration),
}

/// The search's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MctsConfig {
    /// How long to think.
    pub budget: Budget,
    /// Transitions (moves and chance outcomes) a playout plays beyond the
    /// tree before it is cut off and scored by the game's evaluation.
    pub playout_depth: u32,
    /// The exploration constant `c` of UCB1: an arm's mean plus
    /// `c * sqrt(ln(available) / visits)`.
    pub exploration: f64,
    /// At most this many tree nodes; once the tree is that large it stops
    /// growing and the iterations go on through it.
    pub max_nodes: usize,
}

impl MctsConfig {
    /// The defaults: 1000 iterations, playouts cut after 20 transitions,
    /// `c` = 0.7, at most 1,000,000 nodes.
    pub const DEFAULT: MctsConfig = MctsConfig {
        budget: Budget::Iterations(1000),
        playout_depth: 20,
        exploration: 0.7,
        max_nodes: 1_000_000,
    };
}

impl Default for MctsConfig {
    fn default() -> Self {
        MctsConfig::DEFAULT
    }
}

/// A bot spec that does not parse: the message says what is expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError(pub String);

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SpecError {}

/// The most iterations a spec may ask for.
const MAX_ITERATIONS: u64 = 100_000_000;
/// The longest a spec may think per move.
const MAX_TIME: Duration = Duration::from_secs(600);
/// The deepest playout a spec may ask for.
const MAX_DEPTH: u32 = 100_000;

const USAGE: &str = "a bot is `random` or `mcts[:BUDGET][:depth=N][:c=X]`, BUDGET being \
                     iterations (`mcts:2000`) or time (`mcts:500ms`, `mcts:2s`)";

/// Reads the settings after `mcts`: `rest` is what follows `mcts:`.
pub(crate) fn parse_mcts(rest: &str) -> Result<MctsConfig, SpecError> {
    let mut config = MctsConfig::DEFAULT;
    let bad = |what: String| SpecError(format!("{what}; {USAGE}"));
    for (i, part) in rest.split(':').enumerate() {
        if let Some(depth) = part.strip_prefix("depth=") {
            config.playout_depth = depth
                .parse()
                .ok()
                .filter(|d| (1..=MAX_DEPTH).contains(d))
                .ok_or_else(|| bad(format!("`depth={depth}` is not a depth 1..={MAX_DEPTH}")))?;
        } else if let Some(c) = part.strip_prefix("c=") {
            config.exploration = c
                .parse()
                .ok()
                .filter(|c: &f64| c.is_finite() && (0.0..=100.0).contains(c))
                .ok_or_else(|| bad(format!("`c={c}` is not a number 0..=100")))?;
        } else if i == 0 {
            config.budget = parse_budget(part).map_err(bad)?;
        } else {
            return Err(bad(format!("`{part}` is not a setting of mcts")));
        }
    }
    Ok(config)
}

fn parse_budget(text: &str) -> Result<Budget, String> {
    let time = |digits: &str, unit: Duration| -> Result<Budget, String> {
        let n: u32 = digits
            .parse()
            .map_err(|_| format!("`{text}` is not a budget"))?;
        let time = unit * n;
        if time.is_zero() || time > MAX_TIME {
            return Err(format!("`{text}`: a time budget is 1ms to 600s"));
        }
        Ok(Budget::Time(time))
    };
    if let Some(ms) = text.strip_suffix("ms") {
        return time(ms, Duration::from_millis(1));
    }
    if let Some(s) = text.strip_suffix('s') {
        return time(s, Duration::from_secs(1));
    }
    match text.parse::<u64>() {
        Ok(n) if (1..=MAX_ITERATIONS).contains(&n) => Ok(Budget::Iterations(n)),
        Ok(_) => Err(format!(
            "`{text}`: an iteration budget is 1 to {MAX_ITERATIONS}"
        )),
        Err(_) => Err(format!("`{text}` is not a budget")),
    }
}

/// The spec text of `config`, which [`parse_mcts`] reads back: only the
/// settings that differ from the defaults after the budget.
pub(crate) fn write_mcts(config: &MctsConfig) -> String {
    let mut text = match config.budget {
        Budget::Iterations(n) => format!("mcts:{n}"),
        Budget::Time(t) if t.subsec_millis() == 0 && t.as_secs() > 0 => {
            format!("mcts:{}s", t.as_secs())
        }
        Budget::Time(t) => format!("mcts:{}ms", t.as_millis()),
    };
    if config.playout_depth != MctsConfig::DEFAULT.playout_depth {
        text.push_str(&format!(":depth={}", config.playout_depth));
    }
    if config.exploration != MctsConfig::DEFAULT.exploration {
        text.push_str(&format!(":c={}", config.exploration));
    }
    text
}

/// The usage line, for a spec that names no bot.
pub(crate) fn unknown(spec: &str) -> SpecError {
    SpecError(format!("unknown bot `{spec}`: {USAGE}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_are_iterations_or_time() {
        assert_eq!(parse_mcts("2000").unwrap().budget, Budget::Iterations(2000));
        assert_eq!(
            parse_mcts("500ms").unwrap().budget,
            Budget::Time(Duration::from_millis(500))
        );
        assert_eq!(
            parse_mcts("2s").unwrap().budget,
            Budget::Time(Duration::from_secs(2))
        );
    }

    #[test]
    fn settings_follow_the_budget_and_write_back() {
        let config = parse_mcts("300ms:depth=40:c=1.5").unwrap();
        assert_eq!(config.playout_depth, 40);
        assert_eq!(config.exploration, 1.5);
        assert_eq!(write_mcts(&config), "mcts:300ms:depth=40:c=1.5");
        assert_eq!(write_mcts(&parse_mcts("2000").unwrap()), "mcts:2000");
        assert_eq!(write_mcts(&parse_mcts("1000ms").unwrap()), "mcts:1s");
    }

    #[test]
    fn bad_settings_are_refused_saying_what_is_expected() {
        for bad in [
            "0",
            "-5",
            "1.5",
            "0ms",
            "601s",
            "fast",
            "500ms:depth=0",
            "2000:c=-1",
            "2000:c=nan",
            "2000:500ms",
            "2000:turbo=1",
            "",
        ] {
            let error = parse_mcts(bad).unwrap_err();
            assert!(error.0.contains("a bot is `random`"), "`{bad}`: {error}");
        }
    }
}
