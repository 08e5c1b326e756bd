//! Faults of plugin workers, turned into quarantined matches.
//!
//! A worker that dies in a call reports the fault through the sink the
//! engine gives the catalog's [`Isolation`]; the call itself is answered
//! with `PLUGIN_FAULT`. The reports go through a channel to one thread,
//! which quarantines the match the call was about once the call has let go
//! of its lock, and stores the quarantine like any control.

use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};

use tabletop_core::{HostResult, Lifecycle};
use tabletop_loader::crumb::Crumb;
use tabletop_loader::isolation::{Fault, Isolation};

use super::Engine;
use super::live::lock;
use crate::metrics::metrics;

/// The faults reported and not yet acted on.
#[derive(Debug, Default)]
pub(super) struct FaultQueue {
    receiver: Mutex<Option<mpsc::Receiver<Fault>>>,
}

impl FaultQueue {
    /// `isolation`, reporting its faults to this queue.
    pub(super) fn connect(&self, isolation: Isolation) -> Isolation {
        let (sender, receiver) = mpsc::channel::<Fault>();
        *self.receiver.lock().unwrap_or_else(PoisonError::into_inner) = Some(receiver);
        Isolation {
            sink: Some(Arc::new(move |fault: &Fault| {
                let _ = sender.send(fault.clone());
            })),
            ..isolation
        }
    }

    fn take(&self) -> Option<mpsc::Receiver<Fault>> {
        self.receiver
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

impl Engine {
    /// Starts the thread that quarantines the matches whose calls killed
    /// their plugin's worker.
    pub fn spawn_quarantine_thread(self: &Arc<Self>) {
        let Some(faults) = self.faults.take() else {
            return;
        };
        let engine = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name("quarantine".into())
            .spawn(move || {
                for fault in faults {
                    if let Err(e) = engine.quarantine_faulted(&fault) {
                        tracing::error!(
                            match_id = fault.match_id.as_deref().unwrap_or("-"),
                            error = %e,
                            "cannot quarantine the match whose call killed its plugin's worker"
                        );
                    }
                }
            });
        if let Err(e) = spawned {
            tracing::error!(error = %e, "cannot start the quarantine thread");
        }
    }

    /// Quarantines the match a trusted plugin's call was in when the host's
    /// last run died (see [`crate::crash_note`]), before recovery replays it.
    pub fn quarantine_after_crash(&self, crumb: &Crumb, how: &str) {
        if crumb.match_id.is_empty() {
            return;
        }
        let reason = format!(
            "the host died in its plugin {}'s {} ({how})",
            crumb.plugin, crumb.call
        );
        match self.quarantine_dormant(&crumb.match_id, &reason) {
            Ok(_) => {
                // Recovery must not replay it into the same crash.
                self.unavailable.hold_back(&crumb.match_id);
                tracing::warn!(match_id = %crumb.match_id, reason, "match quarantined");
            }
            Err(e) => tracing::error!(
                match_id = %crumb.match_id,
                error = %e,
                "cannot quarantine the match the host died in"
            ),
        }
    }

    /// Quarantines the match `fault` was about, if it is held here.
    fn quarantine_faulted(&self, fault: &Fault) -> HostResult<()> {
        metrics().plugin_fault(&fault.game);
        let Some(match_id) = &fault.match_id else {
            return Ok(());
        };
        let Some(slot) = self.table.get(match_id) else {
            // Not live: its replay faulted (at a start, or when it was read
            // back). Quarantine what the store holds.
            if self.unavailable.reason(match_id).is_some() {
                let reason = format!(
                    "its plugin's worker died in {} ({}) while it was replayed",
                    fault.call, fault.how
                );
                // Listed again as the quarantine left it, so a control
                // applied to it adds the next entry.
                let stored = self.quarantine_dormant(match_id, &reason)?;
                self.unavailable.insert(
                    stored.setup.clone(),
                    stored.log.len() as u64,
                    format!("quarantined: {reason}"),
                    Some(stored),
                );
            }
            return Ok(());
        };
        let commit = {
            let mut m = lock(&slot);
            if m.quarantine_reason().is_some() || m.lifecycle() == Lifecycle::Finished {
                return Ok(());
            }
            let reason = format!("its plugin's worker died in {} ({})", fault.call, fault.how);
            metrics().quarantined(&fault.game);
            self.quarantine_locked(&mut m, &reason)?
        };
        commit.wait()
    }
}
