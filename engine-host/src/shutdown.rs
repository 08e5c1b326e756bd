//! Stop signals, and the bound on how long a stop takes.
//!
//! SIGTERM and SIGINT are taken on a thread of their own (`signals`), not
//! by the async runtime: a runtime whose every worker is stuck in a plugin
//! call would never notice them. The first signal starts the graceful stop
//! (no new calls, calls in flight finish for up to [`SHUTDOWN_GRACE`]); if
//! the process is still there [`HARD_STOP_AFTER`] later — a plugin call or
//! a file read that never returns holds a thread the runtime waits for —
//! the thread ends the process. So does a second signal. Every acknowledged action is already
//! durable (its commit was fsynced before the answer), so ending the
//! process loses none.

use std::future::Future;
use std::time::Duration;

use crate::grpc::SHUTDOWN_GRACE;

/// Longest from a stop signal to the end of the process.
pub const HARD_STOP_AFTER: Duration = Duration::from_secs(SHUTDOWN_GRACE.as_secs() + 5);

/// The exit code of a stop that could not wait for everything to finish.
pub const HARD_STOP_EXIT_CODE: i32 = 3;

/// Starts listening for stop signals; the future resolves at the first.
/// Call before any other thread starts: on Unix the signals are blocked in
/// the calling thread, so that every thread started later inherits the
/// mask and only the signal thread receives them (child processes get a
/// clean mask from `std::process::Command`).
pub fn listen() -> std::io::Result<impl Future<Output = ()> + Send + 'static> {
    let (first_tx, first_rx) = tokio::sync::oneshot::channel::<()>();
    imp::start(first_tx)?;
    Ok(async move {
        // A closed channel means the signal thread is gone: wait forever
        // rather than stop unasked.
        if first_rx.await.is_err() {
            std::future::pending::<()>().await;
        }
    })
}

/// Ends the process at once, after saying why.
fn stop_now(why: &str) -> ! {
    tracing::error!("{why}: stopping now (acknowledged actions are durable)");
    eprintln!("engine-host: {why}: stopping now");
    std::process::exit(HARD_STOP_EXIT_CODE)
}

/// After the first signal: ends the process if it is still there
/// [`HARD_STOP_AFTER`] later.
fn arm_hard_stop() {
    let armed = std::thread::Builder::new()
        .name("hard-stop".into())
        .spawn(|| {
            std::thread::sleep(HARD_STOP_AFTER);
            stop_now(&format!(
                "calls still running {}s after the stop signal (a plugin call or a file read \
                 that does not return)",
                HARD_STOP_AFTER.as_secs()
            ));
        });
    if let Err(e) = armed {
        tracing::error!(error = %e, "cannot arm the hard stop: a stuck call may hold the stop");
    }
}

#[cfg(unix)]
mod imp {
    use nix::sys::signal::{SigSet, Signal};
    use tokio::sync::oneshot;

    fn stop_set() -> SigSet {
        let mut set = SigSet::empty();
        set.add(Signal::SIGTERM);
        set.add(Signal::SIGINT);
        set
    }

    pub(super) fn start(first: oneshot::Sender<()>) -> std::io::Result<()> {
        let set = stop_set();
        set.thread_block()?;
        std::thread::Builder::new()
            .name("signals".into())
            .spawn(move || {
                let mut first = Some(first);
                loop {
                    // The signals in `set` are blocked in every thread, so
                    // sigwait takes them from the queue.
                    let signal = match set.wait() {
                        Ok(signal) => signal,
                        Err(e) => {
                            // Only an invalid set fails, and this one is valid.
                            tracing::error!(
                                error = %std::io::Error::from(e),
                                "cannot wait for stop signals"
                            );
                            return;
                        }
                    };
                    match first.take() {
                        Some(first) => {
                            tracing::info!(
                                signal = signal.as_str(),
                                "shutting down: finishing calls in flight"
                            );
                            let _ = first.send(());
                            super::arm_hard_stop();
                        }
                        None => {
                            super::stop_now(&format!("a second stop signal ({})", signal.as_str()))
                        }
                    }
                }
            })?;
        Ok(())
    }
}

#[cfg(not(unix))]
mod imp {
    use tokio::sync::oneshot;

    /// Without Unix signals: ctrl-c, watched by the runtime.
    pub(super) fn start(first: oneshot::Sender<()>) -> std::io::Result<()> {
        std::thread::Builder::new()
            .name("signals".into())
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build();
                if let Ok(runtime) = runtime {
                    let _ = runtime.block_on(tokio::signal::ctrl_c());
                    tracing::info!("shutting down: finishing calls in flight");
                    let _ = first.send(());
                    super::arm_hard_stop();
                }
            })?;
        Ok(())
    }
}
