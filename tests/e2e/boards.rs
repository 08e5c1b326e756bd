//! Boards over the real API: every game's plugin draws its board for a
//! viewer (`GetView` with `svg`), every legal action names the board
//! elements it involves (`LegalAction.targets`), the board is drawn from
//! the very state of the view it comes with (a past version, a spectator's
//! delayed view), and a game without the extensions has no board.

use std::collections::BTreeSet;

use rand::SeedableRng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;
use tabletop_proto::v1 as pb;
use tabletop_proto::v1::matches_client::MatchesClient;
use tabletop_tests::{Host, HostOptions};
use tonic::transport::Channel;

use crate::support::{create, legal, play_first_legal, submit, view_of};

/// The match as the seat holding `token` (a spectator with an empty token)
/// sees it, right after `at_version` if given, with its board.
async fn board(
    matches: &mut MatchesClient<Channel>,
    match_id: &str,
    token: &str,
    at_version: Option<u64>,
) -> pb::MatchView {
    matches
        .get_view(pb::GetViewRequest {
            match_id: match_id.to_string(),
            seat_token: token.to_string(),
            at_version,
            svg: true,
        })
        .await
        .unwrap_or_else(|e| panic!("the board of {match_id} at {at_version:?}: {e}"))
        .into_inner()
}

/// Every element `id` of an SVG document (attributes in either quote).
fn element_ids(svg: &str) -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    for quote in ['\'', '"'] {
        let opening = format!(" id={quote}");
        let mut rest = svg;
        while let Some(at) = rest.find(&opening) {
            rest = &rest[at + opening.len()..];
            let end = rest.find(quote).expect("a closed attribute");
            ids.insert(rest[..end].to_owned());
            rest = &rest[end..];
        }
    }
    ids
}

/// The svg of a view, which must be a whole document.
fn svg_of(view: &pb::MatchView) -> &str {
    let svg = view.svg.as_deref().expect("a board was asked for");
    assert!(
        svg.starts_with("<svg") && svg.ends_with("</svg>"),
        "{}",
        &svg[..svg.len().min(200)]
    );
    svg
}

#[tokio::test]
async fn every_game_draws_its_board_and_every_target_is_on_the_movers_board() {
    let host = Host::start().await;
    let games = host
        .catalog()
        .await
        .list_games(pb::ListGamesRequest::default())
        .await
        .expect("the catalog")
        .into_inner()
        .games;
    let mut rng = ChaCha8Rng::seed_from_u64(30);
    for name in ["focus", "lanza", "lanzeloth", "war"] {
        let info = games
            .iter()
            .find(|g| g.name == name)
            .unwrap_or_else(|| panic!("{name} is in the catalog"));
        assert!(info.svg_board && info.action_targets, "{info:?}");
        let mut matches = host.matches().await;
        let (match_id, tokens) = create(&mut matches, name, info.min_players, 7).await;
        let plain = view_of(&mut matches, &match_id, "", None).await.unwrap();
        assert_eq!(plain.svg, None, "{name}: a board only when asked for");
        let mut targets_seen = 0;
        for _ in 0..10 {
            let spectator = board(&mut matches, &match_id, "", None).await;
            svg_of(&spectator);
            if spectator.state != pb::MatchState::Running as i32 {
                break;
            }
            for &seat in &spectator.to_move {
                let token = &tokens[seat as usize];
                let mine = board(&mut matches, &match_id, token, None).await;
                let ids = element_ids(svg_of(&mine));
                let list = legal(&mut matches, &match_id, token).await.unwrap();
                for action in &list.actions {
                    assert!(!action.targets.is_empty(), "{name}: {}", action.notation);
                    for target in &action.targets {
                        assert!(
                            ids.contains(target),
                            "{name}: {} names {target}, which seat {seat}'s board lacks",
                            action.notation
                        );
                        targets_seen += 1;
                    }
                }
                let action = list.actions.choose(&mut rng).expect("a legal action");
                submit(
                    &mut matches,
                    &match_id,
                    token,
                    action.id,
                    Some(list.version),
                )
                .await
                .unwrap_or_else(|e| panic!("{name}: submit {}: {e}", action.notation));
            }
        }
        assert!(targets_seen > 0, "{name}: targets were checked");
        // Clients that pick by id get no targets (nor notation).
        let ids_only = matches
            .list_legal_actions(pb::ListLegalActionsRequest {
                match_id: match_id.clone(),
                seat_token: tokens[0].clone(),
                ids_only: true,
            })
            .await
            .unwrap()
            .into_inner();
        assert!(ids_only.actions.is_empty(), "{name}: {ids_only:?}");
    }
}

#[tokio::test]
async fn the_board_shows_the_state_of_the_view_it_comes_with() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    // Focus for two: no chance, so version n is the position after n moves;
    // spectators see it two moves behind.
    let created = matches
        .create_match(pb::CreateMatchRequest {
            game: "focus".into(),
            players: 2,
            spectator_delay: Some(pb::SpectatorDelay { moves: 2, ms: 0 }),
            ..Default::default()
        })
        .await
        .expect("create")
        .into_inner();
    let match_id = created.match_id;
    let mut tokens = vec![String::new(); 2];
    for seat in created.seats {
        tokens[seat.seat as usize] = seat.token;
    }
    for _ in 0..4 {
        play_first_legal(&mut matches, &match_id, &tokens)
            .await
            .unwrap();
    }
    let live = board(&mut matches, &match_id, &tokens[0], None).await;
    assert_eq!(live.version, 4);
    assert!(svg_of(&live).contains("Move 5 of 1000"), "the live board");
    // The spectator's board is the delayed view's, not the live one.
    let spectator = board(&mut matches, &match_id, "", None).await;
    assert!(spectator.delayed);
    assert_eq!(spectator.version, 2);
    assert!(svg_of(&spectator).contains("Move 3 of 1000"));
    assert_ne!(spectator.svg, live.svg);
    // A past version's board is the board of that version, for a seat as
    // for the spectator (Focus hides nothing: every viewer sees the same).
    let past = board(&mut matches, &match_id, &tokens[1], Some(2)).await;
    assert_eq!(past.svg, spectator.svg);
    let start = board(&mut matches, &match_id, "", Some(0)).await;
    assert!(svg_of(&start).contains("Move 1 of 1000"));
    // Beyond what the delay shows, a spectator gets no board at all.
    let refused = matches
        .get_view(pb::GetViewRequest {
            match_id: match_id.clone(),
            seat_token: String::new(),
            at_version: Some(4),
            svg: true,
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument, "{refused}");
}

#[tokio::test]
async fn a_game_without_the_extensions_has_no_board_and_no_targets() {
    let (counter, _) = crate::durable::fixtures().await;
    let root = tempfile::tempdir().expect("temp dir");
    let dir = root.path().join("plugins");
    std::fs::create_dir_all(&dir).expect("plugin dir");
    std::fs::copy(
        &counter,
        dir.join(format!("counter.{}", std::env::consts::DLL_EXTENSION)),
    )
    .expect("copy the fixture");
    let host = Host::start_with(HostOptions {
        plugin_dir: Some(dir),
        ..Default::default()
    })
    .await;
    let info = host
        .catalog()
        .await
        .get_game(pb::GetGameRequest {
            game: "counter".into(),
            version: None,
        })
        .await
        .expect("the fixture's entry")
        .into_inner();
    assert!(!info.svg_board && !info.action_targets, "{info:?}");
    let mut matches = host.matches().await;
    let (match_id, tokens) = create(&mut matches, "counter", 2, 1).await;
    let view = board(&mut matches, &match_id, &tokens[0], None).await;
    assert_eq!(view.svg, None, "nothing to draw");
    assert!(!view.view_json.is_empty(), "the view is there as ever");
    let list = legal(&mut matches, &match_id, &tokens[0]).await.unwrap();
    assert!(!list.actions.is_empty());
    assert!(
        list.actions.iter().all(|a| a.targets.is_empty()),
        "{list:?}"
    );
}
