//! The four games speak alike over the API: seats named by number and
//! name, refusals that say why with the game's own code, and the position
//! text for everyone where nothing is hidden (docs/notation.md).

use rand::SeedableRng;
use tabletop_proto::v1 as pb;
use tabletop_proto::v1::matches_client::MatchesClient;
use tabletop_tests::{Host, target_dir};
use tonic::transport::Channel;

use crate::support::{create, legal, play_to_end, reason, spectator, submit};

const GAMES: [&str; 4] = ["focus", "lanza", "lanzeloth", "war"];

/// The reasons that say only that something was refused.
const CATCH_ALL: [&str; 2] = ["INVALID_NOTATION", "ILLEGAL_ACTION"];

fn metadata(status: &tonic::Status, key: &str) -> String {
    tabletop_tests::error_info(status)
        .and_then(|info| info.metadata.get(key).cloned())
        .unwrap_or_default()
}

async fn submit_text(
    matches: &mut MatchesClient<Channel>,
    match_id: &str,
    token: &str,
    notation: &str,
) -> Result<pb::SubmitActionResponse, tonic::Status> {
    matches
        .submit_action(pb::SubmitActionRequest {
            match_id: match_id.to_string(),
            seat_token: token.to_string(),
            action: Some(pb::submit_action_request::Action::Notation(
                notation.to_string(),
            )),
            ..Default::default()
        })
        .await
        .map(tonic::Response::into_inner)
}

#[tokio::test]
async fn the_catalog_and_every_view_name_each_games_seats() {
    let host = Host::start().await;
    let games = host
        .catalog()
        .await
        .list_games(pb::ListGamesRequest::default())
        .await
        .expect("list games")
        .into_inner()
        .games;
    let mut matches = host.matches().await;
    for name in GAMES {
        let game = games
            .iter()
            .find(|g| g.name == name)
            .unwrap_or_else(|| panic!("{name} is in the catalog"));
        let counts: Vec<u32> = game.seat_names.iter().map(|s| s.players).collect();
        assert_eq!(
            counts,
            (game.min_players..=game.max_players).collect::<Vec<_>>(),
            "{name} names its seats for every player count"
        );
        for named in &game.seat_names {
            assert_eq!(
                named.names.len(),
                named.players as usize,
                "{name}: {named:?}"
            );
            let (id, _) = create(&mut matches, name, named.players, 1).await;
            let view = spectator(&mut matches, &id).await;
            let in_view: Vec<&str> = view.seats.iter().map(|s| s.name.as_str()).collect();
            assert_eq!(
                in_view, named.names,
                "{name} views name seats as the catalog"
            );
        }
    }
}

#[tokio::test]
async fn out_of_turn_names_the_seat_by_number_and_name() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    let (id, tokens) = create(&mut matches, "focus", 2, 3).await;
    let view = spectator(&mut matches, &id).await;
    let waiting = view
        .seats
        .iter()
        .find(|s| !s.to_move)
        .expect("a seat waits");
    let label = format!("seat {} ({})", waiting.seat, waiting.name);
    assert!(!waiting.name.is_empty(), "Focus names its seats");
    let refused = submit_text(&mut matches, &id, &tokens[waiting.seat as usize], "a1-a2")
        .await
        .expect_err("out of turn");
    assert_eq!(reason(&refused), "NOT_YOUR_TURN");
    assert!(
        refused.message().contains(&label),
        "`{}` names {label}",
        refused.message()
    );
    assert_eq!(metadata(&refused, "seat_name"), waiting.name);

    // The CLI prints the server's words.
    let output = tokio::process::Command::new(
        target_dir().join(format!("tabletop{}", std::env::consts::EXE_SUFFIX)),
    )
    .args(["--server", &host.url, "move", &id, "a1-a2", "--token"])
    .arg(&tokens[waiting.seat as usize])
    .env_remove("TABLETOP_ADMIN_TOKEN")
    .env_remove("TABLETOP_CREDENTIAL")
    .output()
    .await
    .expect("run the CLI");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(&label), "the CLI says {label}: {stderr}");
}

#[tokio::test]
async fn every_game_says_why_it_refuses_with_its_own_code() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    for game in GAMES {
        let (id, tokens) = create(&mut matches, game, 2, 5).await;
        let before = spectator(&mut matches, &id).await;
        let seat = before.to_move[0];
        let token = &tokens[seat as usize];

        let refused = submit_text(&mut matches, &id, token, "zz99-zz99 ?")
            .await
            .expect_err("junk does not parse");
        assert_eq!(refused.code(), tonic::Code::InvalidArgument, "{game}");
        let code = reason(&refused);
        assert!(
            !CATCH_ALL.contains(&code.as_str()) && !code.is_empty(),
            "{game}: a specific reason for junk, not {code}: {}",
            refused.message()
        );
        assert_eq!(metadata(&refused, "refusal"), "INVALID_NOTATION", "{game}");

        let listed = legal(&mut matches, &id, token).await.expect("legal");
        let ids: Vec<u64> = listed.actions.iter().map(|a| a.id).collect();
        let illegal = (0..).find(|n| !ids.contains(n)).expect("an illegal id");
        let refused = submit(&mut matches, &id, token, illegal, None)
            .await
            .expect_err("an illegal id");
        let code = reason(&refused);
        assert!(
            !CATCH_ALL.contains(&code.as_str()) && !code.is_empty(),
            "{game}: a specific reason for id {illegal}, not {code}: {}",
            refused.message()
        );
        assert_eq!(metadata(&refused, "refusal"), "ILLEGAL_ACTION", "{game}");
        assert!(refused.message().len() < 1024, "{game}: a short message");

        let long = "x".repeat(20_000);
        let refused = submit_text(&mut matches, &id, token, &long)
            .await
            .expect_err("a long junk text");
        assert!(
            refused.message().len() < 400,
            "{game}: a long text is quoted in part: {} bytes",
            refused.message().len()
        );

        let after = spectator(&mut matches, &id).await;
        assert_eq!(
            after.version, before.version,
            "{game}: refusals change nothing"
        );
        assert_eq!(after.view_json, before.view_json, "{game}");
    }
}

#[tokio::test]
async fn a_view_carries_the_position_where_nothing_is_hidden() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    let mut rng = rand::rngs::StdRng::seed_from_u64(9);

    // Focus hides nothing: its running position is public and starts an
    // equal match.
    let (id, tokens) = create(&mut matches, "focus", 2, 4).await;
    let seat = spectator(&mut matches, &id).await.to_move[0];
    let listed = legal(&mut matches, &id, &tokens[seat as usize])
        .await
        .expect("legal");
    submit(
        &mut matches,
        &id,
        &tokens[seat as usize],
        listed.actions[0].id,
        None,
    )
    .await
    .expect("a legal move");
    let running = spectator(&mut matches, &id).await;
    assert!(
        !running.position.is_empty(),
        "a running Focus match shows its position"
    );
    let copy = matches
        .create_match(tabletop_tests::as_admin(pb::CreateMatchRequest {
            game: "focus".into(),
            players: 2,
            start_position: Some(running.position.clone()),
            ..Default::default()
        }))
        .await
        .expect("the position starts a match")
        .into_inner();
    let copied = spectator(&mut matches, &copy.match_id).await;
    assert_eq!(copied.position, running.position);
    assert_eq!(copied.to_move, running.to_move);

    // Lanzeloth hides hands: its position shows only once the match is over.
    let (id, tokens) = create(&mut matches, "lanzeloth", 2, 4).await;
    let hidden = spectator(&mut matches, &id).await;
    assert!(
        hidden.position.is_empty(),
        "a running Lanzeloth match hides its position"
    );
    let (_, finished) = play_to_end(&mut matches, &id, &tokens, &mut rng, 100_000).await;
    assert!(
        !finished.position.is_empty(),
        "a finished match shows its position"
    );
}
