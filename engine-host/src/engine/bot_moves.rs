//! The engine's bot threads: each takes the match the queue serves next and
//! makes one bot move in it, as [`super::bots`] describes.

use std::sync::Arc;

use tabletop_core::{BotTurn, HostError, HostResult};
use tabletop_sdk::ActionId;

use super::Engine;
use super::bots::{BotMove, BotQueue};
use super::live::{LiveMatch, lock};
use super::search_thread::{SearchThread, Searcher};
use crate::metrics::{PluginCall, metrics};
use crate::store::Commit;

impl Engine {
    /// The queue of matches that may need a bot.
    pub fn bot_queue(&self) -> &Arc<BotQueue> {
        self.bots.queue()
    }

    /// Starts `threads` bot threads, each with its search thread, making the
    /// queued matches' bot moves until [`BotQueue::stop`]: at most `threads`
    /// searches run at once.
    pub fn spawn_bot_threads(self: &Arc<Self>, threads: usize) {
        for index in 0..threads {
            let engine = Arc::clone(self);
            let spawned = SearchThread::spawn(format!("bot-search-{index}")).and_then(|search| {
                let searcher = Searcher::Thread(search);
                std::thread::Builder::new()
                    .name(format!("bot-{index}"))
                    .spawn(move || {
                        while let Some(ticket) = engine.bots.queue().next() {
                            engine.bot_move_logged(&ticket.match_id, &ticket.creator, &searcher);
                        }
                    })
            });
            if let Err(e) = spawned {
                tracing::error!(error = %e, "cannot start a bot thread");
            }
        }
    }

    /// Makes the queued matches' bot moves on this thread until the queue is
    /// empty (for a host without bot threads, and tests); returns how many
    /// moves were played.
    pub fn play_queued_bot_moves(&self) -> usize {
        let mut played = 0;
        while let Some(ticket) = self.bots.queue().try_next() {
            let moved = self.bot_move_logged(&ticket.match_id, &ticket.creator, &Searcher::Inline);
            if let BotMove::Played(_) = moved {
                played += 1;
            }
        }
        played
    }

    fn bot_move_logged(&self, match_id: &str, creator: &str, searcher: &Searcher) -> BotMove {
        match self.bot_move(match_id, creator, searcher) {
            Ok(done) => done,
            Err(e) => {
                tracing::warn!(match_id, error = %e, "a bot could not move");
                BotMove::Idle
            }
        }
    }

    /// One bot move in `match_id`, made by `creator`, if a bot must act
    /// there, its search run by `searcher`.
    fn bot_move(&self, match_id: &str, creator: &str, searcher: &Searcher) -> HostResult<BotMove> {
        let slot = self.slot(match_id)?;
        let turn = self.bots.turn(&lock(&slot))?;
        let Some(turn) = turn else {
            return Ok(BotMove::Idle);
        };
        let (turn, thought) = self.bots.think(match_id, creator, turn, searcher)?;
        let mut commit = Commit::done();
        let submitted = {
            let mut m = lock(&slot);
            self.submit_bot_action(&mut m, &turn, thought.action, &mut commit)
        };
        self.settle(match_id, commit)?;
        match submitted {
            Ok(()) => Ok(BotMove::Played(thought)),
            Err(
                HostError::StaleVersion { .. }
                | HostError::NotYourTurn { .. }
                | HostError::AlreadyActed { .. }
                | HostError::MatchPaused
                | HostError::PluginRestarted(_),
            ) => {
                self.bots.queue().poke(creator, match_id);
                Ok(BotMove::Replan)
            }
            Err(HostError::MatchOver { .. }) => Ok(BotMove::Idle),
            Err(e) => Err(e),
        }
    }

    /// Submits the bot's `action` for `turn` as a client's action is
    /// submitted (the clock, the expected version, the store), under the
    /// match's lock.
    fn submit_bot_action(
        &self,
        m: &mut LiveMatch,
        turn: &BotTurn,
        action: ActionId,
        commit: &mut Commit,
    ) -> HostResult<()> {
        let _timed = metrics().plugin_call(&m.setup().game, PluginCall::Submit);
        if self.expire_locked(m, commit)? {
            return Err(HostError::MatchOver {
                clock_ran_out: true,
            });
        }
        let before = m.version();
        m.submit(turn.seat, action, Some(turn.version))?;
        metrics().actions(&m.setup().game, 1);
        commit.add(self.persist(m, before)?);
        m.refresh_kept_legal_actions();
        Ok(())
    }
}
