//! `Placing`, a small sequential game with a shorthand.

use super::*;

/// A small sequential game with a shorthand, written here because two
/// game crates cannot link into one test binary (each exports the entry
/// symbol): seat 0 places 1, 2, 3, 4 in order (one per action, like
/// War's placements, ruling W3), then seat 1 does; then it is over.
/// Shorthands expand to fixed lists, so the host's own checks of a
/// sequence can be tested.
#[derive(Default)]
pub(super) struct Placing;

/// Numbers placed so far by each seat.
#[derive(Debug, Clone, Default)]
pub(super) struct Placed([u64; 2]);

pub(super) const PLACES: u64 = 4;

impl Placed {
    fn mover(&self) -> Option<Player> {
        (0..2).find(|&p| self.0[p as usize] < PLACES)
    }
}

impl Game for Placing {
    type State = Placed;
    type View<'a> = serde_json::Value;
    fn manifest(&self) -> Manifest {
        Manifest {
            name: "placing".into(),
            version: "0".into(),
            min_players: 2,
            max_players: 2,
            options: Vec::new(),
            rules_summary: "Place 1 to 4, seat 0 then seat 1.".into(),
            simultaneous: false,
            hidden_information: false,
            chance: false,
            removable_players: false,
        }
    }
    fn new_state(&self, _: &Setup) -> Result<Placed, GameError> {
        Ok(Placed::default())
    }
    fn parse_position(&self, _: &Setup, text: &str) -> Result<Placed, GameError> {
        let (a, b) = text
            .split_once(' ')
            .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
            .ok_or_else(|| GameError::invalid_position("two numbers"))?;
        Ok(Placed([a, b]))
    }
    fn position_to_string(&self, s: &Placed) -> String {
        format!("{} {}", s.0[0], s.0[1])
    }
    fn status(&self, s: &Placed) -> Status {
        match s.mover() {
            Some(p) => Status::ToMove(tabletop_sdk::PlayerSet::single(p)),
            None => Status::Terminal,
        }
    }
    fn chance(&self, _: &Placed) -> Chance {
        Chance::Sampled
    }
    fn results(&self, _: &Placed) -> Vec<PlayerResult> {
        vec![
            PlayerResult {
                rank: 1,
                score: 0.0
            };
            2
        ]
    }
    fn legal_actions(&self, s: &Placed, p: Player, out: &mut Vec<ActionId>) {
        out.clear();
        if s.mover() == Some(p) {
            out.push(s.0[p as usize] + 1);
        }
    }
    fn apply(&self, s: &mut Placed, moves: &[Move]) -> Result<(), GameError> {
        let [Move { player, action }] = moves else {
            return Err(GameError::illegal("one move at a time"));
        };
        if s.mover() != Some(*player) {
            return Err(GameError::not_your_turn("not your turn"));
        }
        let next = s.0[*player as usize] + 1;
        if *action != next {
            return Err(GameError::illegal(format!("the next number is {next}")));
        }
        s.0[*player as usize] = next;
        Ok(())
    }
    fn apply_chance(&self, _: &mut Placed, _: u64) -> Result<(), GameError> {
        Err(GameError::illegal("no chance"))
    }
    fn action_to_string(&self, _: &Placed, _: Player, a: ActionId) -> Result<String, GameError> {
        Ok(a.to_string())
    }
    fn parse_action(&self, s: &Placed, p: Player, t: &str) -> Result<ActionId, GameError> {
        let action: ActionId = t
            .parse()
            .map_err(|_| GameError::invalid_notation(format!("`{t}` is not a number")))?;
        if s.mover() != Some(p) {
            return Err(GameError::not_your_turn("not your turn"));
        }
        let next = s.0[p as usize] + 1;
        if action != next {
            return Err(GameError::illegal(format!("the next number is {next}")));
        }
        Ok(action)
    }
    fn view(&self, s: &Placed, _: Viewer) -> serde_json::Value {
        serde_json::json!(s.0)
    }
    fn render_text(&self, s: &Placed, _: Viewer) -> String {
        self.position_to_string(s)
    }
}

impl tabletop_sdk::ExpandNotation for Placing {
    fn expand_notation(
        &self,
        _: &Placed,
        _: Player,
        text: &str,
    ) -> Result<Option<Vec<String>>, GameError> {
        let list: &[&str] = match text {
            "good" => &["1", "2"],
            "bad" => &["1", "3"],
            "empty" => &[],
            _ => return Ok(None),
        };
        Ok(Some(list.iter().map(|s| s.to_string()).collect()))
    }
}

tabletop_sdk::declare_extensions!(Placing: [ExpandNotation]);
