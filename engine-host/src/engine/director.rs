//! What a tournament director does through the host (admin): the controls
//! over one match, and the lifecycle feed of every match.

use tabletop_core::{HostResult, MatchView, SeatResult, ViewDetail, now_ms};
use tabletop_sdk::Viewer;

use super::{Engine, lock};
use crate::store::LifecycleRow;

/// A director's control over a match (see [`tabletop_core::director`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Control {
    /// End it without a result.
    Abort {
        /// Why.
        reason: String,
    },
    /// End it with these results, one per seat.
    Adjudicate {
        /// The results.
        results: Vec<SeatResult>,
    },
    /// Stop its clocks and refuse actions.
    Pause,
    /// Restart its clocks.
    Resume,
    /// Give a seat more time.
    AddTime {
        /// The seat.
        seat: u32,
        /// How much, in ms.
        ms: i64,
    },
}

impl Engine {
    /// Applies a director's control to a match (admin only); stored, and
    /// told to watchers and the lifecycle feed, before this returns the
    /// spectator's view after it.
    pub fn direct(
        &self,
        admin_token: &str,
        match_id: &str,
        control: Control,
    ) -> HostResult<MatchView> {
        self.check_admin(admin_token)?;
        let slot = self.slot(match_id)?;
        let mut m = lock(&slot);
        let before = m.version();
        let now = now_ms();
        match control {
            Control::Abort { reason } => m.abort(&reason, now)?,
            Control::Adjudicate { results } => m.adjudicate(results, now)?,
            Control::Pause => m.pause(now)?,
            Control::Resume => m.resume(now)?,
            Control::AddTime { seat, ms } => m.add_time(seat, ms, now)?,
        }
        let commit = self.persist(&mut m, before)?;
        m.refresh_kept_legal_actions();
        // The director holds the admin token: the spectator delay is not
        // for them, and a control's answer must show what it did.
        let view = m.undelayed_view(Viewer::Spectator, ViewDetail::Full);
        drop(m);
        commit.wait()?;
        tracing::info!(match_id, version = before + 1, "director's control applied");
        view
    }

    /// Checks that `admin_token` may follow the lifecycle feed.
    pub fn check_feed_access(&self, admin_token: &str) -> HostResult<()> {
        self.check_admin(admin_token)
    }

    /// Up to `limit` lifecycle rows after `after`, each durable (the store
    /// may have committed later ones that are not yet).
    pub fn lifecycle_page(&self, after: u64, limit: usize) -> HostResult<Vec<LifecycleRow>> {
        let durable = *self.store.lifecycle_tail().borrow();
        let mut rows = self.store.lifecycle_after(after, limit)?;
        rows.retain(|row| row.seq <= durable);
        Ok(rows)
    }

    /// The number of the last durable lifecycle row, changing as more
    /// become durable.
    pub fn lifecycle_tail(&self) -> tokio::sync::watch::Receiver<u64> {
        self.store.lifecycle_tail()
    }
}
