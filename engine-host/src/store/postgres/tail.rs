//! The feed's tail as the database knows it: lifecycle rows committed by
//! any host on the database, not only by this store's writer. Every
//! statement that inserts lifecycle rows also notifies the channel
//! [`CHANNEL`], which PostgreSQL delivers once its transaction commits; a
//! thread of the store listens on a connection of its own and, on each
//! notification, moves [`Store::lifecycle_tail`](crate::store::Store) to
//! the last number it names (on every new connection, in case one was
//! missed while it had none, and on a notification naming none, to the
//! counter's last number). Numbers are given in commit order (see
//! `apply.rs`), so a feed reading after its last number misses no row.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use postgres::fallible_iterator::FallibleIterator;

use super::connect::{Connection, Target};
use super::read;
use super::writer::RECONNECT_EVERY;

/// The channel lifecycle inserts notify.
pub(super) const CHANNEL: &str = "tabletop_lifecycle";

/// How often the listener looks whether its store is gone.
const TICK: Duration = Duration::from_millis(200);

/// The listening thread; stopped and joined when dropped.
#[derive(Debug)]
pub(super) struct Listener {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Listener {
    /// Starts listening on `target`, moving `tail` to each number
    /// committed.
    pub(super) fn start(
        target: &Target,
        tail: tokio::sync::watch::Sender<u64>,
    ) -> std::io::Result<Listener> {
        let stop = Arc::new(AtomicBool::new(false));
        let listening = Listening {
            target: target.clone(),
            tail,
            stop: Arc::clone(&stop),
        };
        let thread = std::thread::Builder::new()
            .name("store-feed".into())
            .spawn(move || listening.run())?;
        Ok(Listener {
            stop,
            thread: Some(thread),
        })
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

struct Listening {
    target: Target,
    tail: tokio::sync::watch::Sender<u64>,
    stop: Arc<AtomicBool>,
}

impl Listening {
    fn run(self) {
        let mut connection: Option<Connection> = None;
        let mut failed_at: Option<Instant> = None;
        while !self.stop.load(Ordering::Relaxed) {
            let Some(listening) = connection.as_mut() else {
                if failed_at.is_some_and(|at| at.elapsed() < RECONNECT_EVERY) {
                    std::thread::sleep(TICK);
                    continue;
                }
                // The writer and the readers report the server's
                // reachability; this thread only tries again.
                match self.listen() {
                    Some(listened) => {
                        connection = Some(listened);
                        failed_at = None;
                    }
                    None => failed_at = Some(Instant::now()),
                }
                continue;
            };
            let notified = listening.client.notifications().timeout_iter(TICK).next();
            let broken = match notified {
                Ok(Some(first)) => {
                    // Several commits may have notified meanwhile: each
                    // names its last number, and the highest answers them
                    // all; one that names none (a host of an earlier
                    // version) is answered by reading the counter.
                    let mut last = first.payload().parse::<u64>().ok();
                    {
                        let mut more = listening.client.notifications();
                        while let Ok(Some(next)) = more.iter().next() {
                            last = last
                                .zip(next.payload().parse::<u64>().ok())
                                .map(|(a, b)| a.max(b));
                        }
                    }
                    match last {
                        Some(last) => {
                            advance(&self.tail, last);
                            false
                        }
                        None => !self.catch_up(listening),
                    }
                }
                Err(_) => true,
                Ok(None) => listening.client.is_closed(),
            };
            if broken {
                connection = None;
                failed_at = Some(Instant::now());
            }
        }
    }

    /// A new connection that listens, the tail caught up on it.
    fn listen(&self) -> Option<Connection> {
        let mut connection = self.target.connect().ok()?;
        connection
            .client
            .batch_execute(&format!("LISTEN {CHANNEL}"))
            .ok()?;
        self.catch_up(&mut connection).then_some(connection)
    }

    /// Moves the tail to the counter's last number; `false` when it could
    /// not be read.
    fn catch_up(&self, connection: &mut Connection) -> bool {
        match read::last_lifecycle_row(connection) {
            Ok(last) => {
                advance(&self.tail, last);
                true
            }
            Err(_) => false,
        }
    }
}

/// Moves `tail` to `row` unless it is there or past it already: the
/// writer's commits and other hosts' notifications arrive in any order.
pub(super) fn advance(tail: &tokio::sync::watch::Sender<u64>, row: u64) {
    tail.send_if_modified(|last| {
        let newer = row > *last;
        *last = (*last).max(row);
        newer
    });
}
