//! The breadcrumb of a call into a plugin that runs in the host: which
//! plugin, which match and which call the current thread is in, so a host
//! that dies inside a trusted plugin can say so on its next start (and
//! quarantine the match) instead of dying there again and again.
//!
//! Each call on a trusted plugin's state notes itself in a
//! thread-local slot of fixed size and clears it after: two stores into
//! thread-local memory, nothing a call can measure. engine-host's fatal
//! signal handler and exit hook read the slot with [`write_current`], which
//! neither allocates nor locks.

use std::any::Any;
use std::cell::Cell;

use tabletop_sdk::{
    ActionId, Attempt, Chance, DynState, GameError, Move, Player, PlayerResult, Refusal, SeatOut,
    Status, Transition, Viewer,
};

/// The longest label kept (a match id is far shorter).
const LABEL_BYTES: usize = 64;

/// What the current thread is in: plugin, label, call.
#[derive(Clone, Copy)]
struct Note {
    plugin: &'static str,
    label: [u8; LABEL_BYTES],
    label_len: usize,
    call: &'static str,
}

thread_local! {
    static CURRENT: Cell<Option<Note>> = const { Cell::new(None) };
}

impl Note {
    /// The note of a call on a state labelled `label` of `plugin`, its call
    /// to be named: made once per state, so a call only copies it.
    fn new(plugin: &'static str, label: Option<&str>) -> Note {
        let mut note = Note {
            plugin,
            label: [0; LABEL_BYTES],
            label_len: 0,
            call: "",
        };
        if let Some(label) = label {
            let len = label.len().min(LABEL_BYTES);
            note.label[..len].copy_from_slice(&label.as_bytes()[..len]);
            note.label_len = len;
        }
        note
    }
}

/// Runs `call` noted by `note` as the call `name`.
fn noting<T>(mut note: Note, name: &'static str, call: impl FnOnce() -> T) -> T {
    note.call = name;
    let outer = CURRENT.with(|slot| slot.replace(Some(note)));
    let result = call();
    CURRENT.with(|slot| slot.set(outer));
    result
}

/// Writes the current thread's breadcrumb, `PLUGIN\tMATCH\tCALL`, into
/// `out` and returns its length; 0 when the thread is in no call of a
/// trusted plugin. Safe to call from a signal handler: no allocation, no
/// lock.
pub fn write_current(out: &mut [u8]) -> usize {
    let Some(note) = CURRENT.try_with(Cell::get).ok().flatten() else {
        return 0;
    };
    let mut written = 0;
    for part in [
        note.plugin.as_bytes(),
        b"\t",
        &note.label[..note.label_len],
        b"\t",
        note.call.as_bytes(),
    ] {
        let take = part.len().min(out.len() - written);
        out[written..written + take].copy_from_slice(&part[..take]);
        written += take;
    }
    written
}

/// A breadcrumb read back: what the host was in when it died.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crumb {
    /// `game@version`.
    pub plugin: String,
    /// The match (empty when the state had no label).
    pub match_id: String,
    /// The call.
    pub call: String,
}

impl Crumb {
    /// Reads what [`write_current`] wrote (and whatever the writer added
    /// after a tab: the signal).
    pub fn parse(text: &str) -> Option<(Crumb, String)> {
        let mut parts = text.trim_end().splitn(4, '\t');
        let crumb = Crumb {
            plugin: parts.next()?.to_string(),
            match_id: parts.next()?.to_string(),
            call: parts.next()?.to_string(),
        };
        Some((crumb, parts.next().unwrap_or("").to_string()))
    }
}

/// A state of a plugin in the host, each call noted (see the module docs).
pub(crate) struct Tracked {
    inner: Box<dyn DynState>,
    /// The plugin and the state's label, each call's note but its name.
    note: Note,
}

impl Tracked {
    pub(crate) fn new(inner: Box<dyn DynState>, plugin: &'static str) -> Tracked {
        Tracked {
            inner,
            note: Note::new(plugin, None),
        }
    }

    fn note<T>(&self, name: &'static str, call: impl FnOnce(&dyn DynState) -> T) -> T {
        noting(self.note, name, || call(self.inner.as_ref()))
    }

    fn note_mut<T>(&mut self, name: &'static str, call: impl FnOnce(&mut dyn DynState) -> T) -> T {
        noting(self.note, name, || call(self.inner.as_mut()))
    }

    fn wrap(&self, inner: Box<dyn DynState>) -> Box<dyn DynState> {
        Box::new(Tracked {
            inner,
            note: self.note,
        })
    }
}

impl DynState for Tracked {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn set_label(&mut self, label: &str) {
        self.note = Note::new(self.note.plugin, Some(label));
    }

    fn clone_state(&self) -> Result<Box<dyn DynState>, GameError> {
        let copy = self.note("clone", |s| s.clone_state())?;
        Ok(self.wrap(copy))
    }

    fn status(&self) -> Result<Status, GameError> {
        self.note("status", |s| s.status())
    }

    fn chance(&self) -> Result<Chance, GameError> {
        self.note("chance", |s| s.chance())
    }

    fn results(&self) -> Result<Vec<PlayerResult>, GameError> {
        self.note("results", |s| s.results())
    }

    fn legal_actions(&self, player: Player, out: &mut Vec<ActionId>) -> Result<(), GameError> {
        self.note("legal_actions", |s| s.legal_actions(player, out))
    }

    fn lend_legal_actions(&mut self, player: Player) -> Result<&[ActionId], GameError> {
        noting(self.note, "legal_actions", || {
            self.inner.lend_legal_actions(player)
        })
    }

    fn apply(&mut self, moves: &[Move]) -> Result<(), GameError> {
        self.note_mut("apply", |s| s.apply(moves))
    }

    fn apply_and_lend_legal(
        &mut self,
        moves: &[Move],
        player: Option<Player>,
    ) -> Result<(Status, &[ActionId]), GameError> {
        noting(self.note, "apply", || {
            self.inner.apply_and_lend_legal(moves, player)
        })
    }

    fn apply_chance(&mut self, outcome: u64) -> Result<(), GameError> {
        self.note_mut("apply_chance", |s| s.apply_chance(outcome))
    }

    fn view(&self, viewer: Viewer) -> Result<String, GameError> {
        self.note("view", |s| s.view(viewer))
    }

    fn render_text(&self, viewer: Viewer) -> Result<String, GameError> {
        self.note("render_text", |s| s.render_text(viewer))
    }

    fn event(
        &self,
        before: &dyn DynState,
        transition: &Transition,
        viewer: Viewer,
    ) -> Result<String, GameError> {
        let before = match before.as_any().downcast_ref::<Tracked>() {
            Some(tracked) => tracked.inner.as_ref(),
            None => before,
        };
        self.note("event", |s| s.event(before, transition, viewer))
    }

    fn position(&self) -> Result<String, GameError> {
        self.note("position", |s| s.position())
    }

    fn action_to_string(&self, player: Player, action: ActionId) -> Result<String, GameError> {
        self.note("action_to_string", |s| s.action_to_string(player, action))
    }

    fn actions_to_strings(
        &self,
        player: Player,
        ids: &[ActionId],
        text: &mut String,
        ends: &mut Vec<u32>,
    ) -> Result<(), GameError> {
        self.note("action_to_string", |s| {
            s.actions_to_strings(player, ids, text, ends)
        })
    }

    fn parse_action(&self, player: Player, text: &str) -> Result<ActionId, GameError> {
        self.note("parse_action", |s| s.parse_action(player, text))
    }

    fn expand_notation(
        &self,
        player: Player,
        text: &str,
    ) -> Result<Option<Vec<String>>, GameError> {
        self.note("expand_notation", |s| s.expand_notation(player, text))
    }

    fn resample(&self, viewer: Viewer, random: u64) -> Result<Box<dyn DynState>, GameError> {
        let resampled = self.note("resample", |s| s.resample(viewer, random))?;
        Ok(self.wrap(resampled))
    }

    fn remove_player(&mut self, player: Player) -> Result<(), GameError> {
        self.note_mut("remove_player", |s| s.remove_player(player))
    }

    fn seats_out(&self) -> Result<Vec<SeatOut>, GameError> {
        self.note("seats_out", |s| s.seats_out())
    }

    fn explain_refusal(
        &self,
        player: Player,
        attempt: Attempt<'_>,
    ) -> Result<Option<Refusal>, GameError> {
        self.note("explain_refusal", |s| s.explain_refusal(player, attempt))
    }

    fn action_space(&self) -> Result<u64, GameError> {
        self.note("action_space", |s| s.action_space())
    }

    fn evaluate(&self, values: &mut [f64]) -> Result<bool, GameError> {
        self.note("evaluate", |s| s.evaluate(values))
    }

    fn render_svg(&self, viewer: Viewer) -> Result<Option<String>, GameError> {
        self.note("render_svg", |s| s.render_svg(viewer))
    }

    fn action_targets(
        &self,
        player: Player,
        ids: &[ActionId],
    ) -> Result<Option<Vec<Vec<String>>>, GameError> {
        self.note("action_targets", |s| s.action_targets(player, ids))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_leaves_its_breadcrumb_while_it_runs_and_none_after() {
        let mut out = [0u8; 128];
        assert_eq!(write_current(&mut out), 0);
        let inside = noting(Note::new("nim@1.0.0", Some("m1")), "apply", || {
            let len = write_current(&mut out);
            String::from_utf8(out[..len].to_vec()).unwrap()
        });
        assert_eq!(inside, "nim@1.0.0\tm1\tapply");
        assert_eq!(write_current(&mut out), 0);
        let (crumb, signal) = Crumb::parse(&format!("{inside}\tsignal 11 (SIGSEGV)\n")).unwrap();
        assert_eq!(crumb.match_id, "m1");
        assert_eq!(crumb.call, "apply");
        assert_eq!(signal, "signal 11 (SIGSEGV)");
    }
}
