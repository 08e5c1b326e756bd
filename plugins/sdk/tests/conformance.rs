//! The SDK's own tests: the conformance kit on the example games, the kit
//! catching games that break the contract or lie in their manifest, the
//! agreement of two paths, and the option validation every plugin shares.

mod example;
mod pass_through;
mod plain;

use std::collections::BTreeMap;

use tabletop_sdk::conformance::{self, Claims, Config};
use tabletop_sdk::{
    Attempt, DynGame, ErrorKind, ExplainRefusal, Game, GameError, InProcess, Manifest, Refusal,
    RemovePlayer, Resample, SeatNames, Setup, Viewer, serde_json,
};

use pass_through::pass_through;

fn options(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn example_game_passes_the_conformance_kit() {
    let game = InProcess::new(example::Guess);
    let mut config = Config::for_game(&game);
    config.matches = 20;
    config.option_sets = vec![BTreeMap::new(), options(&[("rounds", "2")])];
    let summary = conformance::run(&game, &config).unwrap();
    assert_eq!(summary.matches, 3 * 2 * 20);
    assert!(summary.chance_nodes > summary.matches, "{summary:?}");
    assert!(summary.simultaneous_turns > 0, "{summary:?}");
    assert!(summary.matches_with_dropout > 0, "{summary:?}");
    assert!(summary.explained_refusals > 0, "{summary:?}");
}

#[test]
fn the_kit_catches_a_leaking_view() {
    // A game whose spectator view shows every secret must fail the kit.
    #[derive(Default)]
    struct Leaky(example::Guess);
    impl tabletop_sdk::Game for Leaky {
        type State = example::State;
        type View<'a> = serde_json::Value;
        pass_through!(manifest, playing, render_text);
        fn view(
            &self,
            s: &Self::State,
            _: tabletop_sdk::Viewer,
        ) -> tabletop_sdk::serde_json::Value {
            tabletop_sdk::serde_json::json!({ "secrets": s.secrets })
        }
    }
    impl Resample for Leaky {
        pass_through!(resample);
    }
    tabletop_sdk::declare_extensions!(Leaky: [Resample]);
    let game = InProcess::new(Leaky::default());
    let failure = conformance::run(&game, &Config::for_game(&game)).unwrap_err();
    assert!(
        failure.message.contains("hidden information leaks"),
        "{failure}"
    );
}

#[test]
fn options_are_validated_with_clear_errors() {
    let game = InProcess::new(example::Guess);
    let cases = [
        (options(&[("colour", "red")]), "unknown option `colour`"),
        (options(&[("rounds", "many")]), "must be an integer"),
        (options(&[("rounds", "99")]), "between 1 and 20"),
    ];
    for (raw, expected) in cases {
        let error = game.new_state(2, &raw, None).err().expect("refused");
        assert_eq!(error.kind, ErrorKind::InvalidOption);
        assert!(error.message.contains(expected), "{}", error.message);
    }
    let error = game
        .new_state(7, &BTreeMap::new(), None)
        .err()
        .expect("refused");
    assert!(
        error.message.contains("2 to 4 players"),
        "{}",
        error.message
    );
}

#[test]
fn a_game_without_shorthands_expands_nothing() {
    // A game that does not list the expand-notation extension has no
    // shorthands, so the host reads every text with `parse_action`.
    let game = InProcess::new(example::Guess);
    let state = game.new_state(2, &BTreeMap::new(), None).unwrap();
    for text in ["", "1", "1 2 3", "?? not an action ??"] {
        assert_eq!(state.expand_notation(0, text).unwrap(), None, "`{text}`");
    }
}

#[test]
fn the_kit_catches_a_game_that_claims_removable_players_but_cannot() {
    // The game offers the remove-player extension (so its manifest says
    // `removable_players: true`), but its `remove_player` refuses every
    // seat: the kit's removal matches fail.
    #[derive(Default)]
    struct Claims(example::Guess);
    impl tabletop_sdk::Game for Claims {
        type State = example::State;
        type View<'a> = serde_json::Value;
        pass_through!(manifest, playing, view, render_text);
    }
    impl RemovePlayer for Claims {
        fn remove_player(&self, _: &mut Self::State, _: u32) -> Result<(), GameError> {
            Err(GameError::unsupported("no seat can leave"))
        }
    }
    impl Resample for Claims {
        pass_through!(resample);
    }
    tabletop_sdk::declare_extensions!(Claims: [RemovePlayer, Resample]);
    let game = InProcess::new(Claims::default());
    let failure = conformance::run(&game, &Config::for_game(&game)).unwrap_err();
    assert!(failure.message.contains("remove_player"), "{failure}");
    assert!(failure.message.contains("Unsupported"), "{failure}");
}

/// A game that plays as `G` but makes the claims the flags say instead of
/// its own: a game that lies about chance, simultaneous moves or hidden
/// information.
#[derive(Default)]
struct Claiming<G, const CHANCE: bool, const SIMULTANEOUS: bool, const HIDDEN: bool>(G);

impl<G: Game, const CHANCE: bool, const SIMULTANEOUS: bool, const HIDDEN: bool> Game
    for Claiming<G, CHANCE, SIMULTANEOUS, HIDDEN>
{
    type State = G::State;
    type View<'a> = G::View<'a>;
    fn manifest(&self) -> Manifest {
        Manifest {
            chance: CHANCE,
            simultaneous: SIMULTANEOUS,
            hidden_information: HIDDEN,
            ..self.0.manifest()
        }
    }
    pass_through!(playing, view, render_text);
}

// Claiming the example game offers the example game's extensions; claiming
// the plain game, none.
tabletop_sdk::declare_extensions!(
    [const C: bool, const S: bool, const H: bool] Claiming<example::Guess, C, S, H>:
        [Resample, SeatNames, ExplainRefusal]
);
tabletop_sdk::declare_extensions!(
    [const C: bool, const S: bool, const H: bool] Claiming<plain::Nim, C, S, H>: []
);

impl<const C: bool, const S: bool, const H: bool> Resample for Claiming<example::Guess, C, S, H> {
    pass_through!(resample);
}

impl<const C: bool, const S: bool, const H: bool> SeatNames for Claiming<example::Guess, C, S, H> {
    pass_through!(seat_names);
}

impl<const C: bool, const S: bool, const H: bool> ExplainRefusal
    for Claiming<example::Guess, C, S, H>
{
    pass_through!(explain_refusal, action_space);
}

/// The kit's failure for `game` with its default config.
fn kit_failure(game: &dyn DynGame) -> String {
    conformance::run(game, &Config::for_game(game))
        .expect_err("the kit catches the false claim")
        .message
}

#[test]
fn the_plain_game_passes_the_conformance_kit() {
    let game = InProcess::new(plain::Nim);
    let summary = conformance::run(&game, &Config::for_game(&game)).unwrap();
    assert_eq!(summary.matches, 2 * 8);
    assert_eq!(
        (
            summary.chance_nodes,
            summary.simultaneous_turns,
            summary.differing_resamples
        ),
        (0, 0, 0)
    );
}

#[test]
fn the_kit_catches_a_game_that_denies_chance_but_meets_it() {
    let failure = kit_failure(&InProcess::new(
        Claiming::<example::Guess, false, true, true>::default(),
    ));
    assert!(
        failure.contains("the manifest claims `chance: false`, but a chance node was met"),
        "{failure}"
    );
}

#[test]
fn the_kit_catches_a_game_that_claims_chance_but_never_meets_it() {
    let failure = kit_failure(&InProcess::new(
        Claiming::<plain::Nim, true, false, false>::default(),
    ));
    assert!(
        failure.contains("the manifest claims `chance: true`, but no chance node was met"),
        "{failure}"
    );
}

#[test]
fn the_kit_catches_a_game_that_denies_simultaneous_moves_but_has_them() {
    let failure = kit_failure(&InProcess::new(
        Claiming::<example::Guess, true, false, true>::default(),
    ));
    assert!(
        failure.contains("the manifest claims `simultaneous: false`, but seats [0, 1] are to move"),
        "{failure}"
    );
}

#[test]
fn the_kit_catches_a_game_that_claims_simultaneous_moves_but_never_has_them() {
    let failure = kit_failure(&InProcess::new(
        Claiming::<plain::Nim, false, true, false>::default(),
    ));
    assert!(
        failure.contains(
            "the manifest claims `simultaneous: true`, but no two players were ever to move at once"
        ),
        "{failure}"
    );
}

#[test]
fn the_kit_catches_a_game_that_denies_hidden_information_but_hides_something() {
    let failure = kit_failure(&InProcess::new(
        Claiming::<example::Guess, true, true, false>::default(),
    ));
    assert!(
        failure
            .contains("the manifest claims `hidden_information: false`, but a state resampled for"),
        "{failure}"
    );
}

#[test]
fn the_kit_catches_a_game_that_claims_hidden_information_but_hides_nothing() {
    let failure = kit_failure(&InProcess::new(
        Claiming::<plain::Nim, false, false, true>::default(),
    ));
    assert!(
        failure.contains(
            "the manifest claims `hidden_information: true`, but every state resampled for every \
             viewer equalled the original: nothing was hidden"
        ),
        "{failure}"
    );
}

#[test]
fn a_run_whose_options_cannot_show_a_claim_may_leave_it_unmet() {
    let game = InProcess::new(Claiming::<plain::Nim, true, true, true>::default());
    let mut config = Config::for_game(&game);
    config.claims_to_meet = Claims {
        chance: false,
        simultaneous: false,
        hidden_information: false,
    };
    conformance::run(&game, &config).unwrap();
}

#[test]
fn the_same_game_twice_agrees_step_for_step() {
    let (a, b) = (
        InProcess::new(example::Guess),
        InProcess::new(example::Guess),
    );
    let summary = conformance::agree(&a, &b, &Config::for_game(&a)).unwrap();
    assert_eq!(summary.matches, 3 * 2);
    assert!(summary.simultaneous_turns > 0, "{summary:?}");
    assert!(summary.chance_nodes > summary.matches, "{summary:?}");
}

#[test]
fn agreement_fails_where_one_side_shows_something_else() {
    // Same manifest, same moves, but every view of the second game says
    // something else.
    #[derive(Default)]
    struct Loud(example::Guess);
    impl Game for Loud {
        type State = example::State;
        type View<'a> = serde_json::Value;
        pass_through!(manifest, playing, render_text);
        fn view(&self, s: &Self::State, v: Viewer) -> serde_json::Value {
            serde_json::json!({ "loud": true, "view": self.0.view(s, v) })
        }
    }
    impl Resample for Loud {
        pass_through!(resample);
    }
    impl SeatNames for Loud {
        pass_through!(seat_names);
    }
    impl ExplainRefusal for Loud {
        pass_through!(explain_refusal, action_space);
    }
    tabletop_sdk::declare_extensions!(Loud: [Resample, SeatNames, ExplainRefusal]);
    let (plain, loud) = (
        InProcess::new(example::Guess),
        InProcess::new(Loud::default()),
    );
    let failure = conformance::agree(&plain, &loud, &Config::for_game(&plain)).unwrap_err();
    assert!(
        failure
            .message
            .contains("the plugin and the game in-process differ on the view for Seat(0)"),
        "{failure}"
    );
}

/// How [`Misexplaining`] gets its explanations wrong.
const CATCH_ALL: u8 = 0;
const LEGAL_REFUSED: u8 = 1;

/// The example game with explanations broken as `HOW` says: every refusal
/// explained with the catch-all `ILLEGAL_ACTION` (`CATCH_ALL`), or the
/// legal bid 0 explained as refused (`LEGAL_REFUSED`).
#[derive(Default)]
struct Misexplaining<const HOW: u8>(example::Guess);

impl<const HOW: u8> Game for Misexplaining<HOW> {
    type State = example::State;
    type View<'a> = serde_json::Value;
    pass_through!(manifest, playing, view, render_text);
}

tabletop_sdk::declare_extensions!(
    [const HOW: u8] Misexplaining<HOW>: [Resample, SeatNames, ExplainRefusal]
);

impl<const HOW: u8> Resample for Misexplaining<HOW> {
    pass_through!(resample);
}

impl<const HOW: u8> SeatNames for Misexplaining<HOW> {
    pass_through!(seat_names);
}

impl<const HOW: u8> ExplainRefusal for Misexplaining<HOW> {
    pass_through!(action_space);
    fn explain_refusal(&self, s: &Self::State, p: u32, a: Attempt<'_>) -> Option<Refusal> {
        let honest = self.0.explain_refusal(s, p, a);
        match HOW {
            CATCH_ALL => honest.map(|refusal| Refusal {
                reason: "ILLEGAL_ACTION".into(),
                ..refusal
            }),
            _ if a == Attempt::Id(0) => Some(Refusal::illegal("BID_ZERO", "bid 0 is never legal")),
            _ => honest,
        }
    }
}

#[test]
fn the_kit_catches_a_game_that_explains_a_refusal_with_a_catch_all_code() {
    let failure = kit_failure(&InProcess::new(Misexplaining::<CATCH_ALL>::default()));
    assert!(
        failure
            .contains("is explained with the catch-all or malformed reason code `ILLEGAL_ACTION`"),
        "{failure}"
    );
}

#[test]
fn the_kit_catches_a_game_that_explains_a_legal_action_as_refused() {
    let failure = kit_failure(&InProcess::new(Misexplaining::<LEGAL_REFUSED>::default()));
    assert!(
        failure.contains("legal action 0 of player 0 is explained as refused"),
        "{failure}"
    );
}

#[test]
fn the_example_names_its_seats_and_explains_each_refusal() {
    let game = example::Guess;
    assert_eq!(game.seat_names(3), ["A", "B", "C"]);
    assert!(game.seat_names(5).is_empty());
    let setup = Setup::validate(&game.manifest(), 2, &BTreeMap::new()).unwrap();
    let mut state = game.new_state(&setup).unwrap();
    let why = |state: &example::State, player, attempt| {
        game.explain_refusal(state, player, attempt)
            .map(|refusal| refusal.reason)
    };
    assert_eq!(
        why(&state, 0, Attempt::Id(1)).as_deref(),
        Some("NOT_BIDDING")
    );
    assert_eq!(
        why(&state, 7, Attempt::Id(1)).as_deref(),
        Some("NO_SUCH_SEAT")
    );
    assert_eq!(
        why(&state, 0, Attempt::Text("raise")).as_deref(),
        Some("NOT_A_BID")
    );
    state.phase = example::Phase::Bid;
    state.active[1] = false;
    assert_eq!(why(&state, 0, Attempt::Text(" bid3 ")), None);
    assert_eq!(
        why(&state, 0, Attempt::Id(4)).as_deref(),
        Some("BID_TOO_HIGH")
    );
    let busted = game.explain_refusal(&state, 1, Attempt::Id(0)).unwrap();
    assert_eq!(busted.reason, "BUSTED");
    assert_eq!(
        busted.message,
        "seat 1 (B) busted and is out of the game (G4)"
    );
    let refused = game.parse_action(&state, 1, "bid0").unwrap_err();
    assert_eq!(
        refused.message, busted.message,
        "parse_action says the same"
    );
}
