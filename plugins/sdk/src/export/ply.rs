//! The hot path: `ply` and `apply_chance`, which change a state and answer
//! in registers ([`RawPly`]).
//!
//! The path is the checks of the handle, the game's own calls and the
//! packing of the answer; every failure is handed to an out-of-line
//! function, and the poison flag is set only when a panic was caught (the
//! ABI says a panic anywhere in the call poisons the handle), not stored
//! twice per call.

use std::panic::{AssertUnwindSafe, catch_unwind};

use super::{Instance, NULL_HANDLE, POISONED, Slot, panicked, raw_status};
use crate::abi::{LEND_FIRST_MOVER, RawMove, RawPly, StateHandle};
use crate::error::{ErrorKind, GameError};
use crate::game::{Game, chance_to_act};
use crate::types::Status;

/// `ply`: applies a joint action and lends the asked player's legal list.
///
/// # Safety
/// The ABI's contract for `ply`: a handle of this plugin (or null) with no
/// other call on it, and `count` readable moves at a non-null, aligned
/// `moves`.
pub(super) unsafe extern "C" fn ply<G: Instance>(
    state: *mut StateHandle,
    moves: *const RawMove,
    count: usize,
    lend: u32,
) -> RawPly {
    if state.is_null() {
        return null_handle_ply();
    }
    let handle = state as *mut Slot<G>;
    // SAFETY: non-null handles come from `into_handle::<G>` of this plugin and
    // stay valid until `free_state`; the caller makes this the only call on
    // the handle, so nothing else reads or writes the slot.
    if unsafe { (*handle).poisoned } {
        return poisoned_ply();
    }
    // SAFETY: the caller lends `count` RawMoves at `moves` for the call, a
    // non-null, aligned pointer even when `count` is 0 (`ply`'s contract:
    // what a Rust slice's `as_ptr` gives; nothing is tested here, which
    // would cost the hot path three instructions).
    let moves = unsafe { std::slice::from_raw_parts(moves, count) };
    // `apply_chance` below is this body with the game's `apply_chance`; the
    // two stay written out side by side so the playout loop's crossing can
    // be read (and counted with callgrind) on its own.
    match catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: as above; this is the only reference to the slot until the
        // closure returns or unwinds.
        let slot = unsafe { &mut *handle };
        let game = slot.game;
        if let Err(error) = game.apply(&mut slot.state, moves) {
            return failed_ply(&mut slot.error, error);
        }
        answer(slot, lend)
    })) {
        Ok(answer) => answer,
        Err(payload) => panicked_ply(handle, payload),
    }
}

/// `apply_chance`: applies a chance outcome and lends like [`ply`].
///
/// # Safety
/// A handle of this plugin (or null) with no other call on it.
pub(super) unsafe extern "C" fn apply_chance<G: Instance>(
    state: *mut StateHandle,
    outcome: u64,
    lend: u32,
) -> RawPly {
    if state.is_null() {
        return null_handle_ply();
    }
    let handle = state as *mut Slot<G>;
    // SAFETY: as in `ply`.
    if unsafe { (*handle).poisoned } {
        return poisoned_ply();
    }
    match catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: as in `ply`.
        let slot = unsafe { &mut *handle };
        let game = slot.game;
        if let Err(error) = chance_to_act(game, &slot.state) {
            return failed_ply(&mut slot.error, error);
        }
        if let Err(error) = game.apply_chance(&mut slot.state, outcome) {
            return failed_ply(&mut slot.error, error);
        }
        answer(slot, lend)
    })) {
        Ok(answer) => answer,
        Err(payload) => panicked_ply(handle, payload),
    }
}

/// The answer after a change: the new status and the list `lend` asks for.
#[inline(always)]
fn answer<G: Game>(slot: &mut Slot<G>, lend: u32) -> RawPly {
    let game = slot.game;
    let status = game.status(&slot.state);
    let Status::ToMove(movers) = status else {
        return RawPly::unlent(raw_status(status));
    };
    // A named seat is passed on: a seat not to move (LEND_NOTHING among
    // them) gets the game's empty list. No test of it here keeps the
    // playout loop's case, the first mover, to one conditional move.
    let player = if lend == LEND_FIRST_MOVER {
        match movers.first() {
            Some(first) => first,
            None => return RawPly::unlent(raw_status(status)),
        }
    } else {
        lend
    };
    let legal = slot.legal.get_mut();
    game.legal_actions(&slot.state, player, legal);
    match RawPly::lend(raw_status(status), legal.as_ptr(), legal.len()) {
        Some(answer) => answer,
        None => too_long_ply(&mut slot.error),
    }
}

#[cold]
#[inline(never)]
fn null_handle_ply() -> RawPly {
    RawPly::failed(ErrorKind::Internal as i32, NULL_HANDLE)
}

#[cold]
#[inline(never)]
fn poisoned_ply() -> RawPly {
    RawPly::failed(ErrorKind::Poisoned as i32, POISONED)
}

/// Keeps `error`'s message in the handle and lends it.
#[cold]
#[inline(never)]
fn failed_ply(kept: &mut String, error: GameError) -> RawPly {
    *kept = error.message;
    RawPly::failed(error.kind as i32, kept)
}

#[cold]
#[inline(never)]
fn too_long_ply(kept: &mut String) -> RawPly {
    failed_ply(
        kept,
        GameError::internal("the legal list is too long for a ply's answer"),
    )
}

/// Poisons the handle a caught panic left behind and lends the panic's
/// message from it.
#[cold]
#[inline(never)]
fn panicked_ply<G: Game>(handle: *mut Slot<G>, payload: Box<dyn std::any::Any + Send>) -> RawPly {
    let message = panicked(payload.as_ref());
    // SAFETY: the handle is valid (checked non-null, owned by the caller
    // until `free_state`) and the closure that borrowed the slot has
    // unwound, so this is again the only reference to it.
    let slot = unsafe { &mut *handle };
    slot.poisoned = true;
    slot.error = message;
    RawPly::failed(ErrorKind::Panic as i32, &slot.error)
}
