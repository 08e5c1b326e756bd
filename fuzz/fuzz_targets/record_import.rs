//! A match record's JSON through the host's import (parse, seat players,
//! replay, verify) with Lanza in-process: refused cleanly, or imported and
//! exported to a record that imports alike.
#![no_main]

use std::sync::{Arc, LazyLock};

use tabletop_sdk::{DynGame, InProcess};

static GAME: LazyLock<Arc<dyn DynGame>> = LazyLock::new(|| Arc::new(InProcess::new(lanza::Lanza)));

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    tabletop_hostile::record::import(&GAME, data);
});
