//! A stream's outbound queue, bounded in bytes.
//!
//! A stream's task makes messages faster than a slow client may take them.
//! Each queued message holds its encoded size of the stream's budget
//! (`--stream-buffer-bytes`) until the stream hands it to the transport; a
//! message that would take the queue past the budget waits for room. A
//! client that leaves its queue full for the stream's patience
//! (`--stream-patience-ms`) has fallen behind: the task cuts the stream with
//! a status that says where to resume ([`fell_behind`]), which the queue
//! takes past the budget as its last message.
//!
//! What the queue holds is the server's own buffer and the
//! `tabletop_stream_buffered_bytes` gauge. Past it, the HTTP/2 layer (hyper)
//! holds what the client's flow-control window lets it send but its socket
//! has not taken: up to 400 KiB per stream, hyper's default send buffer,
//! which tonic does not expose; the README states both parts of the bound.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tonic::Status;

use super::reason::Reason;
use super::status::Described;
use crate::metrics::metrics;

/// How much a stream may queue and how long its client may leave it full.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamBudget {
    /// The most bytes of encoded messages one stream queues.
    pub bytes: usize,
    /// How long a full queue waits for its client before the stream is cut.
    pub patience: Duration,
}

impl Default for StreamBudget {
    /// 64 KiB, and 10 s of patience.
    fn default() -> StreamBudget {
        StreamBudget {
            bytes: 64 * 1024,
            patience: Duration::from_secs(10),
        }
    }
}

/// The least a message is charged, so that a queue of tiny messages is
/// bounded in count too.
const MIN_CHARGE: usize = 64;

/// A message in the queue, with the room it holds.
pub(super) struct Queued<T> {
    pub(super) message: Result<T, Status>,
    _room: Option<Room>,
}

impl<T> Queued<T> {
    /// The message; the room it held is given back.
    pub(super) fn into_message(self) -> Result<T, Status> {
        self.message
    }
}

/// Bytes of a stream's budget held by one queued message: given back, and
/// taken off the gauge, when the message leaves the queue or the queue is
/// dropped.
struct Room {
    _permit: OwnedSemaphorePermit,
    bytes: usize,
}

impl Drop for Room {
    fn drop(&mut self) {
        metrics().stream_buffered(-(self.bytes as i64));
    }
}

/// Why a message was not queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NotSent {
    /// The stream has ended: its client went away or it was ended.
    Gone,
    /// The queue stayed full for the stream's patience.
    Behind,
}

/// The task's end of a stream's queue.
pub(super) struct Outbound<T> {
    tx: mpsc::UnboundedSender<Queued<T>>,
    room: Arc<Semaphore>,
    budget: StreamBudget,
}

/// A queue for one stream: the task's end and the stream's.
pub(super) fn queue<T>(budget: StreamBudget) -> (Outbound<T>, mpsc::UnboundedReceiver<Queued<T>>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let bytes = budget.bytes.clamp(MIN_CHARGE, Semaphore::MAX_PERMITS);
    let outbound = Outbound {
        tx,
        room: Arc::new(Semaphore::new(bytes)),
        budget: StreamBudget { bytes, ..budget },
    };
    (outbound, rx)
}

impl<T: prost::Message> Outbound<T> {
    /// Queues `message` once there is room for it: at once while the queue
    /// holds less than the budget less its size (a message larger than the
    /// whole budget waits for an empty queue).
    pub(super) async fn send(&self, message: T) -> Result<(), NotSent> {
        let bytes = message.encoded_len().max(MIN_CHARGE);
        let permits = u32::try_from(bytes.min(self.budget.bytes)).unwrap_or(u32::MAX);
        let permit = tokio::select! {
            permit = Arc::clone(&self.room).acquire_many_owned(permits) => {
                permit.map_err(|_| NotSent::Gone)?
            }
            () = self.tx.closed() => return Err(NotSent::Gone),
            () = tokio::time::sleep(self.budget.patience) => return Err(NotSent::Behind),
        };
        metrics().stream_buffered(bytes as i64);
        let room = Room {
            _permit: permit,
            bytes,
        };
        self.tx
            .send(Queued {
                message: Ok(message),
                _room: Some(room),
            })
            .map_err(|_| NotSent::Gone)
    }
}

impl<T> Outbound<T> {
    /// Queues `status`, the stream's last message, past the budget: it is
    /// small, one per stream, and the client should learn why its stream
    /// ended. False when the client has gone.
    pub(super) fn end_with(&self, status: Status) -> bool {
        self.tx
            .send(Queued {
                message: Err(status),
                _room: None,
            })
            .is_ok()
    }

    /// Resolves when the stream has ended (its client went away).
    pub(super) async fn closed(&self) {
        self.tx.closed().await
    }
}

/// The status that cuts a stream whose client fell behind: UNAVAILABLE,
/// reason STREAM_FELL_BEHIND, with `resume_key` (`after_seq` for a Watch
/// stream, `after_cursor` for a lifecycle feed) set to the last position the
/// server queued. The client resumes after the last it received, which is
/// never later.
pub(super) fn fell_behind(
    resume_key: &'static str,
    last_queued: u64,
    budget: StreamBudget,
) -> Status {
    metrics().stream_cut();
    Described::new(Reason::StreamFellBehind)
        .with(resume_key, last_queued)
        .with("buffer_bytes", budget.bytes)
        .retry_after(Duration::ZERO)
        .into_status(&format!(
            "the stream's client read nothing for {} ms while {} bytes waited for it; \
             resume with {resume_key} = the last one received",
            budget.patience.as_millis(),
            budget.bytes
        ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tabletop_proto::v1 as pb;
    use tonic_types::StatusExt;

    fn event(seq: u64, bytes: usize) -> pb::WatchEvent {
        pb::WatchEvent {
            version: seq,
            seq,
            at_ms: 0,
            kind: Some(pb::watch_event::Kind::Transition(pb::Transition {
                event_json: "x".repeat(bytes),
                view: None,
            })),
        }
    }

    #[tokio::test]
    async fn a_queue_holds_at_most_its_budget_and_gives_room_back_as_messages_leave() {
        let budget = StreamBudget {
            bytes: 1000,
            patience: Duration::from_millis(50),
        };
        let (outbound, mut rx) = queue::<pb::WatchEvent>(budget);
        let mut queued = 0;
        while outbound.send(event(queued + 1, 200)).await.is_ok() {
            queued += 1;
        }
        assert_eq!(
            queued, 4,
            "four messages of ~210 bytes fit in 1000, not five"
        );
        let first = rx.recv().await.expect("queued").into_message().unwrap();
        assert_eq!(first.seq, 1);
        assert_eq!(outbound.send(event(5, 200)).await, Ok(()));
        assert_eq!(outbound.send(event(6, 200)).await, Err(NotSent::Behind));
    }

    #[tokio::test]
    async fn a_message_larger_than_the_budget_waits_for_an_empty_queue() {
        let budget = StreamBudget {
            bytes: 500,
            patience: Duration::from_millis(50),
        };
        let (outbound, mut rx) = queue::<pb::WatchEvent>(budget);
        outbound.send(event(1, 100)).await.unwrap();
        assert_eq!(outbound.send(event(2, 5000)).await, Err(NotSent::Behind));
        drop(rx.recv().await);
        assert_eq!(outbound.send(event(2, 5000)).await, Ok(()));
    }

    #[tokio::test]
    async fn the_end_status_passes_a_full_queue_and_a_gone_client_is_told() {
        let budget = StreamBudget {
            bytes: 100,
            patience: Duration::from_secs(60),
        };
        let (outbound, mut rx) = queue::<pb::WatchEvent>(budget);
        outbound.send(event(1, 100)).await.unwrap();
        assert!(outbound.end_with(fell_behind("after_seq", 1, budget)));
        drop(rx.recv().await);
        let status = rx
            .recv()
            .await
            .expect("the end")
            .into_message()
            .unwrap_err();
        assert_eq!(status.code(), tonic::Code::Unavailable);
        let info = status.get_details_error_info().expect("ErrorInfo");
        assert_eq!(info.reason, "STREAM_FELL_BEHIND");
        assert_eq!(info.metadata["after_seq"], "1");
        drop(rx);
        assert_eq!(outbound.send(event(2, 10)).await, Err(NotSent::Gone));
    }
}
