//! The priority bots' searches run at, in the host and in a plugin
//! worker alike.

/// Runs the calling thread under `SCHED_IDLE`, so a search takes only the
/// cores the server's own threads leave idle: a woken server thread
/// preempts it at once, where a nice-19 search still holds the core for
/// part of its slice and shows in the players' tail latency. On a machine
/// that is busy with other work a search still runs, slowly; its clock is
/// wall time, so it plays weaker rather than later. Where `SCHED_IDLE` is
/// refused the thread keeps its policy at the lowest priority it has, nice
/// 19 under the normal policy. A thread cannot raise its priority again
/// without privilege, hence a thread of its own for the searches
/// (engine-host's search thread; a worker's search thread).
#[cfg(target_os = "linux")]
pub fn lower_thread_priority() {
    use thread_priority::{
        NormalThreadSchedulePolicy, ThreadPriority, ThreadSchedulePolicy,
        set_current_thread_priority, set_thread_priority_and_policy, thread_native_id,
        thread_schedule_policy,
    };
    let idle = ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Idle);
    // The crate sets the policy, then the nice value 0 that goes with it,
    // which a thread already above nice 0 may not take; under SCHED_IDLE the
    // nice value counts for nothing, so the policy is what to check.
    let _ = set_thread_priority_and_policy(thread_native_id(), ThreadPriority::Min, idle);
    if thread_schedule_policy().is_ok_and(|policy| policy == idle) {
        return;
    }
    if set_current_thread_priority(ThreadPriority::Min).is_err() {
        tracing::debug!("could not lower a bot thread's priority");
    }
}

/// Elsewhere bot threads run at the server's priority.
#[cfg(not(target_os = "linux"))]
pub fn lower_thread_priority() {}
