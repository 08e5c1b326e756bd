//! A position text (after the input's header; a NUL then an action text), read with `Game::parse_position`, printed back, played on and asked every notation call.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    tabletop_hostile::game::position(&war::War, data);
});
