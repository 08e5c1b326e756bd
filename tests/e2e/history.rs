//! A match's past as each viewer saw it: `GetView` at a past version
//! replays the log and answers what that viewer was shown then, hidden
//! information still hidden, whenever it is asked.

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use tabletop_proto::v1 as pb;
use tabletop_tests::Host;
use tonic::Code;

use crate::support::{create, legal, submit, view_of};

/// What a viewer is shown of a match, without its clocks (read at the time
/// of asking for a live view, at the log entry's time for a past one).
fn shown(view: &pb::MatchView) -> (u64, String, String, Vec<u32>, i32, String) {
    (
        view.version,
        view.view_json.clone(),
        view.text.clone(),
        view.to_move.clone(),
        view.state,
        format!("{:?}", view.results),
    )
}

#[tokio::test]
async fn a_past_view_is_what_each_viewer_was_shown_at_that_version() {
    let host = Host::start().await;
    let mut matches = host.matches().await;
    for (game, players) in [("lanzeloth", 3), ("focus", 2)] {
        let (match_id, tokens) = create(&mut matches, game, players, 11).await;
        // Every viewer: each seat (a seat sees its own hidden tiles) and a spectator.
        let viewers: Vec<String> = tokens.iter().cloned().chain([String::new()]).collect();
        let mut seen = Vec::new();
        let mut rng = StdRng::seed_from_u64(5);
        for _ in 0..40 {
            let now = view_of(&mut matches, &match_id, "", None).await.unwrap();
            for token in &viewers {
                let view = view_of(&mut matches, &match_id, token, None).await.unwrap();
                seen.push((token.clone(), shown(&view)));
            }
            if now.state != pb::MatchState::Running as i32 {
                break;
            }
            let seat = now.to_move[0] as usize;
            let list = legal(&mut matches, &match_id, &tokens[seat]).await.unwrap();
            let action = list.actions.choose(&mut rng).unwrap().id;
            submit(
                &mut matches,
                &match_id,
                &tokens[seat],
                action,
                Some(list.version),
            )
            .await
            .unwrap();
        }
        assert!(
            seen.len() > viewers.len() * 5,
            "{game}: the match was played"
        );
        for (token, then) in &seen {
            let past = view_of(&mut matches, &match_id, token, Some(then.0))
                .await
                .unwrap();
            assert_eq!(&shown(&past), then, "{game} at version {}", then.0);
        }
        let current = view_of(&mut matches, &match_id, "", None)
            .await
            .unwrap()
            .version;
        let beyond = view_of(&mut matches, &match_id, "", Some(current + 1))
            .await
            .unwrap_err();
        assert_eq!(beyond.code(), Code::InvalidArgument, "{beyond:?}");
        assert!(beyond.message().contains("beyond"), "{}", beyond.message());
    }
}
