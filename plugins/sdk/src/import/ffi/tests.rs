//! The import side of the ABI, against a test game's exported table
//! adopted in-process, as a loaded plugin's would be.

use super::*;
use crate::import::test_game::Counter;

/// The test game's table as the loader adopts a loaded plugin's.
fn fixture() -> RawPlugin {
    let table = crate::export::api::<Counter>();
    // SAFETY: the SDK's static table of this ABI for a game linked in.
    unsafe { RawPlugin::adopt(NonNull::from(table)) }.unwrap()
}

/// The version header of a table, alone: what an older plugin's entry
/// returns as far as this host reads it.
#[repr(C)]
struct Header {
    abi_major: u32,
    abi_minor: u32,
    size: usize,
}

/// The test game's options with a roll after every action, so matches meet
/// explicit chance nodes.
fn dice() -> BTreeMap<String, String> {
    [("dice".into(), "true".into())].into()
}

#[test]
fn a_table_of_another_major_version_is_refused_naming_its_abi() {
    for (major, minor) in [(2, 5), (1, 0), (4, 0)] {
        let header: &'static Header = Box::leak(Box::new(Header {
            abi_major: major,
            abi_minor: minor,
            size: std::mem::size_of::<Header>(),
        }));
        let table = NonNull::from(header).cast::<PluginApi>();
        // SAFETY: a static header; a table of another major version is
        // refused after reading the header alone.
        let refused = unsafe { RawPlugin::adopt(table) }.unwrap_err();
        let ImportError::Incompatible(message) = refused else {
            panic!("{refused:?}");
        };
        assert!(
            message.contains(&format!("speaks ABI {major}.{minor}")),
            "{message}"
        );
        assert!(message.contains("ABI 3"), "{message}");
    }
}

#[test]
fn a_table_smaller_than_this_abi_is_refused() {
    let api = crate::export::api::<Counter>();
    let header: &'static Header = Box::leak(Box::new(Header {
        abi_major: api.abi_major,
        abi_minor: api.abi_minor,
        size: api.size - 8,
    }));
    // SAFETY: a static header claiming a short table: refused after the
    // header is read.
    let refused = unsafe { RawPlugin::adopt(NonNull::from(header).cast()) }.unwrap_err();
    assert!(
        matches!(&refused, ImportError::Incompatible(m) if m.contains("fewer than")),
        "{refused:?}"
    );
}

#[test]
fn every_function_of_the_table_is_checked_for_null() {
    let header = std::mem::offset_of!(PluginApi, free_buf);
    let pointer = std::mem::size_of::<usize>();
    assert_eq!(
        header + CORE_FUNCTIONS.len() * pointer,
        std::mem::size_of::<PluginApi>(),
        "a function of the table is missing from CORE_FUNCTIONS"
    );
}

#[test]
fn a_table_with_a_null_function_is_refused_naming_it() {
    let api = crate::export::api::<Counter>();
    // The test game's table as bytes, with `ply` zeroed: what a plugin written
    // in C that forgot to fill the field exports.
    let size = std::mem::size_of::<PluginApi>();
    let words = size / std::mem::size_of::<usize>();
    let mut copy = vec![0usize; words];
    // SAFETY: the table is `size` readable bytes; `copy` has room for them.
    unsafe {
        std::ptr::copy_nonoverlapping(
            (api as *const PluginApi).cast::<u8>(),
            copy.as_mut_ptr().cast::<u8>(),
            size,
        )
    };
    copy[std::mem::offset_of!(PluginApi, ply) / std::mem::size_of::<usize>()] = 0;
    let copy: &'static [usize] = Box::leak(copy.into_boxed_slice());
    let table = NonNull::new(copy.as_ptr().cast_mut())
        .unwrap()
        .cast::<PluginApi>();
    // SAFETY: a static table of this ABI's size whose `ply` is null: refused
    // before it is read as a `PluginApi`.
    let refused = unsafe { RawPlugin::adopt(table) }.unwrap_err();
    assert!(
        matches!(&refused, ImportError::Incompatible(m) if m.contains("`ply`")),
        "{refused:?}"
    );
}

#[test]
fn a_plugin_without_extensions_is_refused_their_calls_without_a_crossing() {
    let plugin = fixture();
    assert!(plugin.extension_ids().is_empty());
    let mut state = plugin.new_state(2, &BTreeMap::new(), None).unwrap();
    let refused = state.remove_player(1).unwrap_err();
    assert_eq!(refused.kind, ErrorKind::Unsupported);
    assert_eq!(state.expand_notation(0, "tick").unwrap(), None);
    let mut values = [0.25; 2];
    assert!(!state.evaluate(&mut values).unwrap());
    assert_eq!(
        values, [0.25; 2],
        "no values are written without the extension"
    );
    // A plugin that hides nothing resamples by copying.
    let copy = state.resample(Viewer::Seat(0), 7).unwrap();
    assert_eq!(copy.position().unwrap(), state.position().unwrap());
    // A plugin that does not draw has no board and names no targets.
    assert_eq!(state.render_svg(Viewer::Spectator).unwrap(), None);
    assert_eq!(state.action_targets_json(0, &[0, 1]).unwrap(), None);
}

/// Plays a fixture match with rolls, `ply` lending the first mover's list
/// every ply; checks each lent list against `legal_actions` and each status
/// against a fresh `status` call, and returns how many plies it played.
fn play_checking_every_lent_list(plugin: RawPlugin, players: u32, seed: u64) -> usize {
    let mut state = plugin.new_state(players, &dice(), None).unwrap();
    let mut copied = Vec::new();
    let mut plies = 0;
    let mut pick = seed;
    // The list the last ply lent, to pick the next action from.
    let mut lent_before: Option<Vec<u64>> = None;
    loop {
        match state.status() {
            Status::Terminal => return plies,
            Status::Chance => {
                let node = state.chance().unwrap();
                assert!(matches!(node, Chance::Explicit(ref o) if o.len() == 3));
                let outcome = crate::chance::draw(&node, seed, plies as u64).unwrap();
                state.apply_chance(outcome).unwrap();
                lent_before = None;
            }
            Status::ToMove(movers) => {
                let player = movers.first().unwrap();
                let choices = match lent_before.take() {
                    Some(list) => list,
                    None => {
                        state.legal_actions(player, &mut copied).unwrap();
                        copied.clone()
                    }
                };
                pick = pick.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let action = choices[(pick >> 33) as usize % choices.len()];
                let (status, lent) = state.ply(&[Move { player, action }], None).unwrap();
                let lent = lent.to_vec();
                plies += 1;
                let mut again = state.clone_state().unwrap();
                again.refresh_status().unwrap();
                assert_eq!(status, again.status(), "the reported status is the state's");
                if let Status::ToMove(movers) = status {
                    state
                        .legal_actions(movers.first().unwrap(), &mut copied)
                        .unwrap();
                    assert_eq!(lent, copied, "the first mover's list is lent");
                    lent_before = Some(lent);
                } else {
                    assert!(lent.is_empty());
                }
            }
        }
    }
}

#[test]
fn ply_lends_the_list_and_status_the_separate_calls_give() {
    let plugin = fixture();
    let plies: usize = [2, 3, 4]
        .into_iter()
        .flat_map(|players| (1..=3).map(move |seed| (players, seed)))
        .map(|(players, seed)| play_checking_every_lent_list(plugin, players, seed))
        .sum();
    assert!(plies > 50, "the matches were played ({plies} plies)");
}

#[test]
fn a_refused_ply_lends_nothing_and_changes_nothing() {
    let plugin = fixture();
    let mut state = plugin.new_state(2, &BTreeMap::new(), None).unwrap();
    let before = state.position().unwrap();
    let refused = state
        .ply(
            &[Move {
                player: 0,
                action: u64::MAX,
            }],
            Some(1),
        )
        .unwrap_err();
    assert!(!refused.kind.is_fault(), "{refused:?}");
    assert_eq!(state.position().unwrap(), before);
    // A named seat is lent its own list: seat 1 moves after seat 0.
    let (status, lent) = state
        .ply(
            &[Move {
                player: 0,
                action: 0,
            }],
            Some(1),
        )
        .unwrap();
    let lent = lent.to_vec();
    assert_eq!(status, Status::ToMove(PlayerSet::single(1)));
    let mut legal = Vec::new();
    state.legal_actions(1, &mut legal).unwrap();
    assert_eq!(lent, legal);
    let (_, lent) = state
        .ply(
            &[Move {
                player: 1,
                action: 0,
            }],
            Some(1),
        )
        .unwrap();
    assert!(lent.is_empty(), "seat 1 is not to move: nothing is lent");
}

#[test]
fn the_notation_of_a_list_is_the_notation_of_each_action() {
    let plugin = fixture();
    let state = plugin.new_state(2, &BTreeMap::new(), None).unwrap();
    let mut legal = Vec::new();
    state.legal_actions(0, &mut legal).unwrap();
    let mut text = String::from("already here|");
    let mut ends = Vec::new();
    state
        .actions_to_strings(0, &legal, &mut text, &mut ends)
        .unwrap();
    let mut start = "already here|".len();
    for (&id, &end) in legal.iter().zip(&ends) {
        assert_eq!(
            &text[start..end as usize],
            state.action_to_string(0, id).unwrap()
        );
        start = end as usize;
    }
    let refused = state
        .actions_to_strings(0, &[99], &mut String::new(), &mut Vec::new())
        .unwrap_err();
    assert!(!refused.message.is_empty());
}

#[test]
fn a_failed_ply_is_read_as_an_error_and_never_trusted() {
    let message = "no such move";
    let refused = ply_error(RawPly::failed(ErrorKind::IllegalAction as i32, message));
    assert_eq!(refused.kind, ErrorKind::IllegalAction);
    assert_eq!(refused.message, message);
    // Code 0 is success, not an error kind: a broken plugin.
    let zero = ply_error(RawPly::failed(CODE_OK, message));
    assert_eq!(zero.kind, ErrorKind::Internal);
    // No message, or a null one.
    let bare = RawPly {
        lent: std::ptr::null(),
        ..RawPly::failed(ErrorKind::Panic as i32, "lost!")
    };
    let bare = ply_error(bare);
    assert_eq!(bare.kind, ErrorKind::Panic);
    assert!(bare.message.contains("without a message"));
    // Bytes that are not UTF-8 are read lossily.
    let bytes = [b'a', 0xff, b'b'];
    let lossy = RawPly {
        lent: bytes.as_ptr().cast(),
        ..RawPly::failed(ErrorKind::Internal as i32, "abc")
    };
    assert_eq!(ply_error(lossy).message, "a\u{fffd}b");
}

/// Hands `bytes` to the caller as a plugin buffer, allocated as the SDK's
/// `free_buf` expects (a `Vec<u8>` of this process's allocator).
fn hand_over(out: *mut PluginBuf, bytes: Vec<u8>) {
    let mut bytes = std::mem::ManuallyDrop::new(bytes);
    // SAFETY: the caller passes a writable, empty buffer (ABI conventions).
    unsafe {
        out.write(PluginBuf {
            ptr: bytes.as_mut_ptr(),
            len: bytes.len(),
            cap: bytes.capacity(),
        })
    };
}

/// A board with a byte that is not UTF-8 in its markup.
unsafe extern "C" fn svg_not_utf8(_: *const StateHandle, _: u32, out: *mut PluginBuf) -> i32 {
    hand_over(out, b"<svg><text>\xff</text></svg>".to_vec());
    CODE_OK
}

/// A board one byte over the bound.
unsafe extern "C" fn svg_too_large(_: *const StateHandle, _: u32, out: *mut PluginBuf) -> i32 {
    let mut svg = b"<svg>".to_vec();
    svg.resize(crate::abi::MAX_SVG_BYTES + 1, b' ');
    hand_over(out, svg);
    CODE_OK
}

/// Targets far longer than a few element ids per action.
unsafe extern "C" fn targets_too_large(
    _: *const StateHandle,
    _: u32,
    _: *const u64,
    count: usize,
    out: *mut PluginBuf,
) -> i32 {
    let id = "x".repeat(board::MAX_TARGET_BYTES_PER_ACTION);
    let one = format!("[\"{id}\"]");
    hand_over(
        out,
        format!("[{}]", vec![one; count].join(",")).into_bytes(),
    );
    CODE_OK
}

static NOT_UTF8: SvgBoardExt = SvgBoardExt {
    render_svg: svg_not_utf8,
};
static TOO_LARGE: SvgBoardExt = SvgBoardExt {
    render_svg: svg_too_large,
};
static LONG_TARGETS: ActionTargetsExt = ActionTargetsExt {
    action_targets: targets_too_large,
};

/// A broken plugin's extension lookup: the board not UTF-8.
unsafe extern "C" fn broken_utf8(id: StrRef) -> *const c_void {
    // SAFETY: the caller lends `id` for the call.
    let id = unsafe { borrowed_bytes(id) };
    if id == EXT_SVG_BOARD.as_bytes() {
        (&raw const NOT_UTF8).cast()
    } else {
        std::ptr::null()
    }
}

/// A broken plugin's extension lookup: the board and targets too large.
unsafe extern "C" fn broken_size(id: StrRef) -> *const c_void {
    // SAFETY: the caller lends `id` for the call.
    let id = unsafe { borrowed_bytes(id) };
    if id == EXT_SVG_BOARD.as_bytes() {
        (&raw const TOO_LARGE).cast()
    } else if id == EXT_ACTION_TARGETS.as_bytes() {
        (&raw const LONG_TARGETS).cast()
    } else {
        std::ptr::null()
    }
}

/// The test game's table with `get_extension` replaced: a plugin whose
/// extensions are `lookup`'s.
fn fixture_with_extensions(lookup: unsafe extern "C" fn(StrRef) -> *const c_void) -> RawPlugin {
    let api = crate::export::api::<Counter>();
    // SAFETY: reading the test game's static table by value is a plain copy of
    // its fields (all `Copy`: numbers and function pointers).
    let mut copy: PluginApi = unsafe { std::ptr::read(api) };
    copy.get_extension = lookup;
    let table: &'static PluginApi = Box::leak(Box::new(copy));
    // SAFETY: a static table of this ABI whose functions are the test game's,
    // its lookup answering each id with a static table of that id's type.
    unsafe { RawPlugin::adopt(NonNull::from(table)) }.unwrap()
}

#[test]
fn a_board_that_is_not_utf8_is_refused_with_a_clear_error() {
    let plugin = fixture_with_extensions(broken_utf8);
    assert_eq!(plugin.extension_ids(), [EXT_SVG_BOARD]);
    let state = plugin.new_state(2, &BTreeMap::new(), None).unwrap();
    let refused = state.render_svg(Viewer::Seat(0)).unwrap_err();
    assert_eq!(refused.kind, ErrorKind::Internal);
    assert!(
        refused
            .message
            .starts_with("the plugin's SVG board: not valid UTF-8"),
        "{refused}"
    );
    // The state is as good as before.
    assert_eq!(state.status(), Status::ToMove(PlayerSet::single(0)));
}

#[test]
fn a_board_or_targets_over_their_bound_are_refused_with_a_clear_error() {
    let plugin = fixture_with_extensions(broken_size);
    let state = plugin.new_state(2, &BTreeMap::new(), None).unwrap();
    let refused = state.render_svg(Viewer::Spectator).unwrap_err();
    assert_eq!(refused.kind, ErrorKind::Internal);
    assert_eq!(
        refused.message,
        format!(
            "the plugin's SVG board: {} bytes, more than the {} allowed",
            crate::abi::MAX_SVG_BYTES + 1,
            crate::abi::MAX_SVG_BYTES
        )
    );
    let refused = state.action_targets_json(0, &[0, 1]).unwrap_err();
    assert!(
        refused
            .message
            .starts_with("the plugin's action targets: 8"),
        "{refused}"
    );
}
