//! The shims called as the host calls them, through the table, with a
//! game whose action 7 panics inside `apply`.

use super::*;
use crate::abi::{
    EXT_EXPAND_NOTATION, EXT_REMOVE_PLAYER, EXT_RESAMPLE, EXT_SVG_BOARD, LEND_FIRST_MOVER,
    LEND_NOTHING, PLY_FAILED, PLY_MAX_LEN, RawPly,
};
use crate::manifest::Setup;
use crate::types::{Chance, Move, PlayerResult, PlayerSet, Viewer};

/// Two players take turns; four actions end the game. Actions 0 and 1
/// are legal for the player to move, and so is 7, which panics.
#[derive(Debug, Default)]
struct Boom;

const PANIC: u64 = 7;

impl Game for Boom {
    type State = u32;
    type View<'a> = serde_json::Value;

    fn manifest(&self) -> Manifest {
        Manifest {
            name: "boom".into(),
            version: "1.0.0".into(),
            min_players: 2,
            max_players: 2,
            options: Vec::new(),
            rules_summary: String::new(),
            simultaneous: false,
            hidden_information: false,
            chance: false,
            removable_players: false,
        }
    }
    fn new_state(&self, _: &Setup) -> Result<u32, GameError> {
        Ok(0)
    }
    fn parse_position(&self, _: &Setup, text: &str) -> Result<u32, GameError> {
        text.parse()
            .map_err(|_| GameError::new(ErrorKind::InvalidPosition, "not a number"))
    }
    fn position_to_string(&self, made: &u32) -> String {
        made.to_string()
    }
    fn status(&self, made: &u32) -> Status {
        if *made >= 4 {
            Status::Terminal
        } else {
            Status::ToMove(PlayerSet::single(made % 2))
        }
    }
    fn chance(&self, _: &u32) -> Chance {
        Chance::Sampled
    }
    fn results(&self, _: &u32) -> Vec<PlayerResult> {
        Vec::new()
    }
    fn legal_actions(&self, made: &u32, player: u32, out: &mut Vec<u64>) {
        out.clear();
        if *made < 4 && player == made % 2 {
            out.extend([0, 1, PANIC]);
        }
    }
    fn apply(&self, made: &mut u32, moves: &[Move]) -> Result<(), GameError> {
        match moves {
            [Move { player, action }] if *made < 4 && *player == *made % 2 => match action {
                0 | 1 => {
                    *made += 1;
                    Ok(())
                }
                &PANIC => panic!("boom after {made} actions"),
                _ => Err(GameError::illegal(format!("{action} is not an action"))),
            },
            _ => Err(GameError::not_your_turn("one move, by the player on turn")),
        }
    }
    fn apply_chance(&self, _: &mut u32, _: u64) -> Result<(), GameError> {
        Err(GameError::illegal("no chance"))
    }
    fn action_to_string(&self, _: &u32, _: u32, action: u64) -> Result<String, GameError> {
        Ok(action.to_string())
    }
    fn parse_action(&self, _: &u32, _: u32, text: &str) -> Result<u64, GameError> {
        text.parse()
            .map_err(|_| GameError::invalid_notation("not a number"))
    }
    fn view(&self, made: &u32, _: Viewer) -> serde_json::Value {
        serde_json::json!({ "made": made })
    }
    fn render_text(&self, made: &u32, _: Viewer) -> String {
        made.to_string()
    }
}

impl crate::RemovePlayer for Boom {
    fn remove_player(&self, _: &mut u32, player: u32) -> Result<(), GameError> {
        Err(GameError::unsupported(format!(
            "boom takes no seat out (seat {player})"
        )))
    }
}

crate::declare_extensions!(Boom: [RemovePlayer]);

impl Instance for Boom {
    fn instance() -> &'static Self {
        &Boom
    }
    fn cached_manifest() -> &'static Manifest {
        static MANIFEST: std::sync::OnceLock<Manifest> = std::sync::OnceLock::new();
        MANIFEST.get_or_init(|| manifest_of(&Boom))
    }
}

fn new_state(api: &PluginApi) -> *mut StateHandle {
    let mut handle = std::ptr::null_mut();
    let mut status = RawStatus::default();
    let mut out = PluginBuf::EMPTY;
    // SAFETY: writable out-pointers, no options, no position.
    let code = unsafe {
        (api.new_state)(
            2,
            std::ptr::null(),
            0,
            StrRef::NULL,
            &mut handle,
            &mut status,
            &mut out,
        )
    };
    assert_eq!(code, CODE_OK);
    assert!(!handle.is_null());
    handle
}

fn ply(api: &PluginApi, state: *mut StateHandle, player: u32, action: u64) -> RawPly {
    let moves = [Move { player, action }];
    // SAFETY: a live handle of this table, one move lent for the call.
    unsafe { (api.ply)(state, moves.as_ptr(), moves.len(), LEND_FIRST_MOVER) }
}

fn free(api: &PluginApi, state: *mut StateHandle) {
    // SAFETY: a live handle of this table, given up here once.
    unsafe { (api.free_state)(state) };
}

/// The table `get_extension` answers for `id`, or null.
fn extension(api: &PluginApi, id: &str) -> *const std::ffi::c_void {
    // SAFETY: the id is lent for the call.
    unsafe { (api.get_extension)(StrRef::new(id)) }
}

/// The ids a successful ply lends.
fn ids(answer: RawPly) -> Vec<u64> {
    if answer.is_empty() {
        return Vec::new();
    }
    // SAFETY: a successful ply lends `len` ids at `lent` until the next
    // call on the handle; they are copied at once.
    unsafe { std::slice::from_raw_parts(answer.lent.cast::<u64>(), answer.len()) }.to_vec()
}

/// The message a failed ply lends.
fn message(answer: RawPly) -> String {
    assert_eq!(answer.kind(), PLY_FAILED);
    // SAFETY: a failed ply lends `len` bytes of message at `lent` until
    // the next call on the handle; they are copied at once.
    let bytes = unsafe { std::slice::from_raw_parts(answer.lent.cast::<u8>(), answer.len()) };
    String::from_utf8(bytes.to_vec()).unwrap()
}

fn status_code(api: &PluginApi, state: *mut StateHandle) -> (i32, RawStatus) {
    let mut status = RawStatus::default();
    let mut out = PluginBuf::EMPTY;
    // SAFETY: a live handle (or null), writable out-pointers; the buffer
    // is this table's and freed once.
    let code = unsafe { (api.status)(state, &mut status, &mut out) };
    // SAFETY: as above.
    unsafe { (api.free_buf)(out) };
    (code, status)
}

#[test]
fn ply_answers_the_status_and_lends_the_next_list() {
    let api = api::<Boom>();
    assert_eq!(api.size, std::mem::size_of::<PluginApi>());
    let state = new_state(api);

    let answer = ply(api, state, 0, 1);
    assert_eq!((answer.kind(), answer.high()), (STATUS_TO_MOVE, 0b10));
    assert_eq!(ids(answer), [0, 1, PANIC], "the next mover's list");

    // A named seat that is not to move is lent nothing.
    let moves = [Move {
        player: 1,
        action: 0,
    }];
    // SAFETY: a live handle, one move lent for the call.
    let answer = unsafe { (api.ply)(state, moves.as_ptr(), 1, 1) };
    assert_eq!((answer.kind(), answer.high()), (STATUS_TO_MOVE, 0b01));
    assert!(answer.is_empty());

    // A refused move changes nothing and lends the game's message.
    let refused = ply(api, state, 1, 0);
    assert_eq!(refused.high() as i32, ErrorKind::NotYourTurn as i32);
    assert_eq!(message(refused), "one move, by the player on turn");
    let refused = ply(api, state, 0, 5);
    assert_eq!(refused.high() as i32, ErrorKind::IllegalAction as i32);
    assert_eq!(message(refused), "5 is not an action");
    let (code, status) = status_code(api, state);
    assert_eq!(
        (code, status.kind, status.movers),
        (CODE_OK, STATUS_TO_MOVE, 0b01)
    );

    assert_eq!(ply(api, state, 0, 0).kind(), STATUS_TO_MOVE);
    let last = ply(api, state, 1, 0);
    assert_eq!(
        (last.kind(), last.high(), last.len()),
        (STATUS_TERMINAL, 0, 0)
    );

    // No moves at all: the game's refusal.
    // SAFETY: a live handle, an empty (dangling, aligned) move list.
    let none = unsafe { (api.ply)(state, [].as_ptr(), 0, LEND_FIRST_MOVER) };
    assert_eq!(none.kind(), PLY_FAILED);
    free(api, state);
}

#[test]
fn a_panic_inside_ply_is_reported_and_poisons_the_handle() {
    let api = api::<Boom>();
    let state = new_state(api);
    assert_eq!(ply(api, state, 0, 0).kind(), STATUS_TO_MOVE);

    let panicked = ply(api, state, 1, PANIC);
    assert_eq!(panicked.high() as i32, ErrorKind::Panic as i32);
    assert_eq!(message(panicked), "plugin panicked: boom after 1 actions");

    // Every later call on the handle is refused; it may only be freed.
    let poisoned = ply(api, state, 1, 0);
    assert_eq!(poisoned.high() as i32, ErrorKind::Poisoned as i32);
    assert!(
        message(poisoned).contains("poisoned"),
        "{}",
        message(poisoned)
    );
    assert_eq!(status_code(api, state).0, ErrorKind::Poisoned as i32);
    free(api, state);

    // Other handles are not affected.
    let other = new_state(api);
    assert_eq!(ply(api, other, 0, 1).kind(), STATUS_TO_MOVE);
    free(api, other);
}

#[test]
fn ply_refuses_a_null_handle() {
    let api = api::<Boom>();
    let answer = ply(api, std::ptr::null_mut(), 0, 0);
    assert_eq!(answer.high() as i32, ErrorKind::Internal as i32);
    assert_eq!(message(answer), "null state handle");
}

#[test]
fn a_ply_answer_packs_kind_length_and_movers() {
    let ids = [1u64, 2, 3];
    let status = RawStatus {
        kind: STATUS_TO_MOVE,
        movers: u32::MAX,
    };
    let answer = RawPly::lend(status, ids.as_ptr(), 3).unwrap();
    assert_eq!(
        (answer.kind(), answer.len(), answer.high()),
        (0, 3, u32::MAX)
    );
    let most = RawPly::lend(status, ids.as_ptr(), PLY_MAX_LEN).unwrap();
    assert_eq!(
        (most.kind(), most.len(), most.high()),
        (0, PLY_MAX_LEN, u32::MAX)
    );
    assert!(RawPly::lend(status, ids.as_ptr(), PLY_MAX_LEN + 1).is_none());

    let failed = RawPly::failed(ErrorKind::Poisoned as i32, "ünïcode");
    assert_eq!((failed.kind(), failed.high()), (PLY_FAILED, 8));
    assert_eq!(failed.len(), "ünïcode".len());
}

#[test]
fn only_the_listed_extensions_are_offered() {
    let api = api::<Boom>();
    assert!(!extension(api, EXT_REMOVE_PLAYER).is_null());
    for absent in [
        EXT_EXPAND_NOTATION,
        EXT_RESAMPLE,
        EXT_SVG_BOARD,
        "tabletop.remove-player/2",
        "",
    ] {
        assert!(extension(api, absent).is_null(), "{absent}");
    }
    // SAFETY: a null id is "absent", which names no extension.
    assert!(unsafe { (api.get_extension)(StrRef::NULL) }.is_null());
    assert!(Boom::cached_manifest().removable_players);
}

#[test]
fn the_remove_player_extension_refuses_and_reports_a_status() {
    let api = api::<Boom>();
    let table = extension(api, EXT_REMOVE_PLAYER).cast::<RemovePlayerExt>();
    // SAFETY: `get_extension` answered this id with a static RemovePlayerExt.
    let remove = unsafe { &*table };
    let state = new_state(api);
    let mut status = RawStatus {
        kind: 99,
        movers: 99,
    };
    let mut out = PluginBuf::EMPTY;
    // SAFETY: a live handle, writable out-pointers.
    let code = unsafe { (remove.remove_player)(state, 0, &mut status, &mut out) };
    assert_eq!(code, ErrorKind::Unsupported as i32);
    assert!(!out.ptr.is_null(), "the refusal says why");
    assert_eq!(status.kind, 99, "no status is written on failure");
    // SAFETY: this table's buffer, freed once.
    unsafe { (api.free_buf)(out) };
    free(api, state);
}

#[test]
fn lend_nothing_answers_the_status_alone() {
    let api = api::<Boom>();
    let state = new_state(api);
    let moves = [Move {
        player: 0,
        action: 1,
    }];
    // SAFETY: a live handle, one move lent for the call.
    let answer = unsafe { (api.ply)(state, moves.as_ptr(), 1, LEND_NOTHING) };
    assert_eq!((answer.kind(), answer.high()), (STATUS_TO_MOVE, 0b10));
    assert!(answer.is_empty());
    free(api, state);
}

#[test]
fn apply_chance_answers_like_ply() {
    let api = api::<Boom>();
    let state = new_state(api);
    // SAFETY: a live handle.
    let refused = unsafe { (api.apply_chance)(state, 3, LEND_FIRST_MOVER) };
    assert_eq!(
        refused.high() as i32,
        ErrorKind::NotYourTurn as i32,
        "outside a chance node, whatever the game's apply_chance says"
    );
    assert_eq!(message(refused), "chance is not to act in this state");
    // SAFETY: a null handle is refused, not read.
    let null = unsafe { (api.apply_chance)(std::ptr::null_mut(), 3, LEND_FIRST_MOVER) };
    assert_eq!(message(null), "null state handle");
    free(api, state);
}
