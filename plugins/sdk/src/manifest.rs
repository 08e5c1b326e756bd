//! What a game says about itself, and the validated options a match starts with.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::GameError;

/// A game's description: everything the catalog shows and the host needs
/// before it creates a state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// The game's name, lowercase ASCII (`focus`); the registry key.
    pub name: String,
    /// The plugin's version, semver (`1.2.0`).
    pub version: String,
    /// Fewest seats.
    pub min_players: u32,
    /// Most seats (at most [`crate::PlayerSet::MAX_PLAYERS`]).
    pub max_players: u32,
    /// Every option the game accepts, with its type, default and meaning.
    pub options: Vec<OptionSpec>,
    /// A short rules summary for people (Markdown).
    pub rules_summary: String,
    /// Whether several players may be to move at once (secret simultaneous orders).
    pub simultaneous: bool,
    /// Whether a state holds information some viewer may not see.
    pub hidden_information: bool,
    /// Whether the game has chance nodes.
    pub chance: bool,
    /// Whether [`RemovePlayer::remove_player`](crate::RemovePlayer::remove_player) can take a
    /// player out of a running game while the others play on (the host's
    /// `out` timeout). Absent in manifests of older plugins: `false`.
    #[serde(default)]
    pub removable_players: bool,
}

impl Manifest {
    /// The spec of option `name`.
    pub fn option(&self, name: &str) -> Option<&OptionSpec> {
        self.options.iter().find(|o| o.name == name)
    }
}

/// `MAJOR.MINOR.PATCH` of a manifest's version as numbers, for ordering
/// versions (`1.10.0` > `1.9.0`); `None` when it is not semver.
///
/// ```
/// assert_eq!(tabletop_sdk::parse_version("1.10.0-rc1"), Some((1, 10, 0)));
/// assert_eq!(tabletop_sdk::parse_version("1.10"), None);
/// ```
pub fn parse_version(version: &str) -> Option<(u64, u64, u64)> {
    let core = version.split(['-', '+']).next()?;
    let mut parts = core.split('.').map(|p| p.parse::<u64>().ok());
    let v = (parts.next()??, parts.next()??, parts.next()??);
    parts.next().is_none().then_some(v)
}

/// One option a match can be created with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OptionSpec {
    /// The key (`max_turns`).
    pub name: String,
    /// What values it takes.
    pub kind: OptionKind,
    /// The value used when the option is not given.
    pub default: OptionValue,
    /// One or two sentences for people.
    pub description: String,
}

/// The type of an option's value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum OptionKind {
    /// An integer in `min..=max`.
    Int {
        /// Smallest allowed value.
        min: i64,
        /// Largest allowed value.
        max: i64,
    },
    /// `true` or `false`.
    Bool,
    /// One of a fixed list of words.
    Choice(Vec<String>),
    /// Any text (a whole board document, say).
    Text,
}

impl OptionKind {
    /// A short name of the type for catalogs and error messages.
    pub fn type_name(&self) -> String {
        match self {
            OptionKind::Int { min, max } => format!("integer {min}..{max}"),
            OptionKind::Bool => "boolean".to_string(),
            OptionKind::Choice(values) => format!("one of {}", values.join(" | ")),
            OptionKind::Text => "text".to_string(),
        }
    }
}

/// A typed option value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum OptionValue {
    /// For [`OptionKind::Int`].
    Int(i64),
    /// For [`OptionKind::Bool`].
    Bool(bool),
    /// For [`OptionKind::Choice`] and [`OptionKind::Text`].
    Text(String),
}

impl OptionValue {
    /// The value as people write it (`300`, `true`, `penalty`).
    pub fn to_text(&self) -> String {
        match self {
            OptionValue::Int(v) => v.to_string(),
            OptionValue::Bool(v) => v.to_string(),
            OptionValue::Text(v) => v.clone(),
        }
    }
}

impl OptionSpec {
    /// An integer option.
    pub fn int(name: &str, min: i64, max: i64, default: i64, description: &str) -> OptionSpec {
        OptionSpec {
            name: name.to_string(),
            kind: OptionKind::Int { min, max },
            default: OptionValue::Int(default),
            description: description.to_string(),
        }
    }

    /// A boolean option.
    pub fn bool(name: &str, default: bool, description: &str) -> OptionSpec {
        OptionSpec {
            name: name.to_string(),
            kind: OptionKind::Bool,
            default: OptionValue::Bool(default),
            description: description.to_string(),
        }
    }

    /// A choice among words.
    pub fn choice(name: &str, values: &[&str], default: &str, description: &str) -> OptionSpec {
        OptionSpec {
            name: name.to_string(),
            kind: OptionKind::Choice(values.iter().map(|v| v.to_string()).collect()),
            default: OptionValue::Text(default.to_string()),
            description: description.to_string(),
        }
    }

    /// A free-text option.
    pub fn text(name: &str, default: &str, description: &str) -> OptionSpec {
        OptionSpec {
            name: name.to_string(),
            kind: OptionKind::Text,
            default: OptionValue::Text(default.to_string()),
            description: description.to_string(),
        }
    }

    /// Parses `text` as a value of this option, or says clearly why not.
    pub fn parse(&self, text: &str) -> Result<OptionValue, GameError> {
        let name = &self.name;
        match &self.kind {
            OptionKind::Int { min, max } => {
                let value: i64 = text.trim().parse().map_err(|_| {
                    GameError::invalid_option(format!(
                        "option `{name}` must be an integer, got `{text}`"
                    ))
                })?;
                if value < *min || value > *max {
                    return Err(GameError::invalid_option(format!(
                        "option `{name}` must be between {min} and {max}, got {value}"
                    )));
                }
                Ok(OptionValue::Int(value))
            }
            OptionKind::Bool => match text.trim() {
                "true" | "on" | "yes" | "1" => Ok(OptionValue::Bool(true)),
                "false" | "off" | "no" | "0" => Ok(OptionValue::Bool(false)),
                _ => Err(GameError::invalid_option(format!(
                    "option `{name}` must be true or false, got `{text}`"
                ))),
            },
            OptionKind::Choice(values) => {
                if values.iter().any(|v| v == text.trim()) {
                    Ok(OptionValue::Text(text.trim().to_string()))
                } else {
                    Err(GameError::invalid_option(format!(
                        "option `{name}` must be one of {}, got `{text}`",
                        values.join(", ")
                    )))
                }
            }
            OptionKind::Text => Ok(OptionValue::Text(text.to_string())),
        }
    }
}

/// The options of one match after validation: every option of the manifest is
/// present, with its default where it was not given.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Options(BTreeMap<String, OptionValue>);

impl Options {
    /// Validates raw `name = text` pairs against `manifest`: unknown names, wrong
    /// types and out-of-range values are refused with a message naming the option.
    pub fn validate(
        manifest: &Manifest,
        raw: &BTreeMap<String, String>,
    ) -> Result<Options, GameError> {
        for name in raw.keys() {
            if manifest.option(name).is_none() {
                let known: Vec<&str> = manifest.options.iter().map(|o| o.name.as_str()).collect();
                return Err(GameError::invalid_option(format!(
                    "unknown option `{name}` for {} (known: {})",
                    manifest.name,
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                )));
            }
        }
        let mut values = BTreeMap::new();
        for spec in &manifest.options {
            let value = match raw.get(&spec.name) {
                Some(text) => spec.parse(text)?,
                None => spec.default.clone(),
            };
            values.insert(spec.name.clone(), value);
        }
        Ok(Options(values))
    }

    /// The integer option `name`. Panics if the manifest declares no such
    /// integer option: that is a bug in the game, not bad input.
    pub fn int(&self, name: &str) -> i64 {
        match self.0.get(name) {
            Some(OptionValue::Int(v)) => *v,
            other => panic!("option `{name}` is not an integer option: {other:?}"),
        }
    }

    /// The boolean option `name` (panics like [`Options::int`]).
    pub fn bool(&self, name: &str) -> bool {
        match self.0.get(name) {
            Some(OptionValue::Bool(v)) => *v,
            other => panic!("option `{name}` is not a boolean option: {other:?}"),
        }
    }

    /// The choice or text option `name` (panics like [`Options::int`]).
    pub fn text(&self, name: &str) -> &str {
        match self.0.get(name) {
            Some(OptionValue::Text(v)) => v,
            other => panic!("option `{name}` is not a text option: {other:?}"),
        }
    }

    /// Every option as `name = text`, defaults included (for records).
    pub fn to_raw(&self) -> BTreeMap<String, String> {
        self.0
            .iter()
            .map(|(k, v)| (k.clone(), v.to_text()))
            .collect()
    }
}

/// What a new state is made from: the number of players and validated options.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setup {
    /// Seats in the match, within the manifest's range.
    pub players: u32,
    /// The validated options.
    pub options: Options,
}

impl Setup {
    /// Checks the player count and options against `manifest`.
    pub fn validate(
        manifest: &Manifest,
        players: u32,
        raw_options: &BTreeMap<String, String>,
    ) -> Result<Setup, GameError> {
        if players < manifest.min_players || players > manifest.max_players {
            return Err(GameError::invalid_option(format!(
                "{} is played by {} to {} players, not {players}",
                manifest.name, manifest.min_players, manifest.max_players
            )));
        }
        Ok(Setup {
            players,
            options: Options::validate(manifest, raw_options)?,
        })
    }
}
