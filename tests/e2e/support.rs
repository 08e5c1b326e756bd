//! Shared moves for the end-to-end tests: playing random matches over gRPC.

use rand::seq::IndexedRandom;
use tabletop_proto::v1 as pb;
use tabletop_proto::v1::matches_client::MatchesClient;
use tonic::transport::Channel;

/// Creates a match and returns (match id, seat tokens by seat).
pub async fn create(
    matches: &mut MatchesClient<Channel>,
    game: &str,
    players: u32,
    seed: u64,
) -> (String, Vec<String>) {
    let created = matches
        .create_match(pb::CreateMatchRequest {
            game: game.to_string(),
            players,
            seed: Some(seed),
            ..Default::default()
        })
        .await
        .unwrap_or_else(|e| panic!("create {game} for {players}: {e}"))
        .into_inner();
    let mut tokens = vec![String::new(); players as usize];
    for seat in created.seats {
        tokens[seat.seat as usize] = seat.token;
    }
    (created.match_id, tokens)
}

/// Plays random legal actions until the match ends; returns the number of
/// actions submitted and the final spectator view.
pub async fn play_to_end(
    matches: &mut MatchesClient<Channel>,
    match_id: &str,
    tokens: &[String],
    rng: &mut impl rand::Rng,
    max_actions: usize,
) -> (usize, pb::MatchView) {
    let mut submitted = 0;
    loop {
        let view = matches
            .get_view(pb::GetViewRequest {
                match_id: match_id.to_string(),
                seat_token: String::new(),
            })
            .await
            .expect("spectator view")
            .into_inner();
        if view.state == pb::MatchState::Finished as i32 {
            return (submitted, view);
        }
        assert_eq!(view.state, pb::MatchState::Running as i32, "{view:?}");
        assert!(
            !view.to_move.is_empty(),
            "a running match has seats to move"
        );
        for &seat in &view.to_move {
            let token = &tokens[seat as usize];
            let legal = matches
                .list_legal_actions(pb::ListLegalActionsRequest {
                    match_id: match_id.to_string(),
                    seat_token: token.clone(),
                })
                .await
                .expect("legal actions")
                .into_inner();
            let action = legal
                .actions
                .choose(rng)
                .unwrap_or_else(|| panic!("seat {seat} is to move but has no legal action"));
            matches
                .submit_action(pb::SubmitActionRequest {
                    match_id: match_id.to_string(),
                    seat_token: token.clone(),
                    action: Some(pb::submit_action_request::Action::ActionId(action.id)),
                    expected_version: Some(legal.version),
                })
                .await
                .unwrap_or_else(|e| panic!("submit {} for seat {seat}: {e}", action.notation));
            submitted += 1;
            assert!(
                submitted <= max_actions,
                "the match did not end within {max_actions} actions"
            );
        }
    }
}
