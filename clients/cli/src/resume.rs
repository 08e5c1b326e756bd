//! Streams the server cut for reading too slowly, or whose match moved to
//! another host of the server's database (`MATCH_MOVED`), opened again
//! where they stopped.
//!
//! A Watch stream or lifecycle feed whose client leaves the server's queue
//! full is ended with UNAVAILABLE, reason `STREAM_FELL_BEHIND`, naming the
//! last event (`after_seq`) or row (`after_cursor`) queued. Everything
//! queued arrives before the status, so that is also the last one this
//! client received: the stream goes on after it, with no gap and none twice.

use tonic_types::StatusExt;

/// Where to resume the stream `status` ended, read from its `key`
/// (`after_seq` or `after_cursor`); `None` unless the server cut it for
/// falling behind.
pub fn after_fell_behind(status: &tonic::Status, key: &str) -> Option<u64> {
    let info = status.get_details_error_info()?;
    if info.reason != "STREAM_FELL_BEHIND" {
        return None;
    }
    info.metadata.get(key)?.parse().ok()
}

/// Whether `status` says another host of the server's database serves the
/// match now (`MATCH_MOVED`): a Watch stream goes on after its last event,
/// through the same server.
pub fn match_moved(status: &tonic::Status) -> bool {
    status
        .get_details_error_info()
        .is_some_and(|info| info.reason == "MATCH_MOVED")
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic_types::ErrorDetails;

    fn status(reason: &str, key: &str, value: &str) -> tonic::Status {
        let details = ErrorDetails::with_error_info(
            reason,
            "tabletop",
            [(key.to_string(), value.to_string())],
        );
        tonic::Status::with_error_details(tonic::Code::Unavailable, "cut", details)
    }

    #[test]
    fn only_a_cut_for_falling_behind_resumes_and_at_the_position_it_names() {
        assert_eq!(
            after_fell_behind(
                &status("STREAM_FELL_BEHIND", "after_seq", "41"),
                "after_seq"
            ),
            Some(41)
        );
        assert_eq!(
            after_fell_behind(
                &status("STREAM_FELL_BEHIND", "after_seq", "41"),
                "after_cursor"
            ),
            None
        );
        assert_eq!(
            after_fell_behind(&status("SHUTTING_DOWN", "after_seq", "41"), "after_seq"),
            None
        );
        assert_eq!(
            after_fell_behind(&tonic::Status::unavailable("gone"), "after_seq"),
            None
        );
    }
}
