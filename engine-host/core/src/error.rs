//! The host's domain errors: each variant says what went wrong, in the
//! terms of matches, seats, tokens and plugins. `Display` gives the message
//! for the caller. The gRPC layer chooses each variant's status code, its
//! `ErrorInfo` reason and metadata in one place (`grpc::status`); nothing
//! here knows about gRPC.

use std::fmt;
use std::time::Duration;

use tabletop_sdk::text::quote;
use tabletop_sdk::{ErrorKind, GameError, Player, Refusal, seat_label};

/// Which credential a call needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Credential {
    /// A seat token of the match.
    Seat,
    /// The host's admin token.
    Admin,
    /// An organizer credential (or the admin token).
    Organizer,
    /// The join code of an invite-only open seat.
    JoinCode,
    /// A credential sent as request metadata: organizer or admin.
    Bearer,
}

impl Credential {
    /// The name a client sees (`seat` or `admin`).
    pub fn as_str(self) -> &'static str {
        match self {
            Credential::Seat => "seat",
            Credential::Admin => "admin",
            Credential::Organizer => "organizer",
            Credential::JoinCode => "join_code",
            Credential::Bearer => "bearer",
        }
    }
}

/// Why a request to the core failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostError {
    // The request itself.
    /// A field of the request is missing or has a value this server does not
    /// know (an enum number, an empty id).
    InvalidRequest(String),
    /// A new match's setup does not fit its game: player count, time control,
    /// open seats.
    InvalidSetup(String),
    /// A game option is unknown, mistyped, out of range or does not combine
    /// (the game's verdict).
    InvalidOption(String),
    /// A start position does not parse or is impossible (the game's verdict).
    InvalidPosition(String),
    /// An action's notation does not parse, or stands for no action.
    InvalidNotation(String),
    /// The action is not legal now for this seat.
    IllegalAction(String),
    /// The game refused a seat's action or notation and said why: a
    /// specific reason code and a sentence citing the rule (games offering
    /// the explain-refusal extension; others refuse with
    /// [`HostError::IllegalAction`] or [`HostError::InvalidNotation`]).
    Refused(Refusal),
    /// A match record does not parse, does not replay, or was altered.
    InvalidRecord(String),

    // What the request names.
    /// No game of this name is loaded.
    UnknownGame {
        /// The name asked for.
        game: String,
    },
    /// The game is loaded, but not in this version.
    UnknownGameVersion {
        /// The game.
        game: String,
        /// The version asked for.
        version: String,
        /// The versions that are loaded.
        loaded: Vec<String>,
    },
    /// Files with different content claim this game version: no new match
    /// is made with it until all but one of them are removed.
    AmbiguousGameVersion {
        /// The game.
        game: String,
        /// The version.
        version: String,
        /// Every file that claims it.
        files: Vec<String>,
    },
    /// No match has this id.
    UnknownMatch {
        /// The id asked for.
        match_id: String,
    },
    /// CreateMatch: the request id was used for a different request.
    RequestIdReused {
        /// The request id.
        request_id: String,
        /// The match created under it.
        match_id: String,
    },
    /// ListMatches: the page token was not issued for these filters.
    InvalidPageToken(String),
    /// The match was finished and has been dropped: a store that keeps
    /// finished matches in memory keeps only the newest `kept`.
    MatchExpired {
        /// The id asked for.
        match_id: String,
        /// How many finished matches the store keeps.
        kept: usize,
    },
    /// The match has no seat of this number.
    UnknownSeat {
        /// The seat asked for.
        seat: Player,
        /// The match's number of seats.
        players: u32,
    },
    /// A record names a game version this host has not loaded.
    GameNotLoaded {
        /// The game.
        game: String,
        /// The plugin version.
        version: String,
    },
    /// The match is known, but its plugin version is not loaded (after a
    /// restart), so it cannot be played here.
    MatchUnavailable {
        /// The match.
        match_id: String,
        /// Why, for a person.
        reason: String,
    },

    // The match's state.
    /// The match waits for players to join its open seats.
    NotStarted,
    /// A director has paused the match: actions wait until it resumes.
    MatchPaused,
    /// The match is quarantined: its plugin's worker died in one of its
    /// calls. Nothing but a director's abort or adjudication, or the
    /// admin's lifting it, applies.
    MatchQuarantined {
        /// The match.
        match_id: String,
        /// Why, for a person.
        reason: String,
    },
    /// A director's control does not apply to the match as it is.
    ControlRefused(String),
    /// The match is over (`clock_ran_out`: a clock ended it just now).
    MatchOver {
        /// Whether the request found a clock run out, ending the match.
        clock_ran_out: bool,
    },
    /// The request was made against another version than the match's.
    StaleVersion {
        /// The version the request expected.
        expected: u64,
        /// The match's version now.
        current: u64,
    },
    /// This seat is not to move now.
    NotYourTurn {
        /// The seat.
        seat: Player,
        /// The game's name of the seat, if it names its seats.
        name: Option<String>,
    },
    /// The game says the seat is not to move (its own words), or a step of
    /// a shorthand finds it no longer to move.
    NotToMove(String),
    /// The seat already acted in this simultaneous turn.
    AlreadyActed {
        /// The seat.
        seat: Player,
        /// The game's name of the seat, if it names its seats.
        name: Option<String>,
    },
    /// The seat asked for already has a player.
    SeatTaken {
        /// The seat.
        seat: Player,
        /// The game's name of the seat, if it names its seats.
        name: Option<String>,
    },
    /// The match has no open seat to join.
    NoOpenSeat,
    /// The game (or the host, for this kind of turn) does not offer this.
    Unsupported(String),
    /// One step of a shorthand was refused, so the whole request was; the
    /// cause is the step's own error.
    StepRefused {
        /// The shorthand as given.
        text: String,
        /// The refused step, counting from 1.
        step: usize,
        /// How many steps the shorthand stands for.
        steps: usize,
        /// The refused step's notation.
        notation: String,
        /// Why the step was refused.
        cause: Box<HostError>,
    },

    // Credentials.
    /// The call needs a token and none was given.
    TokenRequired {
        /// Which token.
        credential: Credential,
    },
    /// Exporting a running match's record needs the admin token, and none
    /// was given.
    ExportNeedsAdmin,
    /// The token given does not grant this.
    BadToken {
        /// Which token.
        credential: Credential,
    },
    /// The caller's credential is valid but does not allow this call.
    NotPermitted {
        /// What was asked for.
        what: String,
        /// The weakest credential that allows it.
        needed: Credential,
    },

    // Plugins.
    /// A plugin file to load cannot be read.
    PluginFileUnreadable {
        /// The path given.
        path: String,
        /// The system's error.
        error: String,
    },
    /// A plugin file is not a usable plugin.
    PluginRefused {
        /// The path given.
        path: String,
        /// Why.
        why: String,
    },
    /// Another file already provides this game and version with other content.
    PluginConflict {
        /// The game.
        game: String,
        /// The version.
        version: String,
        /// The file that provides it.
        existing: String,
    },
    /// The plugin faulted too often lately and takes no new matches.
    PluginSuspended {
        /// The game.
        game: String,
        /// The version.
        version: String,
        /// Its faults within the window.
        faults: u64,
        /// The window.
        window: Duration,
    },
    /// The admin retired the plugin version: it takes no new matches.
    PluginRetired {
        /// The game.
        game: String,
        /// The version.
        version: String,
    },
    /// The plugin did not answer within the call deadline.
    PluginTimeout {
        /// The deadline.
        deadline: Duration,
    },
    /// The plugin panicked, was used after a panic, or broke the ABI, or
    /// its worker died in the call: a bug in the plugin, never caused by
    /// the caller's input.
    PluginFault(String),
    /// The plugin's worker died during the call because of another call in
    /// it: nothing changed, and the call may be made again.
    PluginRestarted(String),

    // The host.
    /// The server is shutting down.
    ShuttingDown,
    /// The match store's database cannot be reached (a PostgreSQL server
    /// that is down or restarting): the call's change was not acknowledged
    /// as stored (it is not, unless the server went away during its very
    /// commit), and the call may be made again once the server is back.
    StoreUnavailable(String),
    /// Another host of the same database serves the match now (its lease
    /// moved there while this host held it, or this host's lease lapsed):
    /// nothing changed here, and the call may be made again, through any
    /// host.
    MatchMoved {
        /// The match.
        match_id: String,
    },
    /// A fault of the host (its store, its own code); never caused by the
    /// caller's input.
    Internal(String),
}

impl fmt::Display for HostError {
    // One arm per variant, each a sentence: one piece, so that every
    // message can be read beside the others (and a new variant cannot be
    // left without one).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostError::InvalidRequest(m)
            | HostError::InvalidSetup(m)
            | HostError::InvalidOption(m)
            | HostError::InvalidPosition(m)
            | HostError::InvalidNotation(m)
            | HostError::IllegalAction(m)
            | HostError::InvalidRecord(m)
            | HostError::NotToMove(m)
            | HostError::Unsupported(m)
            | HostError::Internal(m) => f.write_str(m),
            HostError::UnknownGame { game } => write!(f, "no game named `{}`", quote(game)),
            HostError::UnknownGameVersion {
                game,
                version,
                loaded,
            } => write!(
                f,
                "{} has no version {} (loaded: {})",
                quote(game),
                quote(version),
                loaded.join(", ")
            ),
            HostError::AmbiguousGameVersion {
                game,
                version,
                files,
            } => write!(
                f,
                "{} {} is claimed by files with different content ({}); no new match is made \
                 with it until all but one of them are removed from the plugin directory",
                quote(game),
                quote(version),
                files.join(", ")
            ),
            HostError::UnknownMatch { match_id } => write!(f, "no match `{}`", quote(match_id)),
            HostError::RequestIdReused {
                request_id,
                match_id,
            } => write!(
                f,
                "request id `{}` already created match {match_id} from a different \
                 request; retry with the same request, or use a new id",
                quote(request_id)
            ),
            HostError::InvalidPageToken(why) => write!(f, "invalid page token: {why}"),
            HostError::MatchExpired { match_id, kept } => write!(
                f,
                "match `{}` expired: it finished and the in-memory store keeps only \
                 the newest {kept} finished matches (a host with --store sqlite keeps them all)",
                quote(match_id)
            ),
            HostError::UnknownSeat { seat, players } => {
                write!(f, "the match has no seat {seat} (seats 0..{players})")
            }
            HostError::GameNotLoaded { game, version } => {
                write!(
                    f,
                    "the record needs {} {}, which is not loaded",
                    quote(game),
                    quote(version)
                )
            }
            HostError::MatchUnavailable { match_id, reason } => {
                write!(f, "match {} is unavailable: {reason}", quote(match_id))
            }
            HostError::NotStarted => f.write_str("the match waits for players to join open seats"),
            HostError::MatchPaused => {
                f.write_str("a director has paused the match: actions wait until it resumes")
            }
            HostError::ControlRefused(why) => write!(f, "refused: {why}"),
            HostError::MatchQuarantined { match_id, reason } => write!(
                f,
                "match {} is quarantined ({reason}): a director may abort or adjudicate it, \
                 the admin may lift it",
                quote(match_id)
            ),
            HostError::PluginSuspended {
                game,
                version,
                faults,
                window,
            } => write!(
                f,
                "{} {} takes no new matches: its plugin faulted {faults} times in the last {} s",
                quote(game),
                quote(version),
                window.as_secs()
            ),
            HostError::PluginRetired { game, version } => write!(
                f,
                "{} {} is retired: it takes no new matches",
                quote(game),
                quote(version)
            ),
            HostError::MatchOver {
                clock_ran_out: false,
            } => f.write_str("the match is over"),
            HostError::MatchOver {
                clock_ran_out: true,
            } => f.write_str("the match is over: a clock ran out"),
            HostError::StaleVersion { expected, current } => {
                write!(
                    f,
                    "stale version: expected {expected}, the match is at {current}"
                )
            }
            HostError::Refused(refusal) => f.write_str(&refusal.message),
            HostError::NotYourTurn { seat, name } => {
                write!(f, "it is not {}'s turn", seat_label(*seat, name.as_deref()))
            }
            HostError::AlreadyActed { seat, name } => write!(
                f,
                "{} has already acted this turn",
                seat_label(*seat, name.as_deref())
            ),
            HostError::SeatTaken { seat, name } => {
                write!(f, "{} is taken", seat_label(*seat, name.as_deref()))
            }
            HostError::NoOpenSeat => f.write_str("the match has no open seat"),
            HostError::StepRefused {
                text,
                step,
                steps,
                notation,
                cause,
            } => write!(
                f,
                "`{}` refused at step {step} of {steps} (`{}`): {cause}",
                quote(text),
                quote(notation)
            ),
            HostError::TokenRequired {
                credential: Credential::Seat,
            } => f.write_str("a seat token is required"),
            HostError::TokenRequired {
                credential: Credential::Admin,
            } => f.write_str("the admin token is required"),
            HostError::TokenRequired {
                credential: Credential::Organizer | Credential::Bearer,
            } => f.write_str(
                "an organizer credential or the admin token is required (request metadata \
                 `authorization: Bearer SECRET`)",
            ),
            HostError::TokenRequired {
                credential: Credential::JoinCode,
            } => f.write_str("this seat is invite-only: joining it needs its join code"),
            HostError::ExportNeedsAdmin => f.write_str(
                "the match is still running: its record reveals hidden information, so \
                 exporting it needs an organizer credential or the admin token",
            ),
            HostError::BadToken {
                credential: Credential::Seat,
            } => f.write_str("the token does not hold a seat in this match"),
            HostError::BadToken {
                credential: Credential::Admin,
            } => f.write_str("wrong admin token"),
            HostError::BadToken {
                credential: Credential::Organizer | Credential::Bearer,
            } => f.write_str("unknown or revoked credential"),
            HostError::BadToken {
                credential: Credential::JoinCode,
            } => f.write_str("wrong join code for this seat"),
            HostError::NotPermitted { what, needed } => match needed {
                Credential::Admin => write!(f, "{what} needs the admin token"),
                _ => write!(f, "{what} needs an organizer credential or the admin token"),
            },
            HostError::PluginFileUnreadable { path, error } => {
                write!(f, "cannot read {}: {error}", quote(path))
            }
            HostError::PluginRefused { path, why } => write!(f, "{} refused: {why}", quote(path)),
            HostError::PluginConflict {
                game,
                version,
                existing,
            } => write!(
                f,
                "{game} {version} is already loaded from {existing} with different content; \
                 bump the plugin's version"
            ),
            HostError::PluginTimeout { deadline } => {
                write!(f, "the game plugin did not answer within {deadline:?}")
            }
            HostError::PluginFault(m) => write!(f, "plugin fault: {m}"),
            HostError::PluginRestarted(m) => write!(f, "{m}"),
            HostError::ShuttingDown => f.write_str("the server is shutting down"),
            HostError::StoreUnavailable(m) => write!(f, "the match store is unavailable: {m}"),
            HostError::MatchMoved { match_id } => write!(
                f,
                "match {match_id} is served by another host now; call again"
            ),
        }
    }
}

impl std::error::Error for HostError {}

impl From<GameError> for HostError {
    /// The game's verdict, in the host's terms.
    fn from(e: GameError) -> HostError {
        match e.kind {
            ErrorKind::InvalidOption => HostError::InvalidOption(e.message),
            ErrorKind::InvalidPosition => HostError::InvalidPosition(e.message),
            ErrorKind::InvalidNotation => HostError::InvalidNotation(e.message),
            ErrorKind::IllegalAction => HostError::IllegalAction(e.message),
            ErrorKind::NotYourTurn => HostError::NotToMove(e.message),
            ErrorKind::Unsupported => HostError::Unsupported(e.message),
            ErrorKind::Panic
            | ErrorKind::Poisoned
            | ErrorKind::Internal
            | ErrorKind::ProcessDied => HostError::PluginFault(e.message),
            ErrorKind::Interrupted => HostError::PluginRestarted(e.message),
        }
    }
}

/// Shorthand for core results.
pub type HostResult<T> = Result<T, HostError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_step_names_the_step_and_its_cause() {
        let e = HostError::StepRefused {
            text: "a b".into(),
            step: 2,
            steps: 2,
            notation: "b".into(),
            cause: Box::new(HostError::NotToMove(
                "seat 1 is not the one to move then".into(),
            )),
        };
        assert_eq!(
            e.to_string(),
            "`a b` refused at step 2 of 2 (`b`): seat 1 is not the one to move then"
        );
    }

    #[test]
    fn the_games_verdicts_keep_their_words() {
        let cases = [
            (
                GameError::invalid_option("o"),
                HostError::InvalidOption("o".into()),
            ),
            (
                GameError::invalid_position("p"),
                HostError::InvalidPosition("p".into()),
            ),
            (
                GameError::invalid_notation("n"),
                HostError::InvalidNotation("n".into()),
            ),
            (
                GameError::illegal("i"),
                HostError::IllegalAction("i".into()),
            ),
            (
                GameError::not_your_turn("t"),
                HostError::NotToMove("t".into()),
            ),
            (
                GameError::unsupported("u"),
                HostError::Unsupported("u".into()),
            ),
            (GameError::internal("x"), HostError::PluginFault("x".into())),
            (
                GameError::new(ErrorKind::Panic, "at lib.rs:1"),
                HostError::PluginFault("at lib.rs:1".into()),
            ),
        ];
        for (game, host) in cases {
            assert_eq!(HostError::from(game), host);
        }
        assert_eq!(
            HostError::from(GameError::internal("x")).to_string(),
            "plugin fault: x"
        );
    }
}
