//! The one place where domain errors become gRPC statuses: each error's
//! status code, and the `google.rpc.ErrorInfo` detail every status carries
//! (domain [`DOMAIN`], an UPPER_SNAKE reason, and metadata a program can read
//! instead of parsing the message). The table of reasons for clients is in
//! `proto/tabletop/v1/matches.proto`; keep the two in step.

use std::borrow::Cow;
use std::collections::HashMap;

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use tabletop_core::error::HostError;

/// The `ErrorInfo` domain of every status this server sends.
pub const DOMAIN: &str = "tabletop";

/// What a client is told about an error, besides its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Described {
    /// The status code.
    pub code: Code,
    /// The `ErrorInfo` reason: the host's, or a game's own code for a
    /// refusal it explained (`RED_LINE`).
    pub reason: Cow<'static, str>,
    /// The `ErrorInfo` metadata.
    pub metadata: HashMap<String, String>,
}

fn described(code: Code, reason: &'static str, metadata: &[(&str, String)]) -> Described {
    Described {
        code,
        reason: Cow::Borrowed(reason),
        metadata: metadata
            .iter()
            .map(|(key, value)| ((*key).to_string(), value.clone()))
            .collect(),
    }
}

/// The code, reason and metadata of `error`.
pub fn describe(error: &HostError) -> Described {
    use Code::{
        AlreadyExists, FailedPrecondition, Internal, InvalidArgument, NotFound, PermissionDenied,
        Unauthenticated, Unavailable,
    };
    match error {
        HostError::InvalidRequest(_) => described(InvalidArgument, "INVALID_REQUEST", &[]),
        HostError::InvalidSetup(_) => described(InvalidArgument, "INVALID_SETUP", &[]),
        HostError::InvalidOption(_) => described(InvalidArgument, "INVALID_OPTION", &[]),
        HostError::InvalidPosition(_) => described(InvalidArgument, "INVALID_POSITION", &[]),
        HostError::InvalidNotation(_) => described(InvalidArgument, "INVALID_NOTATION", &[]),
        HostError::IllegalAction(_) => described(InvalidArgument, "ILLEGAL_ACTION", &[]),
        HostError::Refused(refusal) => {
            // The game's own code is the reason; `refusal` keeps the host's
            // kind, so a client can tell a notation problem from an illegal
            // action without knowing the game's codes.
            let kind = if refusal.notation {
                "INVALID_NOTATION"
            } else {
                "ILLEGAL_ACTION"
            };
            let mut d = described(InvalidArgument, "", &[("refusal", kind.into())]);
            d.reason = Cow::Owned(refusal.reason.clone());
            d
        }
        HostError::InvalidRecord(_) => described(InvalidArgument, "INVALID_RECORD", &[]),
        HostError::UnknownGame { game } => {
            described(NotFound, "UNKNOWN_GAME", &[("game", game.clone())])
        }
        HostError::UnknownGameVersion {
            game,
            version,
            loaded,
        } => described(
            NotFound,
            "UNKNOWN_GAME_VERSION",
            &[
                ("game", game.clone()),
                ("version", version.clone()),
                ("loaded_versions", loaded.join(",")),
            ],
        ),
        HostError::UnknownMatch { match_id } => {
            described(NotFound, "UNKNOWN_MATCH", &[("match_id", match_id.clone())])
        }
        HostError::RequestIdReused {
            request_id,
            match_id,
        } => described(
            AlreadyExists,
            "REQUEST_ID_REUSED",
            &[
                ("request_id", request_id.clone()),
                ("match_id", match_id.clone()),
            ],
        ),
        HostError::InvalidPageToken(_) => described(InvalidArgument, "INVALID_PAGE_TOKEN", &[]),
        HostError::MatchExpired { match_id, kept } => described(
            NotFound,
            "MATCH_EXPIRED",
            &[("match_id", match_id.clone()), ("kept", kept.to_string())],
        ),
        HostError::UnknownSeat { seat, players } => described(
            NotFound,
            "UNKNOWN_SEAT",
            &[("seat", seat.to_string()), ("players", players.to_string())],
        ),
        HostError::GameNotLoaded { game, version } => described(
            FailedPrecondition,
            "GAME_NOT_LOADED",
            &[("game", game.clone()), ("version", version.clone())],
        ),
        HostError::MatchUnavailable { match_id, reason } => described(
            Unavailable,
            "MATCH_UNAVAILABLE",
            &[
                ("match_id", match_id.clone()),
                ("unavailable_reason", reason.clone()),
            ],
        ),
        HostError::NotStarted => described(FailedPrecondition, "NOT_STARTED", &[]),
        HostError::MatchPaused => described(FailedPrecondition, "MATCH_PAUSED", &[]),
        HostError::ControlRefused(_) => described(FailedPrecondition, "CONTROL_REFUSED", &[]),
        HostError::MatchOver { clock_ran_out } => described(
            FailedPrecondition,
            "MATCH_OVER",
            &[("clock_ran_out", clock_ran_out.to_string())],
        ),
        HostError::StaleVersion { expected, current } => described(
            FailedPrecondition,
            "STALE_VERSION",
            &[
                ("expected_version", expected.to_string()),
                ("current_version", current.to_string()),
            ],
        ),
        HostError::NotYourTurn { seat, name } => described(
            FailedPrecondition,
            "NOT_YOUR_TURN",
            &[
                ("seat", seat.to_string()),
                ("seat_name", name.clone().unwrap_or_default()),
            ],
        ),
        HostError::NotToMove(_) => described(FailedPrecondition, "NOT_YOUR_TURN", &[]),
        HostError::AlreadyActed { seat, name } => described(
            FailedPrecondition,
            "ALREADY_ACTED",
            &[
                ("seat", seat.to_string()),
                ("seat_name", name.clone().unwrap_or_default()),
            ],
        ),
        HostError::SeatTaken { seat, name } => described(
            FailedPrecondition,
            "SEAT_TAKEN",
            &[
                ("seat", seat.to_string()),
                ("seat_name", name.clone().unwrap_or_default()),
            ],
        ),
        HostError::NoOpenSeat => described(FailedPrecondition, "NO_OPEN_SEAT", &[]),
        HostError::Unsupported(_) => described(FailedPrecondition, "UNSUPPORTED", &[]),
        HostError::StepRefused {
            step, steps, cause, ..
        } => {
            // The step's own code and reason: a bot reacts to an illegal
            // step as to an illegal action; the metadata says which step.
            let mut d = describe(cause);
            d.metadata.insert("step".into(), step.to_string());
            d.metadata.insert("steps".into(), steps.to_string());
            d
        }
        HostError::TokenRequired { credential } => described(
            Unauthenticated,
            "TOKEN_REQUIRED",
            &[("credential", credential.as_str().into())],
        ),
        HostError::ExportNeedsAdmin => described(
            Unauthenticated,
            "TOKEN_REQUIRED",
            &[("credential", "admin".into())],
        ),
        HostError::BadToken { credential } => described(
            PermissionDenied,
            "BAD_TOKEN",
            &[("credential", credential.as_str().into())],
        ),
        HostError::NotPermitted { needed, .. } => described(
            PermissionDenied,
            "NOT_PERMITTED",
            &[("credential", needed.as_str().into())],
        ),
        HostError::PluginFileUnreadable { path, .. } => described(
            NotFound,
            "PLUGIN_FILE_UNREADABLE",
            &[("path", path.clone())],
        ),
        HostError::PluginRefused { path, .. } => {
            described(InvalidArgument, "PLUGIN_REFUSED", &[("path", path.clone())])
        }
        HostError::PluginConflict {
            game,
            version,
            existing,
        } => described(
            FailedPrecondition,
            "PLUGIN_CONFLICT",
            &[
                ("game", game.clone()),
                ("version", version.clone()),
                ("existing_file", existing.clone()),
            ],
        ),
        HostError::PluginTimeout { deadline } => described(
            Internal,
            "PLUGIN_TIMEOUT",
            &[("deadline_ms", deadline.as_millis().to_string())],
        ),
        HostError::PluginFault(_) => described(Internal, "PLUGIN_FAULT", &[]),
        HostError::ShuttingDown => described(Unavailable, "SHUTTING_DOWN", &[]),
        HostError::Internal(_) => described(Internal, "INTERNAL", &[]),
    }
}

/// Maps a domain error to its status: the code, the error's message, and an
/// `ErrorInfo` detail with its reason and metadata.
pub fn to_status(error: HostError) -> Status {
    let Described {
        code,
        reason,
        metadata,
    } = describe(&error);
    if code == Code::Internal {
        tracing::error!(error = %error, reason = %reason, "internal error");
    }
    Status::with_error_details(
        code,
        error.to_string(),
        ErrorDetails::with_error_info(reason, DOMAIN, metadata),
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use tabletop_core::error::Credential;

    fn text(s: &str) -> String {
        s.to_string()
    }

    /// An error, and the code, reason and metadata it is sent with.
    type Case = (
        HostError,
        Code,
        &'static str,
        Vec<(&'static str, &'static str)>,
    );

    /// Every variant: its code, reason and metadata, and a message that
    /// survives the trip through a status with its `ErrorInfo`.
    #[test]
    fn every_domain_error_has_its_code_reason_and_metadata() {
        use Code::*;
        let cases: Vec<Case> = vec![
            (
                HostError::InvalidRequest(text("a")),
                InvalidArgument,
                "INVALID_REQUEST",
                vec![],
            ),
            (
                HostError::InvalidSetup(text("a")),
                InvalidArgument,
                "INVALID_SETUP",
                vec![],
            ),
            (
                HostError::InvalidOption(text("a")),
                InvalidArgument,
                "INVALID_OPTION",
                vec![],
            ),
            (
                HostError::InvalidPosition(text("a")),
                InvalidArgument,
                "INVALID_POSITION",
                vec![],
            ),
            (
                HostError::InvalidNotation(text("a")),
                InvalidArgument,
                "INVALID_NOTATION",
                vec![],
            ),
            (
                HostError::IllegalAction(text("a")),
                InvalidArgument,
                "ILLEGAL_ACTION",
                vec![],
            ),
            (
                HostError::Refused(tabletop_sdk::Refusal::illegal(
                    "RED_LINE",
                    "c6-d6 crosses a red line (W4)",
                )),
                InvalidArgument,
                "RED_LINE",
                vec![("refusal", "ILLEGAL_ACTION")],
            ),
            (
                HostError::Refused(tabletop_sdk::Refusal::notation("NO_SUCH_SQUARE", "no z9")),
                InvalidArgument,
                "NO_SUCH_SQUARE",
                vec![("refusal", "INVALID_NOTATION")],
            ),
            (
                HostError::InvalidRecord(text("a")),
                InvalidArgument,
                "INVALID_RECORD",
                vec![],
            ),
            (
                HostError::UnknownGame {
                    game: text("chess"),
                },
                NotFound,
                "UNKNOWN_GAME",
                vec![("game", "chess")],
            ),
            (
                HostError::UnknownGameVersion {
                    game: text("war"),
                    version: text("9"),
                    loaded: vec![text("1.0.0"), text("1.1.0")],
                },
                NotFound,
                "UNKNOWN_GAME_VERSION",
                vec![
                    ("game", "war"),
                    ("version", "9"),
                    ("loaded_versions", "1.0.0,1.1.0"),
                ],
            ),
            (
                HostError::UnknownMatch {
                    match_id: text("m1"),
                },
                NotFound,
                "UNKNOWN_MATCH",
                vec![("match_id", "m1")],
            ),
            (
                HostError::UnknownSeat {
                    seat: 4,
                    players: 2,
                },
                NotFound,
                "UNKNOWN_SEAT",
                vec![("seat", "4"), ("players", "2")],
            ),
            (
                HostError::GameNotLoaded {
                    game: text("war"),
                    version: text("2"),
                },
                FailedPrecondition,
                "GAME_NOT_LOADED",
                vec![("game", "war"), ("version", "2")],
            ),
            (
                HostError::MatchUnavailable {
                    match_id: text("m1"),
                    reason: text("gone"),
                },
                Unavailable,
                "MATCH_UNAVAILABLE",
                vec![("match_id", "m1"), ("unavailable_reason", "gone")],
            ),
            (
                HostError::MatchPaused,
                FailedPrecondition,
                "MATCH_PAUSED",
                vec![],
            ),
            (
                HostError::ControlRefused("the match is not paused".into()),
                FailedPrecondition,
                "CONTROL_REFUSED",
                vec![],
            ),
            (
                HostError::NotStarted,
                FailedPrecondition,
                "NOT_STARTED",
                vec![],
            ),
            (
                HostError::MatchOver {
                    clock_ran_out: false,
                },
                FailedPrecondition,
                "MATCH_OVER",
                vec![("clock_ran_out", "false")],
            ),
            (
                HostError::MatchOver {
                    clock_ran_out: true,
                },
                FailedPrecondition,
                "MATCH_OVER",
                vec![("clock_ran_out", "true")],
            ),
            (
                HostError::StaleVersion {
                    expected: 3,
                    current: 5,
                },
                FailedPrecondition,
                "STALE_VERSION",
                vec![("expected_version", "3"), ("current_version", "5")],
            ),
            (
                HostError::NotYourTurn {
                    seat: 1,
                    name: Some(text("B")),
                },
                FailedPrecondition,
                "NOT_YOUR_TURN",
                vec![("seat", "1"), ("seat_name", "B")],
            ),
            (
                HostError::NotToMove(text("a")),
                FailedPrecondition,
                "NOT_YOUR_TURN",
                vec![],
            ),
            (
                HostError::AlreadyActed {
                    seat: 2,
                    name: None,
                },
                FailedPrecondition,
                "ALREADY_ACTED",
                vec![("seat", "2"), ("seat_name", "")],
            ),
            (
                HostError::SeatTaken {
                    seat: 0,
                    name: Some(text("A")),
                },
                FailedPrecondition,
                "SEAT_TAKEN",
                vec![("seat", "0"), ("seat_name", "A")],
            ),
            (
                HostError::NoOpenSeat,
                FailedPrecondition,
                "NO_OPEN_SEAT",
                vec![],
            ),
            (
                HostError::Unsupported(text("a")),
                FailedPrecondition,
                "UNSUPPORTED",
                vec![],
            ),
            (
                HostError::StepRefused {
                    text: text("a b"),
                    step: 2,
                    steps: 3,
                    notation: text("b"),
                    cause: Box::new(HostError::IllegalAction(text("no"))),
                },
                InvalidArgument,
                "ILLEGAL_ACTION",
                vec![("step", "2"), ("steps", "3")],
            ),
            (
                HostError::StepRefused {
                    text: text("a b"),
                    step: 1,
                    steps: 2,
                    notation: text("a"),
                    cause: Box::new(HostError::PluginFault(text("boom"))),
                },
                Internal,
                "PLUGIN_FAULT",
                vec![("step", "1"), ("steps", "2")],
            ),
            (
                HostError::TokenRequired {
                    credential: Credential::Seat,
                },
                Unauthenticated,
                "TOKEN_REQUIRED",
                vec![("credential", "seat")],
            ),
            (
                HostError::TokenRequired {
                    credential: Credential::Admin,
                },
                Unauthenticated,
                "TOKEN_REQUIRED",
                vec![("credential", "admin")],
            ),
            (
                HostError::ExportNeedsAdmin,
                Unauthenticated,
                "TOKEN_REQUIRED",
                vec![("credential", "admin")],
            ),
            (
                HostError::BadToken {
                    credential: Credential::Seat,
                },
                PermissionDenied,
                "BAD_TOKEN",
                vec![("credential", "seat")],
            ),
            (
                HostError::BadToken {
                    credential: Credential::Admin,
                },
                PermissionDenied,
                "BAD_TOKEN",
                vec![("credential", "admin")],
            ),
            (
                HostError::PluginFileUnreadable {
                    path: text("/p.so"),
                    error: text("gone"),
                },
                NotFound,
                "PLUGIN_FILE_UNREADABLE",
                vec![("path", "/p.so")],
            ),
            (
                HostError::PluginRefused {
                    path: text("/p.so"),
                    why: text("bad"),
                },
                InvalidArgument,
                "PLUGIN_REFUSED",
                vec![("path", "/p.so")],
            ),
            (
                HostError::PluginConflict {
                    game: text("war"),
                    version: text("1"),
                    existing: text("/a.so"),
                },
                FailedPrecondition,
                "PLUGIN_CONFLICT",
                vec![
                    ("game", "war"),
                    ("version", "1"),
                    ("existing_file", "/a.so"),
                ],
            ),
            (
                HostError::PluginTimeout {
                    deadline: Duration::from_millis(1500),
                },
                Internal,
                "PLUGIN_TIMEOUT",
                vec![("deadline_ms", "1500")],
            ),
            (
                HostError::PluginFault(text("a")),
                Internal,
                "PLUGIN_FAULT",
                vec![],
            ),
            (
                HostError::ShuttingDown,
                Unavailable,
                "SHUTTING_DOWN",
                vec![],
            ),
            (HostError::Internal(text("a")), Internal, "INTERNAL", vec![]),
        ];
        for (error, code, reason, metadata) in cases {
            let message = error.to_string();
            let status = to_status(error);
            assert_eq!(status.code(), code, "{message}");
            assert_eq!(status.message(), message);
            let info = status
                .get_details_error_info()
                .unwrap_or_else(|| panic!("{message}: no ErrorInfo"));
            assert_eq!(info.reason, reason, "{message}");
            assert_eq!(info.domain, DOMAIN);
            let expected: HashMap<String, String> = metadata
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            assert_eq!(info.metadata, expected, "{message}");
        }
    }

    #[test]
    fn messages_are_what_callers_saw_before() {
        let cases = [
            (
                HostError::StaleVersion {
                    expected: 3,
                    current: 5,
                },
                "stale version: expected 3, the match is at 5",
            ),
            (
                HostError::NotYourTurn {
                    seat: 1,
                    name: Some(text("B")),
                },
                "it is not seat 1 (B)'s turn",
            ),
            (
                HostError::NotYourTurn {
                    seat: 1,
                    name: None,
                },
                "it is not seat 1's turn",
            ),
            (
                HostError::MatchOver {
                    clock_ran_out: false,
                },
                "the match is over",
            ),
            (
                HostError::MatchOver {
                    clock_ran_out: true,
                },
                "the match is over: a clock ran out",
            ),
            (
                HostError::UnknownMatch {
                    match_id: text("m"),
                },
                "no match `m`",
            ),
            (
                HostError::UnknownGame { game: text("g") },
                "no game named `g`",
            ),
            (
                HostError::UnknownGameVersion {
                    game: text("war"),
                    version: text("9"),
                    loaded: vec![text("1"), text("2")],
                },
                "war has no version 9 (loaded: 1, 2)",
            ),
            (
                HostError::TokenRequired {
                    credential: Credential::Seat,
                },
                "a seat token is required",
            ),
            (
                HostError::BadToken {
                    credential: Credential::Seat,
                },
                "the token does not hold a seat in this match",
            ),
            (
                HostError::BadToken {
                    credential: Credential::Admin,
                },
                "wrong admin token",
            ),
            (
                HostError::PluginTimeout {
                    deadline: Duration::from_millis(1500),
                },
                "the game plugin did not answer within 1.5s",
            ),
            (HostError::ShuttingDown, "the server is shutting down"),
        ];
        for (error, message) in cases {
            assert_eq!(error.to_string(), message);
        }
    }
}
