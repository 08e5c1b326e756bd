//! Issue 9 (performance): the response options a fast client relies on.

use tabletop_proto::v1 as pb;
use tabletop_tests::Host;

use crate::support::create;

/// A bot that picks from ListLegalActions does not need the game's view after
/// each of its actions: a summary response leaves out the costly part (a
/// plugin call for the JSON view and one for the text) and keeps the rest.
#[tokio::test]
async fn issue9_summary_submit_responses_leave_out_the_game_view() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    let (id, tokens) = create(&mut matches, "war", 2, 9).await;
    let mut version = None;
    for (turn, detail) in [
        pb::ViewDetail::Summary,
        pb::ViewDetail::Unspecified,
        pb::ViewDetail::Summary,
        pb::ViewDetail::Full,
    ]
    .into_iter()
    .enumerate()
    {
        let view = matches
            .get_view(pb::GetViewRequest {
                match_id: id.clone(),
                seat_token: String::new(),
            })
            .await
            .expect("view")
            .into_inner();
        let seat = view.to_move[0] as usize;
        let legal = matches
            .list_legal_actions(pb::ListLegalActionsRequest {
                match_id: id.clone(),
                seat_token: tokens[seat].clone(),
            })
            .await
            .expect("legal")
            .into_inner();
        let response = matches
            .submit_action(pb::SubmitActionRequest {
                match_id: id.clone(),
                seat_token: tokens[seat].clone(),
                action: Some(pb::submit_action_request::Action::ActionId(
                    legal.actions[0].id,
                )),
                expected_version: Some(legal.version),
                view_detail: detail as i32,
            })
            .await
            .unwrap_or_else(|e| panic!("submit {turn} ({detail:?}): {e}"))
            .into_inner();
        let after = response.view.expect("a view");
        assert_eq!(after.version, legal.version + 1, "turn {turn}");
        assert_eq!(after.viewer_seat, Some(seat as u32));
        assert!(
            !after.to_move.is_empty(),
            "who moves next is in every detail"
        );
        assert_eq!(after.seats.len(), 2);
        if detail == pb::ViewDetail::Summary {
            assert!(
                after.view_json.is_empty(),
                "turn {turn}: {}",
                after.view_json
            );
            assert!(after.text.is_empty(), "turn {turn}: {}", after.text);
        } else {
            assert!(
                after.view_json.contains("<svg"),
                "war's full view has its board"
            );
            assert!(!after.text.is_empty());
        }
        if let Some(previous) = version {
            assert!(after.version > previous);
        }
        version = Some(after.version);
    }

    let unknown = matches
        .submit_action(pb::SubmitActionRequest {
            match_id: id.clone(),
            seat_token: tokens[0].clone(),
            action: Some(pb::submit_action_request::Action::ActionId(0)),
            expected_version: None,
            view_detail: 99,
        })
        .await
        .expect_err("an unknown detail is refused");
    assert_eq!(unknown.code(), tonic::Code::InvalidArgument);
    let view = matches
        .get_view(pb::GetViewRequest {
            match_id: id,
            seat_token: String::new(),
        })
        .await
        .expect("view")
        .into_inner();
    assert_eq!(
        Some(view.version),
        version,
        "the refused call changed nothing"
    );
}
