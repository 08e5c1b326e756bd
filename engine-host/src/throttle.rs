//! A log line that may repeat once per call: a full disk refuses every
//! write, and a line per refused call would fill the log (and the disk it
//! is on) faster than the calls do.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Lets a repeated log line through at most once per interval, counting
/// the ones it held back.
#[derive(Debug)]
pub struct Throttle {
    every: Duration,
    /// When a line last went through, and how many were held back since.
    state: Mutex<(Option<Instant>, u64)>,
}

impl Throttle {
    /// At most one line per `every`.
    pub const fn new(every: Duration) -> Throttle {
        Throttle {
            every,
            state: Mutex::new((None, 0)),
        }
    }

    /// Whether a line may be logged now: `Some(n)`, `n` lines having been
    /// held back since the last one (say so in the line), or `None`.
    pub fn admit(&self) -> Option<u64> {
        self.admit_at(Instant::now())
    }

    fn admit_at(&self, now: Instant) -> Option<u64> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let (last, held) = &mut *state;
        if last.is_some_and(|at| now.duration_since(at) < self.every) {
            *held += 1;
            return None;
        }
        *last = Some(now);
        Some(std::mem::take(held))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_repeated_within_the_interval_is_held_back_and_counted() {
        let throttle = Throttle::new(Duration::from_secs(1));
        let start = Instant::now();
        let at = |ms| start + Duration::from_millis(ms);
        assert_eq!(throttle.admit_at(at(0)), Some(0));
        assert_eq!(throttle.admit_at(at(400)), None);
        assert_eq!(throttle.admit_at(at(999)), None);
        assert_eq!(throttle.admit_at(at(1_000)), Some(2));
        assert_eq!(throttle.admit_at(at(1_500)), None);
    }
}
