//! The table of reasons: every `google.rpc.ErrorInfo` reason this server
//! sends, with its status code, its metadata keys, its meaning and the
//! clients' typed error for it. It is the only definition: the services'
//! errors ([`super::status::to_status`]) and the limits layer's refusals
//! ([`super::layer`]) build their statuses from it
//! ([`super::status::Described`]), and the tables in
//! `proto/tabletop/v1/matches.proto` and the README and the Python and
//! TypeScript clients' maps of typed errors are written from it by the
//! `reasons` tool of the `tabletop-tests` crate, whose test fails when one
//! of them differs.

use tonic::Code;

/// One metadata key of a reason, and what a reader should know about its
/// value beyond the name (empty when the name says it all).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetadataKey {
    /// The key.
    pub name: &'static str,
    /// About its value: its form or when it is there.
    pub about: &'static str,
}

/// A key whose name says what it holds.
const fn key(name: &'static str) -> MetadataKey {
    MetadataKey { name, about: "" }
}

/// A key with a word about its value.
const fn key_about(name: &'static str, about: &'static str) -> MetadataKey {
    MetadataKey { name, about }
}

/// The keys a shorthand (one notation standing for several actions) adds
/// to whatever refused one of its steps: which step, of how many.
pub const STEP_KEYS: [MetadataKey; 2] = [key_about("step", "counting from 1"), key("steps")];

/// Which key a limit counted, in every refusal by a limit.
const CREDENTIAL_KEY: MetadataKey = key_about(
    "credential",
    "the key counted: admin, anonymous, seat, unproven seat token, unrecognized or an id",
);

/// The metadata of every refusal by a limit of the layer.
const LIMIT_KEYS: &[MetadataKey] = &[
    key("limit"),
    key("max"),
    CREDENTIAL_KEY,
    key("retry_after_ms"),
];

/// The metadata of a refusal by a limit that is the server's or the
/// credential's, or its tenant's: then also which tenant.
const QUOTA_KEYS: &[MetadataKey] = &[
    key("limit"),
    key("max"),
    CREDENTIAL_KEY,
    key("retry_after_ms"),
    key_about(
        "tenant",
        "when the limit is the tenant's: limit tenant_creates_per_minute or tenant_live_matches",
    ),
];

/// Defines [`Reason`] and its table from one list: each row's meaning is
/// its variant's doc comment, so the list cannot leave a reason out of
/// [`Reason::ALL`] or undescribed.
macro_rules! reasons {
    ($(
        $(#[doc = $meaning:literal])+
        $variant:ident = $name:expr, $code:ident, $keys:expr, $typed:expr;
    )+) => {
        /// A reason of the table (see the module docs).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Reason {
            $($(#[doc = $meaning])+ $variant,)+
        }

        impl Reason {
            /// Every reason, in the order the tables list them.
            pub const ALL: &'static [Reason] = &[$(Reason::$variant),+];

            /// The `ErrorInfo` reason, UPPER_SNAKE; `None` for
            /// [`Reason::GameRefusal`], whose reason is the game's own code.
            pub fn name(self) -> Option<&'static str> {
                match self {
                    $(Reason::$variant => $name,)+
                }
            }

            /// The status code it is sent with.
            pub fn code(self) -> Code {
                match self {
                    $(Reason::$variant => Code::$code,)+
                }
            }

            /// The metadata keys it may carry (besides a shorthand's
            /// [`STEP_KEYS`]).
            pub fn metadata(self) -> &'static [MetadataKey] {
                match self {
                    $(Reason::$variant => const { $keys },)+
                }
            }

            /// When it is sent, in one line.
            pub fn meaning(self) -> &'static str {
                match self {
                    $(Reason::$variant => concat!($($meaning),+).trim_start(),)+
                }
            }

            /// The class the Python and TypeScript clients raise for it
            /// (both name them alike); `None`: their base `TabletopError`.
            pub fn typed_error(self) -> Option<&'static str> {
                match self {
                    $(Reason::$variant => $typed,)+
                }
            }
        }
    };
}

reasons! {
    /// a field is missing or has a value the server does not know
    InvalidRequest = Some("INVALID_REQUEST"), InvalidArgument, &[], None;
    /// CreateMatch: players, time control or open seats do not fit the game
    InvalidSetup = Some("INVALID_SETUP"), InvalidArgument, &[], None;
    /// a game option is unknown, mistyped or out of range
    InvalidOption = Some("INVALID_OPTION"), InvalidArgument, &[], None;
    /// `start_position` does not parse or is impossible
    InvalidPosition = Some("INVALID_POSITION"), InvalidArgument, &[], None;
    /// an action's notation does not parse, or stands for no action
    InvalidNotation = Some("INVALID_NOTATION"), InvalidArgument, &[], Some("InvalidNotation");
    /// the action is not legal now for this seat
    IllegalAction = Some("ILLEGAL_ACTION"), InvalidArgument, &[], Some("IllegalAction");
    /// a game that explains its refusals says why: its own reason code (each
    /// game's README lists them) and a message citing the rule, in place of
    /// the two reasons above
    GameRefusal = None, InvalidArgument,
        &[key_about("refusal", "INVALID_NOTATION or ILLEGAL_ACTION")], None;
    /// ImportRecord: the record does not parse, does not replay, or was altered
    InvalidRecord = Some("INVALID_RECORD"), InvalidArgument, &[], None;
    /// LoadPlugin: the file is not a usable plugin
    PluginRefused = Some("PLUGIN_REFUSED"), InvalidArgument, &[key("path")], None;
    /// no game of this name is loaded
    UnknownGame = Some("UNKNOWN_GAME"), NotFound, &[key("game")], Some("UnknownGame");
    /// the game is loaded, not in this version
    UnknownGameVersion = Some("UNKNOWN_GAME_VERSION"), NotFound,
        &[key("game"), key("version"), key_about("loaded_versions", "comma-separated")],
        Some("UnknownGame");
    /// ListMatches: `page_token` is not one this server issued for these filters
    InvalidPageToken = Some("INVALID_PAGE_TOKEN"), InvalidArgument, &[], Some("InvalidPageToken");
    /// no match has this id
    UnknownMatch = Some("UNKNOWN_MATCH"), NotFound, &[key("match_id")], Some("UnknownMatch");
    /// the match finished and a store that keeps finished matches in memory dropped it
    MatchExpired = Some("MATCH_EXPIRED"), NotFound, &[key("match_id"), key("kept")], None;
    /// JoinMatch: the match has no such seat
    UnknownSeat = Some("UNKNOWN_SEAT"), NotFound, &[key("seat"), key("players")], None;
    /// LoadPlugin: the file cannot be read
    PluginFileUnreadable = Some("PLUGIN_FILE_UNREADABLE"), NotFound, &[key("path")], None;
    /// the match is not at `expected_version`
    StaleVersion = Some("STALE_VERSION"), FailedPrecondition,
        &[key("expected_version"), key("current_version")], Some("StaleVersion");
    /// the seat is not to move now (or, within a shorthand, no longer)
    NotYourTurn = Some("NOT_YOUR_TURN"), FailedPrecondition,
        &[key("seat"), key_about("seat_name", "when the server names it")], Some("NotYourTurn");
    /// the seat already acted in this simultaneous turn
    AlreadyActed = Some("ALREADY_ACTED"), FailedPrecondition,
        &[key("seat"), key("seat_name")], Some("AlreadyActed");
    /// the match has ended
    MatchOver = Some("MATCH_OVER"), FailedPrecondition,
        &[key_about("clock_ran_out", "\"true\" when a clock ended it just now")],
        Some("MatchOver");
    /// the match waits for players to join its open seats
    NotStarted = Some("NOT_STARTED"), FailedPrecondition, &[], Some("NotStarted");
    /// JoinMatch: the seat has a player
    SeatTaken = Some("SEAT_TAKEN"), FailedPrecondition, &[key("seat"), key("seat_name")], None;
    /// JoinMatch: the match has no open seat
    NoOpenSeat = Some("NO_OPEN_SEAT"), FailedPrecondition, &[], None;
    /// the game does not offer this, or a shorthand in a simultaneous turn
    Unsupported = Some("UNSUPPORTED"), FailedPrecondition, &[], None;
    /// ImportRecord: the record's plugin version is not loaded
    GameNotLoaded = Some("GAME_NOT_LOADED"), FailedPrecondition,
        &[key("game"), key("version")], None;
    /// a director paused the match; actions wait until it resumes
    MatchPaused = Some("MATCH_PAUSED"), FailedPrecondition, &[], Some("MatchPaused");
    /// a director's control does not apply to the match as it is (pausing a
    /// paused match, adding time to a match without a clock)
    ControlRefused = Some("CONTROL_REFUSED"), FailedPrecondition, &[], Some("ControlRefused");
    /// the match is quarantined: its plugin's worker died in one of its
    /// calls; a director may abort or adjudicate it, the admin may lift it
    MatchQuarantined = Some("MATCH_QUARANTINED"), FailedPrecondition,
        &[key("match_id"), key("quarantine_reason")], Some("MatchQuarantined");
    /// CreateMatch, ImportRecord: the plugin faulted too often lately
    /// (`--plugin-faults` within `--plugin-fault-window-s`) and takes no new
    /// matches until its faults age out
    PluginSuspended = Some("PLUGIN_SUSPENDED"), FailedPrecondition,
        &[key("game"), key("version"), key("faults"), key("window_s")], None;
    /// CreateMatch, ImportRecord: the admin retired this plugin version; it
    /// takes no new matches
    PluginRetired = Some("PLUGIN_RETIRED"), FailedPrecondition,
        &[key("game"), key("version")], None;
    /// CreateMatch: the `request_id` was used for a different request
    RequestIdReused = Some("REQUEST_ID_REUSED"), AlreadyExists,
        &[key("request_id"), key("match_id")], Some("RequestIdReused");
    /// CreateMatch, ImportRecord: files with different content claim this
    /// game version; none is chosen until all but one are removed
    AmbiguousGameVersion = Some("AMBIGUOUS_GAME_VERSION"), FailedPrecondition,
        &[key("game"), key("version"), key_about("files", "comma-separated")], None;
    /// LoadPlugin: another file provides this game version
    PluginConflict = Some("PLUGIN_CONFLICT"), FailedPrecondition,
        &[key("game"), key("version"), key("existing_file")], None;
    /// the call needs a token and got none
    TokenRequired = Some("TOKEN_REQUIRED"), Unauthenticated,
        &[key_about("credential", "seat, admin, organizer, join_code")], Some("TokenRequired");
    /// the token is not one this server knows for this (wrong, or revoked)
    BadToken = Some("BAD_TOKEN"), PermissionDenied,
        &[key_about("credential", "seat, admin, bearer, join_code")], Some("BadToken");
    /// the caller's valid credential does not allow this call
    NotPermitted = Some("NOT_PERMITTED"), PermissionDenied,
        &[key_about("credential", "the weakest that would do: organizer or admin")],
        Some("NotPermitted");
    /// an Admin call on a connection without a client certificate, when the
    /// server requires one for Admin (`--tls-client-ca`)
    ClientCertificateRequired = Some("CLIENT_CERTIFICATE_REQUIRED"), Unauthenticated,
        &[key_about("credential", "client_certificate")], None;
    /// the match's plugin version is not loaded here, or its stored data
    /// is damaged (`unavailable_reason` says which)
    MatchUnavailable = Some("MATCH_UNAVAILABLE"), Unavailable,
        &[key("match_id"), key("unavailable_reason")], None;
    /// the server is stopping: ends every open Watch stream
    ShuttingDown = Some("SHUTTING_DOWN"), Unavailable, &[], Some("ShuttingDown");
    /// a Watch stream or lifecycle feed whose client read nothing while its
    /// queue was full (`--stream-buffer-bytes`) for `--stream-patience-ms`:
    /// open it again after the last event or row received
    StreamFellBehind = Some("STREAM_FELL_BEHIND"), Unavailable,
        &[key_about("after_seq", "Watch streams: the last event queued"),
          key_about("after_cursor", "lifecycle feeds: the last row queued"),
          key("buffer_bytes")],
        Some("StreamFellBehind");
    /// the server, the caller or the seat has its most streams open
    /// (`--max-streams`, `--max-streams-per-caller`, `--max-streams-per-seat`)
    StreamLimit = Some("STREAM_LIMIT"), ResourceExhausted, LIMIT_KEYS, Some("Throttled");
    /// the server is serving its most calls at once (`--max-calls-in-flight`);
    /// answered at once
    ServerBusy = Some("SERVER_BUSY"), Unavailable, LIMIT_KEYS, Some("Throttled");
    /// the caller's credential has its most calls in flight
    /// (`--credential-calls-in-flight`)
    TooManyCallsInFlight = Some("TOO_MANY_CALLS_IN_FLIGHT"), ResourceExhausted, LIMIT_KEYS,
        Some("Throttled");
    /// the caller's credential is over its calls per second (`--credential-rate`)
    RateLimited = Some("RATE_LIMITED"), ResourceExhausted, LIMIT_KEYS, Some("Throttled");
    /// the caller's credential, or all its tenant's credentials together,
    /// created or imported their most matches of the last minute
    /// (`--creates-per-minute`, `--tenant-creates-per-minute`)
    CreationQuota = Some("CREATION_QUOTA"), ResourceExhausted, QUOTA_KEYS, Some("Throttled");
    /// the server, or the caller's tenant, holds its most live matches
    /// (`--max-live-matches`, `--tenant-max-live-matches`)
    LiveMatchLimit = Some("LIVE_MATCH_LIMIT"), ResourceExhausted, QUOTA_KEYS, Some("Throttled");
    /// the call took longer than the request timeout (`--request-timeout-ms`)
    RequestTimeout = Some("REQUEST_TIMEOUT"), DeadlineExceeded, &[key("timeout_ms")], None;
    /// the reply is larger than the server's cap (`--max-reply-bytes`)
    ReplyTooLarge = Some("REPLY_TOO_LARGE"), ResourceExhausted, &[], None;
    /// the game's plugin did not answer in time
    PluginTimeout = Some("PLUGIN_TIMEOUT"), Internal, &[key("deadline_ms")], None;
    /// the game's plugin failed in this call (a bug in the plugin); when its
    /// worker died, the match is quarantined
    PluginFault = Some("PLUGIN_FAULT"), Unavailable, &[], Some("PluginFault");
    /// the plugin's worker died during the call because of another match's
    /// call, and again when the call was made again; nothing changed: call
    /// again
    PluginRestarted = Some("PLUGIN_RESTARTED"), Unavailable, &[], None;
    /// the server cannot reach its match store's database (PostgreSQL down
    /// or restarting), so the call's change was not acknowledged as stored;
    /// call again once it is back (the health service says NOT_SERVING
    /// meanwhile)
    StoreUnavailable = Some("STORE_UNAVAILABLE"), Unavailable, &[], Some("StoreUnavailable");
    /// another host of the same database serves the match now (its lease
    /// moved while this host held it); nothing changed: call again, through
    /// any host
    MatchMoved = Some("MATCH_MOVED"), Unavailable, &[key("match_id")], None;
    /// a fault of the server
    Internal = Some("INTERNAL"), Internal, &[], None;
}

impl Reason {
    /// The reason of a received `ErrorInfo` (`reason` and its metadata's
    /// keys): a reason of the table, or a game's own code, known by its
    /// `refusal` metadata naming one of the two host reasons it stands
    /// for. `None`: the table lacks it.
    pub fn of_sent(reason: &str, refusal: Option<&str>) -> Option<Reason> {
        if let Some(kind) = refusal {
            let stands_for = [Reason::InvalidNotation, Reason::IllegalAction]
                .iter()
                .any(|host| host.name() == Some(kind));
            return stands_for.then_some(Reason::GameRefusal);
        }
        Reason::ALL
            .iter()
            .copied()
            .find(|known| known.name() == Some(reason))
    }

    /// Whether `key` is one of its metadata keys or a shorthand's.
    pub fn has_key(self, key: &str) -> bool {
        self.metadata()
            .iter()
            .chain(STEP_KEYS.iter())
            .any(|known| known.name == key)
    }

    /// Checks a received `ErrorInfo` against the table: its reason is one
    /// of the table's (or a game's code with `refusal` metadata) and each
    /// of its metadata keys is one of that reason's. The error says what
    /// the table lacks.
    pub fn check_sent<'a>(
        reason: &str,
        keys: impl IntoIterator<Item = &'a str>,
        refusal: Option<&str>,
    ) -> Result<Reason, String> {
        let known = Reason::of_sent(reason, refusal)
            .ok_or_else(|| format!("the table of reasons has no reason `{reason}`"))?;
        match keys.into_iter().find(|key| !known.has_key(key)) {
            Some(key) => Err(format!(
                "the table of reasons gives `{reason}` no metadata key `{key}`"
            )),
            None => Ok(known),
        }
    }
}

/// The UPPER_SNAKE name of a status code, as the gRPC spec and the tables
/// write it.
pub fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn every_reason_is_named_once_and_upper_snake() {
        let mut seen = HashSet::new();
        for reason in Reason::ALL {
            let Some(name) = reason.name() else {
                assert_eq!(*reason, Reason::GameRefusal);
                continue;
            };
            assert!(seen.insert(name), "{name} twice");
            assert!(
                name.chars().all(|c| c.is_ascii_uppercase() || c == '_'),
                "{name}"
            );
            assert!(!reason.meaning().is_empty(), "{name}");
            assert!(!reason.meaning().starts_with(' '), "{name}");
        }
    }

    #[test]
    fn a_received_reason_is_checked_against_the_table() {
        assert_eq!(
            Reason::check_sent("STALE_VERSION", ["current_version"], None),
            Ok(Reason::StaleVersion)
        );
        assert_eq!(
            Reason::check_sent("ILLEGAL_ACTION", ["step", "steps"], None),
            Ok(Reason::IllegalAction)
        );
        assert_eq!(
            Reason::check_sent("RED_LINE", ["refusal"], Some("ILLEGAL_ACTION")),
            Ok(Reason::GameRefusal)
        );
        assert!(Reason::check_sent("RED_LINE", ["refusal"], Some("SOMETHING")).is_err());
        assert!(Reason::check_sent("RED_LINE", [], None).is_err());
        assert!(Reason::check_sent("STALE_VERSION", ["seat"], None).is_err());
    }
}
