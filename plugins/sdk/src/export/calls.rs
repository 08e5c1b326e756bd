//! Every shim but the hot path: buffers, the manifest, states, queries,
//! notation and the extensions' functions.
//!
//! Each is `unsafe extern "C"`: its caller keeps the ABI's conventions
//! (`crate::abi`): pointers it passes are valid for what the function reads
//! or writes, handles are this plugin's and used by one call at a time.
//! Under those rules every `unsafe` block below is sound, as its comment says.

use std::collections::BTreeMap;

use super::{Instance, guard, into_handle, read_str, slot, slot_mut, write_handle, write_status};
use crate::abi::{
    CHANCE_EXPLICIT, CHANCE_SAMPLED, LogFn, PluginBuf, RawMove, RawOption, RawOutcome, RawStatus,
    RawTransition, StateHandle, StrRef, TRANSITION_CHANCE, TRANSITION_MOVES,
};
use crate::error::GameError;
use crate::game::chance_to_act;
use crate::manifest::Setup;
use crate::types::{Attempt, Chance, Transition, Viewer};

/// An extension's function from the game's table. The host finds an
/// extension's table only when the game declares it, so `None` is a host
/// that kept a table it was not given.
fn declared<F>(function: Option<F>) -> Result<F, GameError> {
    function.ok_or_else(|| GameError::unsupported("the game does not declare this extension"))
}

/// A JSON text of `value`, or an internal error.
fn json(value: &impl serde::Serialize) -> Result<Option<String>, GameError> {
    serde_json::to_string(value)
        .map(Some)
        .map_err(|e| GameError::internal(e.to_string()))
}

pub(super) unsafe extern "C" fn free_buf(buf: PluginBuf) {
    if buf.ptr.is_null() {
        return;
    }
    // SAFETY: non-null buffers come from `into_buf`, which leaked a Vec<u8> with
    // exactly this pointer, length and capacity; the caller frees each once.
    drop(unsafe { Vec::from_raw_parts(buf.ptr, buf.len, buf.cap) });
}

pub(super) unsafe extern "C" fn set_logger(logger: Option<LogFn>) {
    crate::log::set_logger(logger);
}

pub(super) unsafe extern "C" fn manifest<G: Instance>(out: *mut PluginBuf) -> i32 {
    guard(out, || json(G::cached_manifest()))
}

/// Reads the caller's option pairs into the map `Setup::validate` takes. A
/// name given twice is refused.
///
/// # Safety
/// `options` points to `count` readable [`RawOption`]s whose strings are
/// lent for the call (or `count` is 0).
unsafe fn read_options(
    options: *const RawOption,
    count: usize,
) -> Result<BTreeMap<String, String>, GameError> {
    let mut map = BTreeMap::new();
    if count == 0 {
        return Ok(map);
    }
    if options.is_null() {
        return Err(GameError::invalid_option("null option array"));
    }
    // SAFETY: the caller lends `count` RawOptions at `options` for the call.
    let pairs = unsafe { std::slice::from_raw_parts(options, count) };
    for pair in pairs {
        // SAFETY: each pair's strings are lent for the call, like the array.
        let name = unsafe { read_str(pair.name) }?
            .ok_or_else(|| GameError::invalid_option("an option without a name"))?;
        // SAFETY: as above.
        let value = unsafe { read_str(pair.value) }?.unwrap_or("");
        if map.insert(name.to_owned(), value.to_owned()).is_some() {
            return Err(GameError::invalid_option(format!(
                "option `{name}` is given twice"
            )));
        }
    }
    Ok(map)
}

pub(super) unsafe extern "C" fn new_state<G: Instance>(
    players: u32,
    options: *const RawOption,
    option_count: usize,
    position: StrRef,
    state_out: *mut *mut StateHandle,
    status_out: *mut RawStatus,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        let game = G::instance();
        // SAFETY: the caller lends the options and the position for the call.
        let (options, position) =
            unsafe { (read_options(options, option_count)?, read_str(position)?) };
        let setup = Setup::validate(G::cached_manifest(), players, &options)?;
        let state = match position {
            Some(text) => game.parse_position(&setup, text)?,
            None => game.new_state(&setup)?,
        };
        let status = game.status(&state);
        // SAFETY: the caller passes a writable handle slot and status.
        unsafe {
            write_handle(state_out, into_handle::<G>(state));
            write_status(status_out, status);
        }
        Ok(None)
    })
}

pub(super) unsafe extern "C" fn clone_state<G: Instance>(
    state: *const StateHandle,
    state_out: *mut *mut StateHandle,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        // SAFETY: a handle of this plugin, one call at a time.
        let copy = unsafe { slot::<G>(state) }?.state.clone();
        // SAFETY: the caller passes a writable handle slot.
        unsafe { write_handle(state_out, into_handle::<G>(copy)) };
        Ok(None)
    })
}

pub(super) unsafe extern "C" fn free_state<G: Instance>(state: *mut StateHandle) {
    if state.is_null() {
        return;
    }
    let _ = std::panic::catch_unwind(|| {
        // SAFETY: the handle came from `into_handle::<G>` and the caller gives up
        // ownership here, exactly once.
        drop(unsafe { Box::from_raw(state as *mut super::Slot<G>) });
    });
}

pub(super) unsafe extern "C" fn status<G: Instance>(
    state: *const StateHandle,
    status_out: *mut RawStatus,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        // SAFETY: a handle of this plugin, one call at a time.
        let status = G::instance().status(&unsafe { slot::<G>(state) }?.state);
        // SAFETY: the caller passes a writable status.
        unsafe { write_status(status_out, status) };
        Ok(None)
    })
}

pub(super) unsafe extern "C" fn chance_outcomes<G: Instance>(
    state: *mut StateHandle,
    kind_out: *mut u32,
    outcomes_out: *mut *const RawOutcome,
    count_out: *mut usize,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        // SAFETY: a handle of this plugin, one call at a time.
        let slot = unsafe { slot::<G>(state) }?;
        // SAFETY: one call at a time per handle, and the caller is done with
        // the previous lent answer: nothing else refers to `outcomes`.
        let outcomes = unsafe { &mut *slot.outcomes.get() };
        outcomes.clear();
        let game = G::instance();
        chance_to_act(game, &slot.state)?;
        let kind = match game.chance(&slot.state) {
            Chance::Explicit(listed) => {
                outcomes.extend(listed.iter().map(|&(outcome, probability)| RawOutcome {
                    outcome,
                    probability,
                }));
                CHANCE_EXPLICIT
            }
            Chance::Sampled => CHANCE_SAMPLED,
        };
        // SAFETY: the caller passes a writable u32, pointer slot and usize.
        unsafe {
            kind_out.write(kind);
            outcomes_out.write(outcomes.as_ptr());
            count_out.write(outcomes.len());
        }
        Ok(None)
    })
}

pub(super) unsafe extern "C" fn results<G: Instance>(
    state: *const StateHandle,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        // SAFETY: a handle of this plugin, one call at a time.
        let state = &unsafe { slot::<G>(state) }?.state;
        json(&G::instance().results(state))
    })
}

pub(super) unsafe extern "C" fn legal_actions<G: Instance>(
    state: *mut StateHandle,
    player: u32,
    ids_out: *mut *const u64,
    count_out: *mut usize,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        // SAFETY: a handle of this plugin, one call at a time.
        let slot = unsafe { slot::<G>(state) }?;
        // SAFETY: one call at a time per handle, and the caller is done with
        // the previous lent answer: nothing else refers to `legal`.
        let legal = unsafe { &mut *slot.legal.get() };
        G::instance().legal_actions(&slot.state, player, legal);
        // SAFETY: the caller passes a writable pointer slot and a writable usize.
        unsafe {
            ids_out.write(legal.as_ptr());
            count_out.write(legal.len());
        }
        Ok(None)
    })
}

pub(super) unsafe extern "C" fn view<G: Instance>(
    state: *const StateHandle,
    viewer: u32,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        // SAFETY: a handle of this plugin, one call at a time.
        let state = &unsafe { slot::<G>(state) }?.state;
        json(&G::instance().view(state, Viewer::from_code(viewer)))
    })
}

pub(super) unsafe extern "C" fn render_text<G: Instance>(
    state: *const StateHandle,
    viewer: u32,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        // SAFETY: a handle of this plugin, one call at a time.
        let state = &unsafe { slot::<G>(state) }?.state;
        Ok(Some(
            G::instance().render_text(state, Viewer::from_code(viewer)),
        ))
    })
}

/// The moves a transition lends.
///
/// # Safety
/// `moves` points to `count` readable moves for `'a`, or `count` is 0.
unsafe fn read_moves<'a>(moves: *const RawMove, count: usize) -> &'a [RawMove] {
    if count == 0 || moves.is_null() {
        return &[];
    }
    // SAFETY: the caller's guarantee above.
    unsafe { std::slice::from_raw_parts(moves, count) }
}

pub(super) unsafe extern "C" fn event<G: Instance>(
    before: *const StateHandle,
    transition: *const RawTransition,
    after: *const StateHandle,
    viewer: u32,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        if transition.is_null() {
            return Err(GameError::internal("null transition"));
        }
        // SAFETY: the caller lends a readable RawTransition for the call.
        let raw = unsafe { &*transition };
        let transition = match raw.kind {
            TRANSITION_MOVES => {
                // SAFETY: the transition lends its moves for the call.
                Transition::Moves(unsafe { read_moves(raw.moves, raw.move_count) }.to_vec())
            }
            TRANSITION_CHANCE => Transition::Chance(raw.outcome),
            other => {
                return Err(GameError::internal(format!(
                    "unknown transition kind {other}"
                )));
            }
        };
        // SAFETY: two handles of this plugin, one call at a time on each.
        let (before, after) = unsafe { (slot::<G>(before)?, slot::<G>(after)?) };
        json(&G::instance().event(
            &before.state,
            &transition,
            &after.state,
            Viewer::from_code(viewer),
        ))
    })
}

pub(super) unsafe extern "C" fn position<G: Instance>(
    state: *const StateHandle,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        // SAFETY: a handle of this plugin, one call at a time.
        let state = &unsafe { slot::<G>(state) }?.state;
        Ok(Some(G::instance().position_to_string(state)))
    })
}

pub(super) unsafe extern "C" fn actions_to_strings<G: Instance>(
    state: *const StateHandle,
    player: u32,
    ids: *const u64,
    count: usize,
    ends_out: *mut u32,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        // SAFETY: a handle of this plugin, one call at a time.
        let state = &unsafe { slot::<G>(state) }?.state;
        let ids: &[u64] = if count == 0 || ids.is_null() {
            &[]
        } else {
            // SAFETY: the caller lends `count` ids at `ids` for the call.
            unsafe { std::slice::from_raw_parts(ids, count) }
        };
        let game = G::instance();
        let mut text = String::new();
        for (i, &id) in ids.iter().enumerate() {
            text.push_str(&game.action_to_string(state, player, id)?);
            let end = u32::try_from(text.len())
                .map_err(|_| GameError::internal("the notation exceeds 4 GiB"))?;
            // SAFETY: the caller passes `count` writable u32s at `ends_out`,
            // and `i < count`.
            unsafe { ends_out.add(i).write(end) };
        }
        Ok((!text.is_empty()).then_some(text))
    })
}

pub(super) unsafe extern "C" fn parse_action<G: Instance>(
    state: *const StateHandle,
    player: u32,
    text: StrRef,
    action_out: *mut u64,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        // SAFETY: the caller lends `text`, and a handle of this plugin.
        let (text, state) = unsafe { (read_str(text)?.unwrap_or(""), slot::<G>(state)?) };
        let id = G::instance().parse_action(&state.state, player, text)?;
        // SAFETY: the caller passes a writable u64.
        unsafe { action_out.write(id) };
        Ok(None)
    })
}

/// The remove-player extension's function.
pub(super) unsafe extern "C" fn remove_player<G: Instance>(
    state: *mut StateHandle,
    player: u32,
    status_out: *mut RawStatus,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        // SAFETY: a handle of this plugin; this call holds it alone.
        let slot = unsafe { slot_mut::<G>(state) }?;
        let game = G::instance();
        let remove = declared(G::EXTENSIONS.remove_player)?;
        slot.mutate(|state| remove(game, state, player))?;
        // SAFETY: the caller passes a writable status.
        unsafe { write_status(status_out, game.status(&slot.state)) };
        Ok(None)
    })
}

/// The expand-notation extension's function.
pub(super) unsafe extern "C" fn expand_notation<G: Instance>(
    state: *const StateHandle,
    player: u32,
    text: StrRef,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        // SAFETY: the caller lends `text`, and a handle of this plugin.
        let (text, state) = unsafe { (read_str(text)?.unwrap_or(""), slot::<G>(state)?) };
        let expand = declared(G::EXTENSIONS.expand_notation)?;
        match expand(G::instance(), &state.state, player, text)? {
            // An untouched `out` is the ABI's "not a shorthand".
            None => Ok(None),
            Some(list) => json(&list),
        }
    })
}

/// The resample extension's function.
pub(super) unsafe extern "C" fn resample<G: Instance>(
    state: *const StateHandle,
    viewer: u32,
    random: u64,
    state_out: *mut *mut StateHandle,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        // SAFETY: a handle of this plugin, one call at a time.
        let state = &unsafe { slot::<G>(state) }?.state;
        let resample = declared(G::EXTENSIONS.resample)?;
        let copy = resample(G::instance(), state, Viewer::from_code(viewer), random);
        // SAFETY: the caller passes a writable handle slot.
        unsafe { write_handle(state_out, into_handle::<G>(copy)) };
        Ok(None)
    })
}

/// The seats-out extension's function: the game's [`SeatsOut::seats_out`](crate::SeatsOut::seats_out)
/// as JSON in `out`, which the caller releases with `free_buf`.
pub(super) unsafe extern "C" fn seats_out<G: Instance>(
    state: *const StateHandle,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        // SAFETY: a handle of this plugin, one call at a time.
        let state = &unsafe { slot::<G>(state) }?.state;
        json(&declared(G::EXTENSIONS.seats_out)?(G::instance(), state))
    })
}

/// The seat-names extension's function: [`SeatNames::seat_names`](crate::SeatNames::seat_names)
/// as a JSON array in `out`.
pub(super) unsafe extern "C" fn seat_names<G: Instance>(players: u32, out: *mut PluginBuf) -> i32 {
    guard(out, || {
        json(&declared(G::EXTENSIONS.seat_names)?(G::instance(), players))
    })
}

/// The explain-refusal extension's function for an action id: the game's
/// [`Refusal`](crate::Refusal) as JSON, `out` untouched when the action is
/// legal.
pub(super) unsafe extern "C" fn explain_action<G: Instance>(
    state: *const StateHandle,
    player: u32,
    action: u64,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        // SAFETY: a handle of this plugin, one call at a time.
        let state = &unsafe { slot::<G>(state) }?.state;
        let explain = declared(G::EXTENSIONS.explain_refusal)?;
        match explain(G::instance(), state, player, Attempt::Id(action)) {
            None => Ok(None),
            Some(refusal) => json(&refusal),
        }
    })
}

/// The explain-refusal extension's function for a notation text.
pub(super) unsafe extern "C" fn explain_notation<G: Instance>(
    state: *const StateHandle,
    player: u32,
    text: StrRef,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        // SAFETY: the caller lends `text`, and a handle of this plugin.
        let (text, state) = unsafe { (read_str(text)?.unwrap_or(""), slot::<G>(state)?) };
        let explain = declared(G::EXTENSIONS.explain_refusal)?;
        match explain(G::instance(), &state.state, player, Attempt::Text(text)) {
            None => Ok(None),
            Some(refusal) => json(&refusal),
        }
    })
}

/// The explain-refusal extension's action-space function.
pub(super) unsafe extern "C" fn action_space<G: Instance>(
    state: *const StateHandle,
    count_out: *mut u64,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        // SAFETY: a handle of this plugin, one call at a time.
        let state = &unsafe { slot::<G>(state) }?.state;
        let count = declared(G::EXTENSIONS.action_space)?(G::instance(), state);
        // SAFETY: the caller passes a writable u64.
        unsafe { count_out.write(count) };
        Ok(None)
    })
}

/// The evaluate extension's function: [`Evaluate::evaluate`](crate::Evaluate::evaluate)
/// written into the caller's `count` values, one per seat.
pub(super) unsafe extern "C" fn evaluate<G: Instance>(
    state: *const StateHandle,
    values_out: *mut f64,
    count: usize,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        // SAFETY: a handle of this plugin, one call at a time.
        let state = &unsafe { slot::<G>(state) }?.state;
        let values = declared(G::EXTENSIONS.evaluate)?(G::instance(), state);
        if values.len() != count {
            return Err(GameError::internal(format!(
                "evaluate gives {} values; {count} were asked for, one per seat",
                values.len()
            )));
        }
        if count > 0 {
            if values_out.is_null() {
                return Err(GameError::internal("a null array for the values"));
            }
            // SAFETY: the caller passes room for `count` f64s at `values_out`,
            // not overlapping `values`, which this call owns.
            unsafe { std::ptr::copy_nonoverlapping(values.as_ptr(), values_out, count) };
        }
        Ok(None)
    })
}

/// The svg-board extension's function: [`SvgBoard::render_svg`](crate::SvgBoard::render_svg)
/// for a viewer, in `out`.
pub(super) unsafe extern "C" fn render_svg<G: Instance>(
    state: *const StateHandle,
    viewer: u32,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        // SAFETY: a handle of this plugin, one call at a time.
        let state = &unsafe { slot::<G>(state) }?.state;
        let render = declared(G::EXTENSIONS.render_svg)?;
        let svg = render(G::instance(), state, Viewer::from_code(viewer));
        Ok((!svg.is_empty()).then_some(svg))
    })
}

/// The action-targets extension's function: [`ActionTargets::action_targets`](crate::ActionTargets::action_targets)
/// of each of the caller's `count` ids, as a JSON array of arrays in `out`.
pub(super) unsafe extern "C" fn action_targets<G: Instance>(
    state: *const StateHandle,
    player: u32,
    ids: *const u64,
    count: usize,
    out: *mut PluginBuf,
) -> i32 {
    guard(out, || {
        // SAFETY: a handle of this plugin, one call at a time.
        let state = &unsafe { slot::<G>(state) }?.state;
        let ids: &[u64] = if count == 0 || ids.is_null() {
            &[]
        } else {
            // SAFETY: the caller lends `count` ids at `ids` for the call.
            unsafe { std::slice::from_raw_parts(ids, count) }
        };
        let game = G::instance();
        let targets_of = declared(G::EXTENSIONS.action_targets)?;
        let targets: Vec<Vec<String>> = ids
            .iter()
            .map(|&id| targets_of(game, state, player, id))
            .collect();
        json(&targets)
    })
}
