//! [`kit_tests!`](crate::kit_tests): the conformance-kit tests of a game
//! crate, written by one macro, and the functions its tests call.

use crate::conformance::{self, Config, Summary};
use crate::dynamic::DynGame;
#[cfg(feature = "import")]
use crate::fingerprint::BuildFingerprint;

/// Writes the conformance-kit tests of a game crate: three `#[test]`
/// functions that prove
/// - `conformance_kit_passes_in_process`: the game linked in-process passes
///   [`conformance::run`];
/// - `conformance_kit_passes_through_the_built_plugin`: the game's cdylib,
///   opened through the SDK's import side, passes it too;
/// - `built_plugin_and_in_process_agree_step_for_step`: the two paths play
///   the same seeded random matches identically ([`conformance::agree`]).
///
/// The arguments are the game value, the name of the crate whose cdylib is
/// the game's plugin, and the kit's [`Config`] as a
/// `fn(&dyn DynGame) -> Config` (a function or a closure that captures
/// nothing; all three tests use it). An optional `check`, a
/// `fn(&Config, &Summary)`, adds the game's own assertions on what each kit
/// run covered.
///
/// With `configs: { name => config, … }` instead of `config`, each entry
/// becomes a module `name` holding the three tests for that config (one per
/// player count, say), so they run in parallel and their names say which
/// config failed. The modules `use super::*`, so the configs may name items
/// of the module that invokes the macro.
///
/// The plugin tests open the cdylib that the test's own build made, through
/// the SDK's import side ([`conformance::open_built_plugin`]): cargo builds
/// it beside the rlib whenever an integration test depends on the crate, so
/// `cargo test` after an edit runs the edited plugin, and a file of any other
/// build is refused by its build fingerprint. The game crate needs
/// `tabletop-sdk` with the `import` feature as a dev-dependency, and the
/// macro belongs in an integration test (`tests/`): invoked in the crate's
/// own unit tests, which cargo builds without the cdylib, it refuses to
/// compile.
///
/// ```ignore
/// use focus::Focus;
/// use tabletop_sdk::DynGame;
/// use tabletop_sdk::conformance::{Config, Summary};
///
/// fn config(game: &dyn DynGame, players: u32) -> Config {
///     let mut config = Config::for_game(game);
///     config.player_counts = vec![players];
///     config
/// }
///
/// fn check(_: &Config, summary: &Summary) {
///     assert!(summary.removals > 0, "{summary:?}");
/// }
///
/// tabletop_sdk::kit_tests! {
///     game: Focus,
///     plugin: "focus",
///     configs: {
///         two_players => |game| config(game, 2),
///         three_players => |game| config(game, 3),
///     },
///     check: check,
/// }
/// ```
#[macro_export]
macro_rules! kit_tests {
    (
        game: $game:expr,
        plugin: $plugin:literal,
        config: $config:expr
        $(, check: $check:expr)?
        $(,)?
    ) => {
        $crate::kit_tests!(@tests $game, $plugin, $config, [$($check)?]);
    };
    (
        game: $game:expr,
        plugin: $plugin:literal,
        configs: { $($name:ident => $config:expr),+ $(,)? }
        $(, check: $check:expr)?
        $(,)?
    ) => {
        // The optional check travels as one token tree, so that it can be
        // repeated once per config.
        $crate::kit_tests!(@each $game, $plugin, [$($check)?], $($name => $config),+);
    };
    (@each $game:expr, $plugin:literal, $check:tt, $($name:ident => $config:expr),+) => {
        $(
            mod $name {
                #[allow(unused_imports)]
                use super::*;

                $crate::kit_tests!(@tests $game, $plugin, $config, $check);
            }
        )+
    };
    (@tests $game:expr, $plugin:literal, $config:expr, [$($check:expr)?]) => {
        const _: () = $crate::kit_tests::refuse_unit_tests(::core::env!("CARGO_CRATE_NAME"), $plugin);

        #[test]
        fn conformance_kit_passes_in_process() {
            $crate::kit_tests::passes(
                &$crate::InProcess::new($game),
                $config,
                $crate::kit_tests!(@check $($check)?),
            );
        }

        #[test]
        fn conformance_kit_passes_through_the_built_plugin() {
            let plugin = $crate::kit_tests::open_built_plugin($plugin, &$game);
            $crate::kit_tests::passes(&plugin, $config, $crate::kit_tests!(@check $($check)?));
        }

        #[test]
        fn built_plugin_and_in_process_agree_step_for_step() {
            let plugin = $crate::kit_tests::open_built_plugin($plugin, &$game);
            $crate::kit_tests::agrees(&plugin, &$crate::InProcess::new($game), $config);
        }
    };
    (@check $check:expr) => {
        $check
    };
    (@check) => {
        |_, _| {}
    };
}

/// Refuses, at compile time, a [`kit_tests!`](crate::kit_tests) invoked in
/// the unit tests of the plugin crate itself (the compiled crate `crate_name`
/// is the plugin crate): cargo builds those without the cdylib, so the
/// plugin tests could only run a file of another build.
pub const fn refuse_unit_tests(crate_name: &str, plugin: &str) {
    let (crate_name, plugin) = (crate_name.as_bytes(), plugin.as_bytes());
    if crate_name.len() != plugin.len() {
        return;
    }
    let mut i = 0;
    while i < plugin.len() {
        let same = crate_name[i] == plugin[i] || (crate_name[i] == b'_' && plugin[i] == b'-');
        if !same {
            return;
        }
        i += 1;
    }
    panic!(
        "kit_tests! runs the plugin's cdylib, which cargo builds only for a test that depends on \
         the crate: invoke it in an integration test (tests/), not in the crate's own unit tests"
    );
}

/// The plugin of crate `crate_name` built with the running test, whose
/// game is `game`'s type; panics with the reason when there is none.
#[cfg(feature = "import")]
pub fn open_built_plugin<G: 'static>(crate_name: &str, game: &G) -> crate::import::ImportedGame {
    let _ = game;
    conformance::open_built_plugin(crate_name, &BuildFingerprint::of::<G>())
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Runs the kit on `game` with the config `config_of` gives it, then the
/// game's own `check`; panics with the failure's message.
pub fn passes(
    game: &dyn DynGame,
    config_of: fn(&dyn DynGame) -> Config,
    check: fn(&Config, &Summary),
) {
    let config = config_of(game);
    let summary = conformance::run(game, &config).unwrap_or_else(|failure| panic!("{failure}"));
    check(&config, &summary);
}

/// [`conformance::agree`] on `plugin` and `in_process` with the config
/// `config_of` gives the in-process game; panics with the failure's message.
pub fn agrees(
    plugin: &dyn DynGame,
    in_process: &dyn DynGame,
    config_of: fn(&dyn DynGame) -> Config,
) {
    let config = config_of(in_process);
    conformance::agree(plugin, in_process, &config).unwrap_or_else(|failure| panic!("{failure}"));
}

#[cfg(test)]
mod tests {
    use super::refuse_unit_tests;

    #[test]
    fn the_kit_runs_from_any_crate_but_the_plugin_crate_itself() {
        refuse_unit_tests("integration", "focus");
        refuse_unit_tests("kit", "my-game");
        refuse_unit_tests("my_games", "my-game");
        let refused = std::panic::catch_unwind(|| refuse_unit_tests("my_game", "my-game"));
        let message = refused.unwrap_err();
        let message = message.downcast_ref::<&str>().copied().unwrap_or_default();
        assert!(message.contains("integration test"), "{message}");
    }
}
