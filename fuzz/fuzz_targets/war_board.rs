//! A War board document as option `board` (W1): refused with the line at
//! fault, or a board whose start position prints, reads back and plays.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    tabletop_hostile::game::option_text(&war::War, "board", data);
});
