//! A spectator delay (broadcast tournaments): while a match runs,
//! spectators see it some versions and/or some time behind, so that a
//! player cannot learn from the broadcast what the opponent sees live;
//! seats see their own view live.
//!
//! `Match::spectator_horizon` is the one place that says what spectators
//! may see now: the latest version, the last event, and when the next
//! version shows without another move. Every spectator read (views, past
//! views, watch streams, pages of events, listings) goes through it.
//!
//! Once the match is finished the delay no longer applies: the result is
//! public, and holding back the moves that led to it protects no one.

use serde::{Deserialize, Serialize};

use crate::error::{HostError, HostResult};
use crate::log::LogEntry;

/// Most versions a delay may hold back.
pub const MAX_DELAY_MOVES: u32 = 1000;
/// Longest time a delay may hold back: an hour.
pub const MAX_DELAY_MS: i64 = 3_600_000;

/// How far behind a running match spectators see it: `moves` versions
/// (moves, chance outcomes and every other state change) and/or `ms`
/// milliseconds. With both, a version shows once both allow it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SpectatorDelay {
    /// Versions held back (at most [`MAX_DELAY_MOVES`]).
    #[serde(default, skip_serializing_if = "is_zero_moves")]
    pub moves: u32,
    /// Milliseconds held back (at most [`MAX_DELAY_MS`]).
    #[serde(default, skip_serializing_if = "is_zero_ms")]
    pub ms: i64,
}

fn is_zero_moves(moves: &u32) -> bool {
    *moves == 0
}

fn is_zero_ms(ms: &i64) -> bool {
    *ms == 0
}

impl SpectatorDelay {
    /// Whether it holds nothing back (both bounds zero).
    pub fn is_none(&self) -> bool {
        self.moves == 0 && self.ms == 0
    }

    /// Refuses a delay out of range.
    pub fn check(&self) -> Result<(), String> {
        if self.moves > MAX_DELAY_MOVES {
            return Err(format!(
                "a spectator delay is at most {MAX_DELAY_MOVES} moves, not {}",
                self.moves
            ));
        }
        if !(0..=MAX_DELAY_MS).contains(&self.ms) {
            return Err(format!(
                "a spectator delay is 0 to {MAX_DELAY_MS} ms (an hour), not {}",
                self.ms
            ));
        }
        Ok(())
    }

    /// The latest version of `log` this delay shows at `now_ms`: the
    /// largest version at most `moves` below the last whose entry is at
    /// least `ms` old (version 0, the match as created, always shows).
    /// With it, when the next version shows if no other entry is logged
    /// first (`None`: only a new entry can move it, or none is held back).
    pub fn visible_version(&self, log: &[LogEntry], now_ms: i64) -> (u64, Option<i64>) {
        let current = log.len() as u64;
        let cap = current.saturating_sub(u64::from(self.moves));
        let old_enough = |entry: &LogEntry| entry.at_ms.saturating_add(self.ms) <= now_ms;
        // Entries are logged in time order, so the walk back from the cap
        // passes only the entries of the last `ms`.
        let visible = (1..=cap)
            .rev()
            .find(|&v| old_enough(&log[v as usize - 1]))
            .unwrap_or(0);
        let next_at = log[visible as usize..cap as usize]
            .iter()
            .map(|entry| entry.at_ms.saturating_add(self.ms))
            .min();
        (visible, next_at)
    }
}

/// What spectators may see of a match at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpectatorHorizon {
    /// The latest version they may see.
    pub version: u64,
    /// The sequence number of the last event they may be told.
    pub seq: u64,
    /// Whether a delay applies: the match runs with a spectator delay.
    /// It says nothing of whether something is held back right now, which
    /// would tell when the last move was made.
    pub delayed: bool,
    /// When the next version shows without another entry being logged, ms
    /// since the Unix epoch; `None` when only a new entry (or the end of
    /// the match) can move the horizon.
    pub next_at_ms: Option<i64>,
}

impl SpectatorHorizon {
    /// Refuses a version beyond what a delay shows, without telling the
    /// live version (a version beyond the match itself is refused where it
    /// is looked up).
    pub fn check_version(&self, version: u64) -> HostResult<()> {
        if self.delayed && version > self.version {
            return Err(HostError::InvalidRequest(format!(
                "version {version} is beyond what spectators may see of this match now \
                 (version {}): it has a spectator delay",
                self.version
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::LogKind;

    /// A log of `times.len()` entries, entry i logged at `times[i]`.
    fn log_at(times: &[i64]) -> Vec<LogEntry> {
        times
            .iter()
            .enumerate()
            .map(|(i, &at_ms)| LogEntry {
                version: i as u64 + 1,
                at_ms,
                kind: LogKind::Chance { outcome: 0 },
            })
            .collect()
    }

    fn delay(moves: u32, ms: i64) -> SpectatorDelay {
        SpectatorDelay { moves, ms }
    }

    #[test]
    fn a_move_delay_shows_the_version_that_many_behind() {
        let log = log_at(&[10, 20, 30, 40, 50]);
        assert_eq!(delay(2, 0).visible_version(&log, 50), (3, None));
        assert_eq!(delay(1, 0).visible_version(&log, 50), (4, None));
        assert_eq!(delay(5, 0).visible_version(&log, 50), (0, None));
    }

    #[test]
    fn version_zero_always_shows() {
        assert_eq!(delay(3, 0).visible_version(&log_at(&[1, 2]), 99), (0, None));
        assert_eq!(delay(0, 1000).visible_version(&[], 0), (0, None));
        let (version, next) = delay(0, 1000).visible_version(&log_at(&[500]), 600);
        assert_eq!((version, next), (0, Some(1500)));
    }

    #[test]
    fn a_time_delay_shows_the_entries_old_enough_and_says_when_the_next_shows() {
        let log = log_at(&[1000, 2000, 3000]);
        // At 3500 with 1 s: entries of 1000 and 2000 are old enough.
        assert_eq!(delay(0, 1000).visible_version(&log, 3500), (2, Some(4000)));
        // Exactly `ms` old shows.
        assert_eq!(delay(0, 1000).visible_version(&log, 4000), (3, None));
        assert_eq!(delay(0, 1000).visible_version(&log, 1999), (0, Some(2000)));
    }

    #[test]
    fn with_both_a_version_shows_once_both_allow_it() {
        let log = log_at(&[1000, 2000, 3000, 4000]);
        // Old enough: 1..=3; at most 2 behind the last: 1..=2.
        assert_eq!(delay(2, 1000).visible_version(&log, 4000), (2, None));
        // Old enough: 1..=1 only; the move bound would allow 2.
        assert_eq!(delay(2, 2500).visible_version(&log, 4000), (1, Some(4500)));
    }

    #[test]
    fn out_of_range_delays_are_refused() {
        assert!(delay(MAX_DELAY_MOVES, MAX_DELAY_MS).check().is_ok());
        assert!(delay(MAX_DELAY_MOVES + 1, 0).check().is_err());
        assert!(delay(0, MAX_DELAY_MS + 1).check().is_err());
        assert!(delay(0, -1).check().is_err());
        assert!(delay(0, 0).is_none());
        assert!(!delay(0, 1).is_none());
    }
}
