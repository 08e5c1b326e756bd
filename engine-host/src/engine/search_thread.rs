//! Where a bot's search runs: on a thread of its own under `SCHED_IDLE`
//! (nice 19 where that is refused), beside each bot thread, or on the
//! calling thread.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc;

use tabletop_core::{HostError, HostResult};

/// Where a bot thread's searches run.
pub enum Searcher {
    /// On the calling thread, at its priority (a host without bot threads,
    /// and tests).
    Inline,
    /// On the bot thread's search thread.
    Thread(SearchThread),
}

impl Searcher {
    /// Runs `search` and waits for its result. A panic in it is an error
    /// of this one move: the thread that ran it goes on to the next.
    pub fn run<T: Send + 'static>(
        &self,
        search: impl FnOnce() -> T + Send + 'static,
    ) -> HostResult<T> {
        let searched = match self {
            Searcher::Inline => catch_unwind(AssertUnwindSafe(search)).ok(),
            Searcher::Thread(thread) => thread.run(search),
        };
        searched.ok_or_else(|| HostError::Internal("a bot's search panicked".into()))
    }
}

/// A search to run, with where its result goes.
type SearchJob = Box<dyn FnOnce() + Send>;

/// A thread that runs one bot thread's searches under `SCHED_IDLE` while the
/// bot thread waits for each.
///
/// The split is about locks, not CPU. Taking a turn and submitting lock the
/// match, the map of matches and (in memory) the store, which the server's
/// threads lock too. A thread under `SCHED_IDLE` is preempted the moment a
/// server thread wakes on its core; preempted while it holds one of those
/// locks, it leaves a server thread waiting until a core goes idle, on a busy
/// host for milliseconds. So those short steps stay on the bot thread at
/// normal priority, and only the search, which takes none of them, runs
/// idle.
pub struct SearchThread {
    jobs: mpsc::Sender<SearchJob>,
}

impl SearchThread {
    /// Starts the thread; it ends when this is dropped.
    pub fn spawn(name: String) -> std::io::Result<SearchThread> {
        let (jobs, queued) = mpsc::channel::<SearchJob>();
        std::thread::Builder::new().name(name).spawn(move || {
            tabletop_loader::priority::lower_thread_priority();
            for job in queued {
                job();
            }
        })?;
        Ok(SearchThread { jobs })
    }

    /// Runs `search` on the thread and waits for it; `None` if it panicked.
    fn run<T: Send + 'static>(&self, search: impl FnOnce() -> T + Send + 'static) -> Option<T> {
        let (reply, result) = mpsc::sync_channel(1);
        let job: SearchJob = Box::new(move || {
            if let Ok(found) = catch_unwind(AssertUnwindSafe(search)) {
                // The bot thread waits on `result` until this sends or drops.
                let _ = reply.send(found);
            }
        });
        self.jobs.send(job).ok()?;
        result.recv().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The calling thread's scheduling policy and nice value, as the kernel
    /// reports them (`/proc/thread-self/stat`: the fields after the
    /// command's closing parenthesis, nice the 17th of them, the policy the
    /// 39th).
    #[cfg(target_os = "linux")]
    fn policy_and_nice() -> (u32, i32) {
        let stat = std::fs::read_to_string("/proc/thread-self/stat").expect("a stat file");
        let fields: Vec<&str> = stat[stat.rfind(')').expect("a command") + 2..]
            .split(' ')
            .collect();
        (
            fields[38].parse().expect("a policy"),
            fields[16].parse().expect("a nice value"),
        )
    }

    #[test]
    fn a_search_thread_runs_idle_and_outlives_a_panicking_search() {
        #[cfg(target_os = "linux")]
        let before = policy_and_nice();
        let thread = SearchThread::spawn("test-search".into()).expect("a thread");
        assert_eq!(thread.run(|| 2 + 2), Some(4));
        assert_eq!(thread.run(|| -> u32 { panic!("a bug in a search") }), None);
        let name = thread.run(|| std::thread::current().name().map(String::from));
        assert_eq!(name, Some(Some("test-search".to_string())));
        #[cfg(target_os = "linux")]
        {
            let (policy, nice) = thread.run(policy_and_nice).expect("the thread searches on");
            assert!(
                policy == libc::SCHED_IDLE as u32 || nice == 19,
                "policy {policy}, nice {nice}"
            );
            assert_eq!(policy_and_nice(), before, "this thread keeps its priority");
        }
    }
}
