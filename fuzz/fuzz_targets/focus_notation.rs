//! An action text or shorthand (after the input's header), tried by every seat on a state of random play: `parse_action`, `expand_notation`, `explain_refusal`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    tabletop_hostile::game::notation(&focus::Focus, data);
});
