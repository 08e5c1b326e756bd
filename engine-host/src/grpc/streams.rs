//! The open streams (Watch and lifecycle feeds), counted against whoever
//! opened them and against the server.
//!
//! A stream holds memory for as long as it is open (its queue, bounded by
//! `outbound`, and its task), so it counts for its whole life, not
//! only while it starts: a slot is taken when the stream is opened and given
//! back when the stream ends. A seat's streams count against the seat, an
//! organizer's against its credential, and streams opened without either
//! (spectators) against one anonymous key. The admin's count against the
//! server's cap only.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tonic::Status;

use super::reason::Reason;
use super::status::Described;
use crate::engine::Caller;
use crate::metrics::metrics;

/// How many streams may be open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamCaps {
    /// Streams open on the server at once.
    pub server: usize,
    /// Streams one organizer credential, or all anonymous callers together,
    /// hold open.
    pub per_caller: usize,
    /// Streams one seat holds open.
    pub per_seat: usize,
}

impl Default for StreamCaps {
    /// 20,000 on the server, 4,096 per caller, 16 per seat.
    fn default() -> StreamCaps {
        StreamCaps {
            server: 20_000,
            per_caller: 4_096,
            per_seat: 16,
        }
    }
}

/// Who a stream counts against.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Opener {
    /// The admin token: the server's cap only.
    Admin,
    /// No credential and no seat.
    Anonymous,
    /// An organizer credential, by id.
    Credential(String),
    /// A seat of a match.
    Seat {
        /// The match.
        match_id: String,
        /// The seat.
        seat: u32,
    },
}

impl Opener {
    /// Who opens a stream as `caller`, on `seat` of `match_id` if it
    /// watches as a seat.
    pub(super) fn of(caller: &Caller, seat: Option<(&str, u32)>) -> Opener {
        if let Some((match_id, seat)) = seat {
            return Opener::Seat {
                match_id: match_id.to_string(),
                seat,
            };
        }
        match caller {
            Caller::Admin => Opener::Admin,
            Caller::Anonymous => Opener::Anonymous,
            Caller::Organizer { credential_id, .. } => Opener::Credential(credential_id.clone()),
        }
    }

    /// How refusals name it (never by a token).
    fn name(&self) -> String {
        match self {
            Opener::Admin => "admin".into(),
            Opener::Anonymous => "anonymous".into(),
            Opener::Credential(id) => id.clone(),
            Opener::Seat { .. } => "seat".into(),
        }
    }
}

/// The counts of open streams.
#[derive(Debug, Default)]
pub struct OpenStreams {
    caps: StreamCaps,
    counts: Mutex<Counts>,
}

#[derive(Debug, Default)]
struct Counts {
    server: usize,
    /// Openers with at least one stream open: bounded by the streams.
    by_opener: HashMap<Opener, usize>,
}

/// One open stream's place in the counts, given back on drop.
#[derive(Debug)]
pub(super) struct StreamSlot {
    streams: Arc<OpenStreams>,
    opener: Opener,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let mut counts = self.streams.lock();
        counts.server = counts.server.saturating_sub(1);
        if let Some(open) = counts.by_opener.get_mut(&self.opener) {
            *open -= 1;
            if *open == 0 {
                counts.by_opener.remove(&self.opener);
            }
        }
    }
}

/// Which cap refused a stream, as refusals name it.
const SERVER_LIMIT: &str = "streams";
const CALLER_LIMIT: &str = "streams_per_caller";
const SEAT_LIMIT: &str = "streams_per_seat";

/// How long a refused opener is told to wait: streams end as their clients
/// leave, at no set time.
const RETRY_AFTER: Duration = Duration::from_secs(1);

impl OpenStreams {
    /// No stream open, under `caps`.
    pub fn new(caps: StreamCaps) -> OpenStreams {
        OpenStreams {
            caps,
            counts: Mutex::default(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Counts> {
        self.counts.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A slot for a stream `opener` opens, or the refusal of the cap it
    /// would pass: RESOURCE_EXHAUSTED, reason STREAM_LIMIT.
    pub(super) fn open(self: &Arc<Self>, opener: Opener) -> Result<StreamSlot, Status> {
        let mut counts = self.lock();
        let own_cap = match opener {
            Opener::Admin => None,
            Opener::Seat { .. } => Some((self.caps.per_seat, SEAT_LIMIT)),
            Opener::Anonymous | Opener::Credential(_) => Some((self.caps.per_caller, CALLER_LIMIT)),
        };
        let own = counts.by_opener.get(&opener).copied().unwrap_or(0);
        let refused = if counts.server >= self.caps.server {
            Some((self.caps.server, SERVER_LIMIT))
        } else {
            own_cap.filter(|&(cap, _)| own >= cap)
        };
        if let Some((max, limit)) = refused {
            drop(counts);
            metrics().stream_refused();
            return Err(Described::new(Reason::StreamLimit)
                .with("limit", limit)
                .with("max", max)
                .with("credential", opener.name())
                .with("retry_after_ms", RETRY_AFTER.as_millis())
                .retry_after(RETRY_AFTER)
                .into_status(&format!(
                    "{} has its most streams open ({max}, --max-{}); close one first",
                    match limit {
                        SERVER_LIMIT => "the server".to_string(),
                        _ => format!("`{}`", opener.name()),
                    },
                    limit.replace('_', "-")
                )));
        }
        counts.server += 1;
        *counts.by_opener.entry(opener.clone()).or_default() += 1;
        Ok(StreamSlot {
            streams: Arc::clone(self),
            opener,
        })
    }

    /// Streams open now.
    pub fn open_now(&self) -> usize {
        self.lock().server
    }
}

/// The reasons stream bounds send, in the table's order.
#[cfg(test)]
pub(crate) const REASONS: [Reason; 2] = [Reason::StreamFellBehind, Reason::StreamLimit];

#[cfg(test)]
mod tests {
    use super::*;

    fn organizer(id: &str) -> Caller {
        Caller::Organizer {
            credential_id: id.into(),
            name: id.into(),
            tenant: "t".into(),
        }
    }

    #[test]
    fn streams_count_per_opener_and_on_the_server_until_they_end() {
        let streams = Arc::new(OpenStreams::new(StreamCaps {
            server: 5,
            per_caller: 2,
            per_seat: 1,
        }));
        let a = Opener::of(&organizer("a"), None);
        let first = streams.open(a.clone()).unwrap();
        let _second = streams.open(a.clone()).unwrap();
        let refused = streams.open(a.clone()).unwrap_err();
        assert_eq!(refused.code(), tonic::Code::ResourceExhausted);
        let info = tonic_types::StatusExt::get_details_error_info(&refused).unwrap();
        assert_eq!(info.reason, "STREAM_LIMIT");
        assert_eq!(info.metadata["limit"], "streams_per_caller");
        assert_eq!(info.metadata["credential"], "a");
        let _b = streams.open(Opener::of(&organizer("b"), None)).unwrap();
        let seat = Opener::of(&Caller::Anonymous, Some(("m", 0)));
        let _seat = streams.open(seat.clone()).unwrap();
        assert!(streams.open(seat).is_err(), "one stream per seat");
        let _other_seat = streams
            .open(Opener::of(&Caller::Anonymous, Some(("m", 1))))
            .unwrap();
        assert_eq!(streams.open_now(), 5);
        let full = streams.open(Opener::Admin).unwrap_err();
        let info = tonic_types::StatusExt::get_details_error_info(&full).unwrap();
        assert_eq!(info.metadata["limit"], "streams");
        drop(first);
        assert_eq!(streams.open_now(), 4);
        let _again = streams.open(a).unwrap();
    }
}
