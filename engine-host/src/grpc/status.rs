//! Where every error status is made: domain errors become statuses here
//! ([`to_status`]), and so do the limits layer's refusals, both through
//! [`Described`], which takes its reason, code and metadata keys from the
//! table of reasons ([`super::reason`]). Every status carries a
//! `google.rpc.ErrorInfo` (domain [`DOMAIN`], the reason, and metadata a
//! program can read instead of parsing the message).

use std::collections::HashMap;
use std::time::Duration;

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use super::reason::Reason;
use crate::throttle::Throttle;
use tabletop_core::error::HostError;
use tabletop_core::quote::{cap_message, quote};

/// The `ErrorInfo` domain of every status this server sends.
pub const DOMAIN: &str = "tabletop";

/// What a client is told about an error besides its message: a reason of
/// the table, the metadata it names, and for a refusal by a limit, how
/// long to wait. The one way to an error status
/// ([`Described::into_status`]); a debug build panics there when the
/// metadata has a key the table does not give the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Described {
    reason: Reason,
    /// The `ErrorInfo` reason: the table's name, or the game's own code.
    sent: String,
    metadata: HashMap<String, String>,
    retry_after: Option<Duration>,
}

impl Described {
    /// `reason`, with no metadata yet. A game's refusal is made by
    /// [`Described::game_refusal`], which knows its code.
    pub fn new(reason: Reason) -> Described {
        debug_assert!(
            reason != Reason::GameRefusal,
            "a game's refusal is described by Described::game_refusal"
        );
        Described {
            reason,
            sent: reason.name().unwrap_or_default().to_string(),
            metadata: HashMap::new(),
            retry_after: None,
        }
    }

    /// A game's refusal: its own `code` as the reason, and in `refusal`
    /// the host reason it stands for (INVALID_NOTATION when `notation`,
    /// else ILLEGAL_ACTION), so a client can tell the two apart without
    /// knowing the game's codes.
    pub fn game_refusal(code: &str, notation: bool) -> Described {
        let kind = if notation {
            Reason::InvalidNotation
        } else {
            Reason::IllegalAction
        };
        Described {
            reason: Reason::GameRefusal,
            sent: code.to_string(),
            metadata: HashMap::new(),
            retry_after: None,
        }
        .with("refusal", kind.name().unwrap_or_default())
    }

    /// With metadata `key` set to `value`.
    pub fn with(mut self, key: &'static str, value: impl ToString) -> Described {
        self.metadata.insert(key.to_string(), value.to_string());
        self
    }

    /// With a `google.rpc.RetryInfo` of `delay`.
    pub fn retry_after(mut self, delay: Duration) -> Described {
        self.retry_after = Some(delay);
        self
    }

    /// Its row of the table.
    pub fn reason(&self) -> Reason {
        self.reason
    }

    /// The status code (the table's for its reason).
    pub fn code(&self) -> Code {
        self.reason.code()
    }

    /// The `ErrorInfo` reason sent.
    pub fn sent_reason(&self) -> &str {
        &self.sent
    }

    /// The `ErrorInfo` metadata.
    pub fn metadata(&self) -> &HashMap<String, String> {
        &self.metadata
    }

    /// The status: its code, `message`, and the details. Whatever the
    /// parts hold, the message is at most
    /// [`MAX_MESSAGE_BYTES`](tabletop_core::quote::MAX_MESSAGE_BYTES) and
    /// each metadata value quotes at most
    /// [`QUOTE_CHARS`](tabletop_core::quote::QUOTE_CHARS) characters: the
    /// status travels in HTTP/2 headers, and a client refuses headers past
    /// its limit (often 8 or 16 KB) with a protocol error in place of the
    /// refusal.
    pub fn into_status(self, message: &str) -> Status {
        if cfg!(debug_assertions)
            && let Err(lacking) = Reason::check_sent(
                &self.sent,
                self.metadata.keys().map(String::as_str),
                self.metadata.get("refusal").map(String::as_str),
            )
        {
            panic!("an error status outside the table of reasons: {lacking}");
        }
        let code = self.code();
        let message = cap_message(message);
        if code == Code::Internal {
            // One cause (a full disk) fails every call alike: the line
            // once a second, saying how many it stands for.
            static INTERNAL: Throttle = Throttle::new(Duration::from_secs(1));
            if let Some(held_back) = INTERNAL.admit() {
                tracing::error!(error = %message, reason = %self.sent, held_back, "internal error");
            }
        }
        let metadata: HashMap<String, String> = self
            .metadata
            .into_iter()
            .map(|(key, value)| (key, quote(&value).into_owned()))
            .collect();
        let mut details = ErrorDetails::with_error_info(self.sent, DOMAIN, metadata);
        if let Some(delay) = self.retry_after {
            details.set_retry_info(Some(delay));
        }
        Status::with_error_details(code, message.into_owned(), details)
    }
}

/// The reason and metadata of `error`.
pub fn describe(error: &HostError) -> Described {
    use Reason as R;
    let new = Described::new;
    match error {
        HostError::InvalidRequest(_) => new(R::InvalidRequest),
        HostError::InvalidSetup(_) => new(R::InvalidSetup),
        HostError::InvalidOption(_) => new(R::InvalidOption),
        HostError::InvalidPosition(_) => new(R::InvalidPosition),
        HostError::InvalidNotation(_) => new(R::InvalidNotation),
        HostError::IllegalAction(_) => new(R::IllegalAction),
        HostError::Refused(refusal) => Described::game_refusal(&refusal.reason, refusal.notation),
        HostError::InvalidRecord(_) => new(R::InvalidRecord),
        HostError::UnknownGame { game } => new(R::UnknownGame).with("game", game),
        HostError::UnknownGameVersion {
            game,
            version,
            loaded,
        } => new(R::UnknownGameVersion)
            .with("game", game)
            .with("version", version)
            .with("loaded_versions", loaded.join(",")),
        HostError::AmbiguousGameVersion {
            game,
            version,
            files,
        } => new(R::AmbiguousGameVersion)
            .with("game", game)
            .with("version", version)
            .with("files", files.join(",")),
        HostError::UnknownMatch { match_id } => new(R::UnknownMatch).with("match_id", match_id),
        HostError::RequestIdReused {
            request_id,
            match_id,
        } => new(R::RequestIdReused)
            .with("request_id", request_id)
            .with("match_id", match_id),
        HostError::InvalidPageToken(_) => new(R::InvalidPageToken),
        HostError::MatchExpired { match_id, kept } => new(R::MatchExpired)
            .with("match_id", match_id)
            .with("kept", kept),
        HostError::UnknownSeat { seat, players } => new(R::UnknownSeat)
            .with("seat", seat)
            .with("players", players),
        HostError::GameNotLoaded { game, version } => new(R::GameNotLoaded)
            .with("game", game)
            .with("version", version),
        HostError::MatchUnavailable { match_id, reason } => new(R::MatchUnavailable)
            .with("match_id", match_id)
            .with("unavailable_reason", reason),
        HostError::NotStarted => new(R::NotStarted),
        HostError::MatchPaused => new(R::MatchPaused),
        HostError::ControlRefused(_) => new(R::ControlRefused),
        HostError::MatchOver { clock_ran_out } => {
            new(R::MatchOver).with("clock_ran_out", clock_ran_out)
        }
        HostError::StaleVersion { expected, current } => new(R::StaleVersion)
            .with("expected_version", expected)
            .with("current_version", current),
        HostError::NotYourTurn { seat, name } => new(R::NotYourTurn)
            .with("seat", seat)
            .with("seat_name", name.as_deref().unwrap_or_default()),
        HostError::NotToMove(_) => new(R::NotYourTurn),
        HostError::AlreadyActed { seat, name } => new(R::AlreadyActed)
            .with("seat", seat)
            .with("seat_name", name.as_deref().unwrap_or_default()),
        HostError::SeatTaken { seat, name } => new(R::SeatTaken)
            .with("seat", seat)
            .with("seat_name", name.as_deref().unwrap_or_default()),
        HostError::NoOpenSeat => new(R::NoOpenSeat),
        HostError::Unsupported(_) => new(R::Unsupported),
        // The step's own reason: a bot reacts to an illegal step as to an
        // illegal action; the metadata says which step.
        HostError::StepRefused {
            step, steps, cause, ..
        } => describe(cause).with("step", step).with("steps", steps),
        HostError::TokenRequired { credential } => {
            new(R::TokenRequired).with("credential", credential.as_str())
        }
        HostError::ExportNeedsAdmin => new(R::TokenRequired).with("credential", "admin"),
        HostError::BadToken { credential } => {
            new(R::BadToken).with("credential", credential.as_str())
        }
        HostError::NotPermitted { needed, .. } => {
            new(R::NotPermitted).with("credential", needed.as_str())
        }
        HostError::PluginFileUnreadable { path, .. } => {
            new(R::PluginFileUnreadable).with("path", path)
        }
        HostError::PluginRefused { path, .. } => new(R::PluginRefused).with("path", path),
        HostError::PluginConflict {
            game,
            version,
            existing,
        } => new(R::PluginConflict)
            .with("game", game)
            .with("version", version)
            .with("existing_file", existing),
        HostError::PluginTimeout { deadline } => {
            new(R::PluginTimeout).with("deadline_ms", deadline.as_millis())
        }
        HostError::PluginFault(_) => new(R::PluginFault),
        HostError::PluginRestarted(_) => new(R::PluginRestarted),
        HostError::MatchQuarantined { match_id, reason } => new(R::MatchQuarantined)
            .with("match_id", match_id)
            .with("quarantine_reason", reason),
        HostError::PluginSuspended {
            game,
            version,
            faults,
            window,
        } => new(R::PluginSuspended)
            .with("game", game)
            .with("version", version)
            .with("faults", faults)
            .with("window_s", window.as_secs()),
        HostError::PluginRetired { game, version } => new(R::PluginRetired)
            .with("game", game)
            .with("version", version),
        HostError::ShuttingDown => new(R::ShuttingDown),
        HostError::StoreUnavailable(_) => new(R::StoreUnavailable),
        HostError::MatchMoved { match_id } => new(R::MatchMoved).with("match_id", match_id),
        HostError::Internal(_) => new(R::Internal),
    }
}

/// Maps a domain error to its status: its reason's code, the error's
/// message, and an `ErrorInfo` detail with its reason and metadata
/// (see [`Described::into_status`]).
pub fn to_status(error: HostError) -> Status {
    describe(&error).into_status(&error.to_string())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use tabletop_core::error::Credential;
    use tabletop_core::quote::{MAX_MESSAGE_BYTES, QUOTE_CHARS};

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
                HostError::AmbiguousGameVersion {
                    game: text("war"),
                    version: text("1.0.0"),
                    files: vec![text("/a.so"), text("/b.so")],
                },
                FailedPrecondition,
                "AMBIGUOUS_GAME_VERSION",
                vec![
                    ("game", "war"),
                    ("version", "1.0.0"),
                    ("files", "/a.so,/b.so"),
                ],
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
                Unavailable,
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
                Unavailable,
                "PLUGIN_FAULT",
                vec![],
            ),
            (
                HostError::PluginRestarted(text("a")),
                Unavailable,
                "PLUGIN_RESTARTED",
                vec![],
            ),
            (
                HostError::StoreUnavailable(text("a")),
                Unavailable,
                "STORE_UNAVAILABLE",
                vec![],
            ),
            (
                HostError::MatchMoved {
                    match_id: text("m1"),
                },
                Unavailable,
                "MATCH_MOVED",
                vec![("match_id", "m1")],
            ),
            (
                HostError::PluginSuspended {
                    game: text("war"),
                    version: text("1"),
                    faults: 3,
                    window: Duration::from_secs(600),
                },
                FailedPrecondition,
                "PLUGIN_SUSPENDED",
                vec![
                    ("game", "war"),
                    ("version", "1"),
                    ("faults", "3"),
                    ("window_s", "600"),
                ],
            ),
            (
                HostError::PluginRetired {
                    game: text("war"),
                    version: text("1"),
                },
                FailedPrecondition,
                "PLUGIN_RETIRED",
                vec![("game", "war"), ("version", "1")],
            ),
            (
                HostError::MatchQuarantined {
                    match_id: text("m1"),
                    reason: text("the worker died"),
                },
                FailedPrecondition,
                "MATCH_QUARANTINED",
                vec![("match_id", "m1"), ("quarantine_reason", "the worker died")],
            ),
            (
                HostError::ShuttingDown,
                Unavailable,
                "SHUTTING_DOWN",
                vec![],
            ),
            (HostError::Internal(text("a")), Internal, "INTERNAL", vec![]),
            (
                HostError::InvalidPageToken(text("a")),
                InvalidArgument,
                "INVALID_PAGE_TOKEN",
                vec![],
            ),
            (
                HostError::MatchExpired {
                    match_id: text("m1"),
                    kept: 10,
                },
                NotFound,
                "MATCH_EXPIRED",
                vec![("match_id", "m1"), ("kept", "10")],
            ),
            (
                HostError::RequestIdReused {
                    request_id: text("r1"),
                    match_id: text("m1"),
                },
                AlreadyExists,
                "REQUEST_ID_REUSED",
                vec![("request_id", "r1"), ("match_id", "m1")],
            ),
            (
                HostError::NotPermitted {
                    what: text("choosing a seed"),
                    needed: Credential::Organizer,
                },
                PermissionDenied,
                "NOT_PERMITTED",
                vec![("credential", "organizer")],
            ),
        ];
        let mut sent = std::collections::HashSet::new();
        for (error, code, reason, metadata) in cases {
            sent.insert(describe(&error).reason());
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
        // The rest of the table is the limits layer's and the stream
        // bounds' (their tests send them).
        let unsent: Vec<Reason> = Reason::ALL
            .iter()
            .copied()
            .filter(|reason| !sent.contains(reason))
            .collect();
        let mut elsewhere: Vec<Reason> = crate::grpc::layer::REASONS.to_vec();
        elsewhere.extend(crate::grpc::streams::REASONS);
        elsewhere.sort_by_key(|reason| Reason::ALL.iter().position(|r| r == reason));
        assert_eq!(unsent, elsewhere);
    }

    /// A status the table does not describe fails the test that sends it.
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "no metadata key `seat`")]
    fn a_metadata_key_the_table_lacks_fails_a_debug_build() {
        drop(
            Described::new(Reason::StaleVersion)
                .with("seat", 1)
                .into_status("stale"),
        );
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "no reason `RED_LINE`")]
    fn a_game_code_without_its_refusal_kind_fails_a_debug_build() {
        let mut refusal = Described::game_refusal("RED_LINE", false);
        refusal.metadata.remove("refusal");
        drop(refusal.into_status("crosses a red line"));
    }

    /// Whatever an error holds, its status stays small: a message of at
    /// most [`MAX_MESSAGE_BYTES`], metadata values of at most
    /// [`QUOTE_CHARS`] characters and an ellipsis.
    #[test]
    fn a_status_quotes_little_of_a_huge_input() {
        let huge = "ü".repeat(20_000);
        let cases = [
            HostError::UnknownMatch {
                match_id: huge.clone(),
            },
            HostError::InvalidNotation(format!("no move `{huge}`")),
            HostError::StepRefused {
                text: huge.clone(),
                step: 1,
                steps: 2,
                notation: huge.clone(),
                cause: Box::new(HostError::IllegalAction("no such move".into())),
            },
            HostError::PluginRefused {
                path: huge.clone(),
                why: "not a plugin".into(),
            },
        ];
        let run = "ü".repeat(QUOTE_CHARS + 1);
        for (index, error) in cases.into_iter().enumerate() {
            let status = to_status(error);
            assert!(status.message().len() <= MAX_MESSAGE_BYTES);
            // The host quotes input briefly; a message made elsewhere (a
            // plugin's) is only capped.
            if index != 1 {
                assert!(!status.message().contains(&run), "{}", status.message());
            }
            let info = status.get_details_error_info().expect("ErrorInfo");
            for value in info.metadata.values() {
                assert!(value.chars().count() <= QUOTE_CHARS + 1, "{value}");
            }
        }
        let quoted = HostError::UnknownMatch { match_id: huge }.to_string();
        assert_eq!(
            quoted.chars().count(),
            "no match ``".len() + QUOTE_CHARS + 1
        );
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
