//! What a call costs, charged to the rate bucket that admitted it.
//!
//! A call is admitted for one token of its key's bucket (`--credential-rate`
//! per second). Once answered it pays for what it took beyond a cheap
//! call's share: one token per [`WORK_UNIT`] of CPU the handlers' core
//! calls used past the first unit (replays, renders, rows read all take it;
//! waits for locks and fsyncs do not),
//! and one per [`BYTES_UNIT`] of reply past the first unit. The bucket may
//! go into debt by up to a second's worth of tokens, which the key's later
//! calls wait out. So the rate is a budget of server work per second, not a
//! count of calls: a credential that asks for a thousand events with views
//! at a time gets a few dozen such answers a second, not twenty thousand.
//!
//! The work is measured where it runs: each core call a handler makes on
//! the blocking pool adds its thread's CPU time to its call's meter
//! ([`add_work`]), which the
//! layer sets for the handler's future ([`CallCost::meter`]); the reply's
//! bytes are counted as the layer's body sends them. A streaming call pays
//! for its start only: its stream's messages are bounded by the stream's
//! own budget (`outbound`).

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::limits::{Key, Limiter, SeatCharge};
use super::pool_share::Sharer;

/// Handler time one token pays for: 20,000 tokens a second (the default
/// rate) are one core's worth.
pub const WORK_UNIT: Duration = Duration::from_micros(50);

/// Reply bytes one token pays for.
pub const BYTES_UNIT: u64 = 16 * 1024;

tokio::task_local! {
    /// The current call's meter.
    static CALL: Arc<Meter>;
}

/// What a call's core calls add to as they run, and whom they are for.
#[derive(Debug)]
struct Meter {
    /// The running time of the call's core calls, in µs.
    work: AtomicU64,
    payer: Payer,
}

/// The CPU time the calling thread has used: a call's work, unlike its
/// wall time, leaves out its waits for locks and fsyncs. Zero where the
/// clock cannot be read.
pub fn thread_cpu() -> Duration {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID)
        .map(Duration::from)
        .unwrap_or_default()
}

/// Adds `ran` to the meter of the call being served, if it has one.
pub fn add_work(ran: Duration) {
    let micros = u64::try_from(ran.as_micros()).unwrap_or(u64::MAX);
    let _ = CALL.try_with(|meter| meter.work.fetch_add(micros, Ordering::Relaxed));
}

/// Whose share of the blocking pool the call being served takes
/// (`pool_share`): the bucket it pays into. `None` outside a call.
pub fn sharer() -> Option<Sharer> {
    CALL.try_with(|meter| match &meter.payer {
        Payer::Key(key) => Sharer::Key(key.clone()),
        Payer::Seat(seat) => match seat.charged_to() {
            Some(hash) => Sharer::Seat(hash),
            None => Sharer::Key(Key::Anonymous),
        },
    })
    .ok()
}

/// The tokens a call owes beyond the one it was admitted for.
pub fn owed(work: Duration, reply_bytes: u64) -> f64 {
    let unit = WORK_UNIT.as_secs_f64();
    let work_tokens = (work.as_secs_f64() / unit - 1.0).max(0.0);
    let byte_tokens = (reply_bytes as f64 / BYTES_UNIT as f64 - 1.0).max(0.0);
    (work_tokens + byte_tokens).floor()
}

/// Whose bucket a call's cost goes to.
#[derive(Debug)]
enum Payer {
    /// The key the layer admitted it under.
    Key(Key),
    /// The seat (or shared bucket) its handler charged it to.
    Seat(SeatCharge),
}

/// One call's cost as it accrues: its handlers' work and its reply's bytes.
#[derive(Debug)]
pub struct CallCost {
    limiter: Arc<Limiter>,
    meter: Arc<Meter>,
    bytes: u64,
    settled: bool,
}

impl CallCost {
    /// The cost of a call admitted under `key`, or, for a seat's call,
    /// charged by its handler through `seat`.
    pub fn new(limiter: Arc<Limiter>, key: &Key, seat: Option<SeatCharge>) -> CallCost {
        CallCost {
            limiter,
            meter: Arc::new(Meter {
                work: AtomicU64::new(0),
                payer: match seat {
                    Some(seat) => Payer::Seat(seat),
                    None => Payer::Key(key.clone()),
                },
            }),
            bytes: 0,
            settled: false,
        }
    }

    /// `call` with this cost's meter running for every core call it makes.
    pub fn meter<F: Future>(&self, call: F) -> impl Future<Output = F::Output> {
        CALL.scope(Arc::clone(&self.meter), call)
    }

    /// Counts `bytes` more of the reply.
    pub fn sent(&mut self, bytes: usize) {
        self.bytes += bytes as u64;
    }

    /// Charges what the call owes, once (the reply has ended, or the client
    /// went away).
    pub fn settle(&mut self, now: Instant) {
        if std::mem::replace(&mut self.settled, true) {
            return;
        }
        let work = Duration::from_micros(self.meter.work.load(Ordering::Relaxed));
        let tokens = owed(work, self.bytes);
        if tokens <= 0.0 {
            return;
        }
        match &self.meter.payer {
            Payer::Key(key) => self.limiter.spend(key, tokens, now),
            Payer::Seat(seat) => seat.spend(tokens, now),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cheap_call_owes_nothing_and_a_heavy_one_its_work_and_bytes() {
        assert_eq!(owed(Duration::from_micros(40), 900), 0.0);
        assert_eq!(
            owed(WORK_UNIT, BYTES_UNIT),
            0.0,
            "one unit of each is the admission's"
        );
        assert_eq!(owed(Duration::from_millis(20), 0), 399.0);
        assert_eq!(owed(Duration::ZERO, 1 << 20), 63.0);
        assert_eq!(owed(Duration::from_millis(1), 64 * 1024), 19.0 + 3.0);
    }

    #[tokio::test]
    async fn work_is_metered_only_inside_the_calls_scope() {
        add_work(Duration::from_secs(1));
        let limiter = Limiter::new(super::super::limits::LimitConfig {
            server_calls: 0,
            credential_calls: 0,
            credential_rate: 100,
            creates_per_minute: 0,
            live_matches: 0,
            tenant_live_matches: 0,
            tenant_creates_per_minute: 0,
        });
        let cost = CallCost::new(limiter, &Key::Anonymous, None);
        cost.meter(async {
            add_work(Duration::from_millis(2));
            tokio::task::yield_now().await;
            add_work(Duration::from_millis(3));
        })
        .await;
        assert_eq!(cost.meter.work.load(Ordering::Relaxed), 5000);
    }
}
