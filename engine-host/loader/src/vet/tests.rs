use std::any::Any;
use std::collections::BTreeMap;

use tabletop_sdk::{
    ActionId, Chance, DynGame, DynState, ErrorKind, GameError, InProcess, Manifest, Move, Player,
    PlayerResult, PlayerSet, Status, Transition, Viewer,
};
use versioned_fixture::Counter;

use super::kit::{check_options, play_checks};
use super::*;

fn report() -> Report {
    Report {
        game: "counter".into(),
        version: "1.0.0".into(),
        sha256: "ab".repeat(32),
        matches: 4,
        transitions: 80,
    }
}

fn verdict_line(verdict: &Verdict) -> String {
    format!(
        "{VERDICT_PREFIX}{}\n",
        serde_json::to_string(verdict).expect("a verdict serialises")
    )
}

#[test]
fn a_passing_verdict_with_exit_code_zero_passes() {
    let stdout = verdict_line(&Verdict::Passed(report()));
    assert_eq!(judge(Exit::Code(0), stdout.as_bytes(), b""), Ok(report()));
}

#[test]
fn the_last_verdict_line_counts_whatever_the_plugin_printed_around_it() {
    let stdout = format!(
        "hello from the plugin\n{}{VERDICT_PREFIX}not json at all\n{}trailing noise",
        verdict_line(&Verdict::Misbehaved {
            reason: "an earlier line".into()
        }),
        verdict_line(&Verdict::Passed(report())),
    );
    assert_eq!(judge(Exit::Code(0), stdout.as_bytes(), b""), Ok(report()));
}

#[test]
fn refused_and_misbehaved_verdicts_keep_their_reason() {
    let refused = verdict_line(&Verdict::Refused {
        reason: "bad manifest: x".into(),
    });
    assert_eq!(
        judge(Exit::Code(1), refused.as_bytes(), b""),
        Err(Refusal::Load("bad manifest: x".into()))
    );
    let misbehaved = verdict_line(&Verdict::Misbehaved {
        reason: "seat 0 is to move but has no legal action".into(),
    });
    assert_eq!(
        judge(Exit::Code(1), misbehaved.as_bytes(), b""),
        Err(Refusal::Misbehaved(
            "seat 0 is to move but has no legal action".into()
        ))
    );
}

#[test]
fn a_signal_is_a_crash_even_after_a_passing_verdict() {
    let stdout = verdict_line(&Verdict::Passed(report()));
    let refused = judge(Exit::Signal(11), stdout.as_bytes(), b"segfault here\n")
        .expect_err("a crash is refused");
    assert_eq!(
        refused,
        Refusal::Crashed {
            how: "SIGSEGV, signal 11 after passing".into(),
            stderr: "segfault here".into()
        }
    );
    assert_eq!(
        refused.to_string(),
        "crashed the checking process (SIGSEGV, signal 11 after passing): segfault here"
    );
    assert_eq!(
        judge(Exit::Signal(11), b"", b"")
            .expect_err("refused")
            .to_string(),
        "crashed the checking process (SIGSEGV, signal 11)"
    );
}

#[test]
fn a_refusal_stands_when_the_process_faults_on_its_way_out() {
    let stdout = verdict_line(&Verdict::Refused {
        reason: "a shared library, but not a Tabletop plugin".into(),
    });
    assert_eq!(
        judge(Exit::Signal(11), stdout.as_bytes(), b""),
        Err(Refusal::Load(
            "a shared library, but not a Tabletop plugin".into()
        ))
    );
}

#[test]
fn an_exit_without_a_verdict_is_a_crash_that_quotes_stderr() {
    let stderr = b"noise\n\nInconsistency detected by ld.so: dl-lookup.c: 105: check_match: Assertion failed!\n";
    let refused = judge(Exit::Code(127), b"", stderr).expect_err("refused");
    let Refusal::Crashed { how, stderr } = &refused else {
        panic!("{refused:?}");
    };
    assert_eq!(how, "exit code 127, no verdict");
    assert!(
        stderr.starts_with("noise | Inconsistency detected by ld.so"),
        "{stderr}"
    );
}

#[test]
fn a_pass_with_a_failing_exit_code_is_a_crash() {
    let stdout = verdict_line(&Verdict::Passed(report()));
    assert!(matches!(
        judge(Exit::Code(3), stdout.as_bytes(), b""),
        Err(Refusal::Crashed { how, .. }) if how == "exit code 3 after passing"
    ));
}

#[test]
fn a_malformed_verdict_leaves_the_file_unchecked() {
    let stdout = format!("{VERDICT_PREFIX}{{\"verdict\":\"maybe\"}}\n");
    assert!(matches!(
        judge(Exit::Code(0), stdout.as_bytes(), b""),
        Err(Refusal::Unchecked(_))
    ));
}

#[test]
fn the_stderr_tail_is_short_printable_and_from_the_end() {
    let mut long = "x".repeat(1000);
    long.push_str("\x07END");
    let tail = stderr_tail(format!("first\nsecond\nthird\n{long}\n").as_bytes());
    assert!(tail.starts_with('…'), "{tail}");
    assert!(tail.ends_with("x END"), "{tail}");
    assert_eq!(tail.chars().count(), 401);
    assert_eq!(stderr_tail(b"a\nb\nc\nd\n"), "b | c | d");
}

// ------------------------------------------------ the parent with real children

/// A vetter whose "child" is a shell script (which gets the usual
/// arguments as `$1…` and ignores them).
fn shell(script: &str, timeout: Duration) -> Vetter {
    Vetter::new(
        PathBuf::from("/bin/sh"),
        vec!["-c".into(), script.into(), "sh".into()],
        timeout,
    )
}

#[cfg(unix)]
#[test]
fn a_child_killed_by_a_signal_is_refused_as_a_crash() {
    let scratch = std::env::temp_dir().join(format!("vet-test-{}", std::process::id()));
    let refused = shell(
        "echo 'Inconsistency detected by ld.so' >&2; kill -SEGV $$",
        Duration::from_secs(10),
    )
    .vet(Path::new("/nonexistent.so"), &scratch)
    .expect_err("refused");
    assert_eq!(
        refused,
        Refusal::Crashed {
            how: "SIGSEGV, signal 11".into(),
            stderr: "Inconsistency detected by ld.so".into()
        }
    );
    let left: Vec<_> = std::fs::read_dir(&scratch)
        .map(|d| d.filter_map(Result::ok).collect())
        .unwrap_or_default();
    assert!(
        left.is_empty(),
        "the scratch directory is removed: {left:?}"
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

#[cfg(unix)]
#[test]
fn a_child_that_hangs_is_killed_at_the_timeout() {
    let scratch = std::env::temp_dir().join(format!("vet-test-hang-{}", std::process::id()));
    let started = Instant::now();
    let refused = shell("exec sleep 30", Duration::from_millis(300))
        .vet(Path::new("/nonexistent.so"), &scratch)
        .expect_err("refused");
    assert_eq!(
        refused,
        Refusal::Hung {
            timeout: Duration::from_millis(300)
        }
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

#[cfg(unix)]
#[test]
fn a_child_gets_the_file_and_its_verdict_is_read() {
    let scratch = std::env::temp_dir().join(format!("vet-test-pass-{}", std::process::id()));
    let verdict = verdict_line(&Verdict::Passed(report()));
    // The file comes last, after `--`; the script checks it got there.
    let script = format!(
        "for last; do :; done; [ \"$last\" = /plugins/libx.so ] || exit 9; printf '%s' '{}'",
        verdict.trim_end()
    );
    let vetter = shell(&script, Duration::from_secs(10)).with_parallel(2);
    let files = vec![PathBuf::from("/plugins/libx.so"); 3];
    for answer in vetter.vet_all(&files, &scratch) {
        assert_eq!(answer, Ok(report()));
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn a_program_that_does_not_start_leaves_the_file_unchecked() {
    let scratch = std::env::temp_dir().join(format!("vet-test-none-{}", std::process::id()));
    let refused = Vetter::new(
        PathBuf::from("/nonexistent/engine-host"),
        vec![],
        Duration::from_secs(1),
    )
    .vet(Path::new("/x.so"), &scratch);
    assert!(matches!(refused, Err(Refusal::Unchecked(_))), "{refused:?}");
    let _ = std::fs::remove_dir_all(&scratch);
}

// ------------------------------------------------------------ the playouts

/// A budget no test run exceeds for the fixture game.
const BUDGET: Duration = Duration::from_secs(60);

#[test]
fn a_sound_game_passes_the_kit() {
    let game = InProcess::new(Counter);
    let (matches, transitions) = play_checks(&game, BUDGET).expect("the fixture game passes");
    // 2, 3 and 4 seats, two matches each; the default length is 20 actions,
    // each followed by no roll (dice are off by default).
    assert_eq!(matches, 6);
    assert_eq!(transitions, 6 * 20);
}

#[test]
fn a_spent_budget_still_plays_one_match_per_player_count() {
    let game = InProcess::new(Counter);
    let (matches, _) = play_checks(&game, Duration::ZERO).expect("the fixture game passes");
    assert_eq!(matches, 3);
}

/// What a [`Defective`] game does wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Defect {
    /// Seat 1 has no legal action when it is to move.
    NoLegalForSeat1,
    /// Refuses the fifth move.
    RefusesApply,
    /// The spectator's view panics.
    PanickingView,
    /// The results leave out a seat.
    ShortResults,
    /// Says nobody moves, yet the game goes on.
    NobodyMoves,
    /// The view is not JSON.
    ViewNotJson,
}

/// The fixture game with one defect.
struct Defective {
    inner: InProcess<Counter>,
    defect: Defect,
}

struct DefectiveState {
    inner: Box<dyn DynState>,
    defect: Defect,
    applied: u32,
}

impl DynGame for Defective {
    fn manifest(&self) -> &Manifest {
        self.inner.manifest()
    }

    fn new_state(
        &self,
        players: u32,
        options: &BTreeMap<String, String>,
        position: Option<&str>,
    ) -> Result<Box<dyn DynState>, GameError> {
        Ok(Box::new(DefectiveState {
            inner: self.inner.new_state(players, options, position)?,
            defect: self.defect,
            applied: 0,
        }))
    }

    fn seat_names(&self, players: u32) -> Result<Vec<String>, GameError> {
        self.inner.seat_names(players)
    }
}

impl DynState for DefectiveState {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn clone_state(&self) -> Result<Box<dyn DynState>, GameError> {
        Ok(Box::new(DefectiveState {
            inner: self.inner.clone_state()?,
            defect: self.defect,
            applied: self.applied,
        }))
    }
    fn status(&self) -> Result<Status, GameError> {
        match (self.defect, self.inner.status()?) {
            (Defect::NobodyMoves, Status::ToMove(_)) if self.applied == 3 => {
                Ok(Status::ToMove(PlayerSet::EMPTY))
            }
            (_, status) => Ok(status),
        }
    }
    fn chance(&self) -> Result<Chance, GameError> {
        self.inner.chance()
    }
    fn results(&self) -> Result<Vec<PlayerResult>, GameError> {
        let mut results = self.inner.results()?;
        if self.defect == Defect::ShortResults {
            results.pop();
        }
        Ok(results)
    }
    fn legal_actions(&self, player: Player, out: &mut Vec<ActionId>) -> Result<(), GameError> {
        self.inner.legal_actions(player, out)?;
        if self.defect == Defect::NoLegalForSeat1 && player == 1 {
            out.clear();
        }
        Ok(())
    }
    fn lend_legal_actions(&mut self, player: Player) -> Result<&[ActionId], GameError> {
        self.inner.lend_legal_actions(player)
    }
    fn apply(&mut self, moves: &[Move]) -> Result<(), GameError> {
        if self.defect == Defect::RefusesApply && self.applied == 4 {
            return Err(GameError::illegal("no"));
        }
        self.inner.apply(moves)?;
        self.applied += 1;
        Ok(())
    }
    fn apply_chance(&mut self, outcome: u64) -> Result<(), GameError> {
        self.inner.apply_chance(outcome)
    }
    fn view(&self, viewer: Viewer) -> Result<String, GameError> {
        match self.defect {
            Defect::PanickingView if viewer == Viewer::Spectator => Err(GameError::new(
                ErrorKind::Panic,
                "panicked at src/lib.rs:1:1",
            )),
            Defect::ViewNotJson => Ok("{not json".into()),
            _ => self.inner.view(viewer),
        }
    }
    fn render_text(&self, viewer: Viewer) -> Result<String, GameError> {
        self.inner.render_text(viewer)
    }
    fn event(
        &self,
        before: &dyn DynState,
        transition: &Transition,
        viewer: Viewer,
    ) -> Result<String, GameError> {
        let before = before
            .as_any()
            .downcast_ref::<DefectiveState>()
            .ok_or_else(|| GameError::unsupported("another game's state"))?;
        self.inner.event(before.inner.as_ref(), transition, viewer)
    }
    fn position(&self) -> Result<String, GameError> {
        self.inner.position()
    }
    fn action_to_string(&self, player: Player, action: ActionId) -> Result<String, GameError> {
        self.inner.action_to_string(player, action)
    }
    fn parse_action(&self, player: Player, text: &str) -> Result<ActionId, GameError> {
        self.inner.parse_action(player, text)
    }
    fn expand_notation(
        &self,
        player: Player,
        text: &str,
    ) -> Result<Option<Vec<String>>, GameError> {
        self.inner.expand_notation(player, text)
    }
    fn resample(&self, _viewer: Viewer, _random: u64) -> Result<Box<dyn DynState>, GameError> {
        self.clone_state()
    }
    fn remove_player(&mut self, player: Player) -> Result<(), GameError> {
        self.inner.remove_player(player)
    }
    fn seats_out(&self) -> Result<Vec<tabletop_sdk::SeatOut>, GameError> {
        self.inner.seats_out()
    }
    fn explain_refusal(
        &self,
        player: Player,
        attempt: tabletop_sdk::Attempt<'_>,
    ) -> Result<Option<tabletop_sdk::Refusal>, GameError> {
        self.inner.explain_refusal(player, attempt)
    }
    fn action_space(&self) -> Result<u64, GameError> {
        self.inner.action_space()
    }
    fn evaluate(&self, values: &mut [f64]) -> Result<bool, GameError> {
        self.inner.evaluate(values)
    }
    fn render_svg(&self, viewer: Viewer) -> Result<Option<String>, GameError> {
        self.inner.render_svg(viewer)
    }
    fn action_targets(
        &self,
        player: Player,
        ids: &[ActionId],
    ) -> Result<Option<Vec<Vec<String>>>, GameError> {
        self.inner.action_targets(player, ids)
    }
}

fn misbehaviour(defect: Defect) -> String {
    let game = Defective {
        inner: InProcess::new(Counter),
        defect,
    };
    match play_checks(&game, BUDGET) {
        Err(Refusal::Misbehaved(what)) => what,
        other => panic!("{defect:?}: {other:?}"),
    }
}

#[test]
fn each_kind_of_misbehaviour_is_refused_and_named() {
    for (defect, said) in [
        (
            Defect::NoLegalForSeat1,
            "check `play` failed: counter conformance: players=2 options={} seed=1 step=1: \
             player 1: lend_legal_actions lends [0, 1], legal_actions copies []",
        ),
        (Defect::RefusesApply, "check `play` failed"),
        (Defect::PanickingView, "(Panic): panicked at src/lib.rs:1:1"),
        (Defect::ShortResults, "check `results` failed"),
        (
            Defect::NobodyMoves,
            "status says players are to move, but names none",
        ),
        (Defect::ViewNotJson, "not JSON"),
    ] {
        let what = misbehaviour(defect);
        assert!(what.contains(said), "{defect:?}: {what}");
    }
}

#[test]
fn a_default_option_outside_its_range_is_refused() {
    let mut manifest = InProcess::new(Counter).manifest().clone();
    manifest.options[0].default = tabletop_sdk::OptionValue::Int(-5);
    let refused = check_options(&manifest).expect_err("refused");
    assert!(
        refused
            .to_string()
            .contains("the default of option `length`"),
        "{refused}"
    );
}

#[test]
fn a_reason_with_garbage_in_it_is_made_printable_and_short() {
    let garbage = format!(
        "dlopen failed: H\u{1}\u{1b}x: cannot open{}",
        "y".repeat(600)
    );
    let stdout = verdict_line(&Verdict::Refused { reason: garbage });
    let Err(Refusal::Load(reason)) = judge(Exit::Code(1), stdout.as_bytes(), b"") else {
        panic!("refused by the loader");
    };
    assert!(
        reason.starts_with("dlopen failed: H\\u{1}\\u{1b}x: cannot open"),
        "{reason}"
    );
    assert!(reason.ends_with('…'), "{reason}");
    assert!(reason.chars().count() <= 420, "{}", reason.chars().count());
}
