//! Sequences: a shorthand applied step by step, or refused whole.
use super::*;

fn sequence(m: &mut Match, text: &str, expected: Option<u64>) -> HostResult<()> {
    let steps = m.expand_notation(0, text)?.expect("a shorthand");
    m.submit_sequence(0, text, &steps, expected)
}

#[test]
fn a_sequence_is_applied_step_by_step_each_with_its_own_version_and_event() {
    let mut m = new_match();
    let mut events = m.subscribe(true).receiver;
    sequence(&mut m, "good", Some(0)).unwrap();
    assert_eq!(m.version(), 2);
    let notations: Vec<&str> = m
        .log()
        .iter()
        .map(|e| match &e.kind {
            LogKind::Moves { moves } => moves[0].notation.as_str(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(notations, ["1", "2"], "ruling W3: one entry per placement");
    for version in [1, 2] {
        assert_eq!(events.try_recv().unwrap().version, version);
    }
    assert!(events.try_recv().is_err());
}

#[test]
fn a_sequential_games_log_entry_holds_its_move_inline() {
    // A match keeps its whole log: a heap block per entry made a played
    // action cost ~320 bytes of the server's memory (BENCHMARKS.md).
    let mut m = new_match();
    sequence(&mut m, "good", Some(0)).unwrap();
    for entry in m.log() {
        let LogKind::Moves { moves } = &entry.kind else {
            panic!("{entry:?}");
        };
        assert_eq!(moves.len(), 1);
        assert!(!moves.spilled(), "one move is stored in the entry itself");
        assert!(!moves[0].notation.is_heap_allocated(), "{:?}", moves[0]);
    }
    // The log's JSON (records, the durable store) is what it was with a
    // `Vec` and a `String`.
    let json = serde_json::to_value(&m.log()[0]).unwrap();
    assert_eq!(json["moves"][0]["notation"], "1");
    let back: LogEntry = serde_json::from_value(json).unwrap();
    assert_eq!(back, m.log()[0]);
}

#[test]
fn a_failing_step_refuses_the_whole_sequence_and_changes_nothing() {
    let mut m = new_match();
    let mut events = m.subscribe(true).receiver;
    let position = m.position().unwrap();
    let refused = sequence(&mut m, "bad", None).unwrap_err();
    assert!(
        matches!(&refused, HostError::StepRefused { step: 2, steps: 2, cause, .. }
            if matches!(**cause, HostError::IllegalAction(_))),
        "{refused:?}"
    );
    assert!(
        refused.to_string().contains("step 2 of 2 (`3`)")
            && refused.to_string().contains("the next number is 2"),
        "{refused:?}"
    );
    assert_eq!(m.version(), 0);
    assert_eq!(m.position().unwrap(), position);
    assert!(events.try_recv().is_err(), "no event for a refused request");

    let stale = sequence(&mut m, "good", Some(5)).unwrap_err();
    assert!(matches!(
        &stale,
        HostError::StaleVersion {
            expected: 5,
            current: 0
        }
    ));
    let empty = sequence(&mut m, "empty", None).unwrap_err();
    assert!(matches!(&empty, HostError::InvalidNotation(why) if why.contains("no action")));
    let not_yours = m.submit_sequence(1, "good", &["1".into()], None);
    assert!(matches!(
        not_yours,
        Err(HostError::NotYourTurn { seat: 1, .. })
    ));
    assert_eq!(m.version(), 0);
}
