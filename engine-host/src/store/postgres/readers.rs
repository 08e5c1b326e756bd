//! The PostgreSQL store's reader threads: a few threads, each with a
//! connection of its own (opened at its first read, and again after it
//! broke), that take reads from one queue. A read never waits behind the
//! writer's commit, and never runs on its caller's thread, which may be an
//! async worker where the synchronous client must not run (see
//! `connect.rs`).

use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use tabletop_core::{HostError, HostResult};

use super::connect::{Connection, Reachability, Target};

/// How many reads may run at once, each on a connection of its own.
/// Reads are short (an index range or a page); a few threads serve the
/// host's blocking pool without holding many connections of the server's.
pub const READER_THREADS: usize = 4;

/// A read, as a reader thread runs it.
type ReadJob = Box<dyn FnOnce(&mut Reader) + Send>;

/// The reader threads and their queue. Dropping it lets them finish the
/// reads queued and closes their connections.
#[derive(Debug)]
pub(super) struct Readers {
    jobs: Mutex<Option<mpsc::Sender<ReadJob>>>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

fn readers_stopped() -> HostError {
    HostError::Internal("the match store's readers have stopped".into())
}

impl Readers {
    /// Starts [`READER_THREADS`] threads reading from `target`.
    pub(super) fn start(target: &Target, reachability: &Arc<Reachability>) -> HostResult<Readers> {
        let (tx, rx) = mpsc::channel::<ReadJob>();
        let rx = Arc::new(Mutex::new(rx));
        let mut threads = Vec::with_capacity(READER_THREADS);
        for i in 0..READER_THREADS {
            let mut reader = Reader {
                target: target.clone(),
                connection: None,
                reachability: Arc::clone(reachability),
            };
            let rx = Arc::clone(&rx);
            let thread = std::thread::Builder::new()
                .name(format!("store-reader-{i}"))
                .spawn(move || {
                    loop {
                        // The lock is held only to take one job.
                        let job = rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
                        match job {
                            Ok(job) => job(&mut reader),
                            Err(_) => break,
                        }
                    }
                })
                .map_err(|e| {
                    HostError::Internal(format!("cannot start a match store reader: {e}"))
                })?;
            threads.push(thread);
        }
        Ok(Readers {
            jobs: Mutex::new(Some(tx)),
            threads,
        })
    }

    /// Runs `read` on a reader thread's connection and returns its answer.
    pub(super) fn read<T: Send + 'static>(
        &self,
        read: impl Fn(&mut Connection) -> HostResult<T> + Send + 'static,
    ) -> HostResult<T> {
        let (reply, answer) = mpsc::channel();
        let job: ReadJob = Box::new(move |reader: &mut Reader| {
            let _ = reply.send(reader.run(&read));
        });
        self.jobs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .ok_or_else(readers_stopped)?
            .send(job)
            .map_err(|_| readers_stopped())?;
        answer.recv().map_err(|_| readers_stopped())?
    }
}

impl Drop for Readers {
    fn drop(&mut self) {
        // Without a sender the threads' `recv` fails once the queue is empty.
        self.jobs
            .get_mut()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        for thread in self.threads.drain(..) {
            if thread.join().is_err() {
                tracing::error!("a match store reader panicked");
            }
        }
    }
}

/// One reader thread's connection.
struct Reader {
    target: Target,
    connection: Option<Connection>,
    reachability: Arc<Reachability>,
}

impl Reader {
    /// Runs `read`. A read that meets a broken connection (one idle across
    /// a server restart) runs once more on a new one before the server
    /// counts as unreachable.
    fn run<T>(&mut self, read: &impl Fn(&mut Connection) -> HostResult<T>) -> HostResult<T> {
        let mut outcome = self.try_run(read);
        if matches!(outcome, Err(HostError::StoreUnavailable(_))) {
            outcome = self.try_run(read);
        }
        self.reachability.saw(&self.target, &outcome);
        outcome
    }

    fn try_run<T>(&mut self, read: &impl Fn(&mut Connection) -> HostResult<T>) -> HostResult<T> {
        if self.connection.as_ref().is_none_or(Connection::is_closed) {
            self.connection = Some(self.target.connect().and_then(super::connect::by_key)?);
        }
        let Some(connection) = self.connection.as_mut() else {
            return Err(HostError::Internal(
                "a match store reader has no connection".into(),
            ));
        };
        let outcome = read(connection);
        if matches!(outcome, Err(HostError::StoreUnavailable(_))) || connection.is_closed() {
            self.connection = None;
        }
        outcome
    }
}
