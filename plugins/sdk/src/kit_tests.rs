//! [`kit_tests!`](crate::kit_tests): the conformance-kit tests of a game
//! crate, written by one macro, and the functions its tests call.

use crate::conformance::{self, Config, Summary};
use crate::dynamic::DynGame;

/// Writes the conformance-kit tests of a game crate: three `#[test]`
/// functions that prove
/// - `conformance_kit_passes_in_process`: the game linked in-process passes
///   [`conformance::run`];
/// - `conformance_kit_passes_through_the_built_plugin`: the game's cdylib,
///   loaded by engine-host's loader, passes it too;
/// - `built_plugin_and_in_process_agree_step_for_step`: the two paths play
///   the same seeded random matches identically ([`conformance::agree`]).
///
/// The arguments are the game value, the name of the crate whose cdylib is
/// the game's plugin (see [`conformance::built_plugin_path`]), and the kit's
/// [`Config`] as a `fn(&dyn DynGame) -> Config` (a function or a closure
/// that captures nothing; all three tests use it). An optional `check`, a
/// `fn(&Config, &Summary)`, adds the game's own assertions on what each kit
/// run covered.
///
/// With `configs: { name => config, … }` instead of `config`, each entry
/// becomes a module `name` holding the three tests for that config (one per
/// player count, say), so they run in parallel and their names say which
/// config failed. The modules `use super::*`, so the configs may name items
/// of the module that invokes the macro.
///
/// The plugin tests load the cdylib with `::tabletop_loader::Plugin::load`:
/// the game crate needs `tabletop-loader` as a dev-dependency, and the
/// cdylib must be built first (`cargo build`), as `cargo test` does not
/// rebuild it.
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
            let plugin = $crate::kit_tests!(@load $plugin);
            $crate::kit_tests::passes(&*plugin, $config, $crate::kit_tests!(@check $($check)?));
        }

        #[test]
        fn built_plugin_and_in_process_agree_step_for_step() {
            let plugin = $crate::kit_tests!(@load $plugin);
            $crate::kit_tests::agrees(&*plugin, &$crate::InProcess::new($game), $config);
        }
    };
    (@check $check:expr) => {
        $check
    };
    (@check) => {
        |_, _| {}
    };
    (@load $plugin:literal) => {
        ::tabletop_loader::Plugin::load(&$crate::conformance::built_plugin_path($plugin))
            .unwrap_or_else(|e| panic!("the built plugin of `{}` does not load: {e}", $plugin))
    };
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
