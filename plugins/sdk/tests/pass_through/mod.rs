//! Test games that change one thing about an inner game (their field `.0`)
//! and pass every other [`tabletop_sdk::Game`] and extension method through
//! to it.

/// Writes the named methods, each calling the same method of `self.0`,
/// inside an `impl Game` block or an extension's (`resample`,
/// `seat_names`, `explain_refusal`, `action_space`): a wrapper names the
/// methods it passes through and writes the ones it changes. `playing` names the
/// methods that set up, play and write the game (`new_state` to
/// `parse_action`), which every wrapper here passes through.
macro_rules! pass_through {
    ($($method:ident),* $(,)?) => { $( pass_through!(@ $method); )* };
    (@ playing) => {
        pass_through!(
            new_state,
            parse_position,
            position_to_string,
            status,
            chance,
            results,
            legal_actions,
            apply,
            apply_chance,
            action_to_string,
            parse_action,
        );
    };
    (@ manifest) => {
        fn manifest(&self) -> tabletop_sdk::Manifest {
            self.0.manifest()
        }
    };
    (@ new_state) => {
        fn new_state(
            &self,
            s: &tabletop_sdk::Setup,
        ) -> Result<Self::State, tabletop_sdk::GameError> {
            self.0.new_state(s)
        }
    };
    (@ parse_position) => {
        fn parse_position(
            &self,
            s: &tabletop_sdk::Setup,
            t: &str,
        ) -> Result<Self::State, tabletop_sdk::GameError> {
            self.0.parse_position(s, t)
        }
    };
    (@ position_to_string) => {
        fn position_to_string(&self, s: &Self::State) -> String {
            self.0.position_to_string(s)
        }
    };
    (@ status) => {
        fn status(&self, s: &Self::State) -> tabletop_sdk::Status {
            self.0.status(s)
        }
    };
    (@ chance) => {
        fn chance(&self, s: &Self::State) -> tabletop_sdk::Chance {
            self.0.chance(s)
        }
    };
    (@ results) => {
        fn results(&self, s: &Self::State) -> Vec<tabletop_sdk::PlayerResult> {
            self.0.results(s)
        }
    };
    (@ legal_actions) => {
        fn legal_actions(&self, s: &Self::State, p: u32, out: &mut Vec<u64>) {
            self.0.legal_actions(s, p, out)
        }
    };
    (@ apply) => {
        fn apply(
            &self,
            s: &mut Self::State,
            m: &[tabletop_sdk::Move],
        ) -> Result<(), tabletop_sdk::GameError> {
            self.0.apply(s, m)
        }
    };
    (@ apply_chance) => {
        fn apply_chance(&self, s: &mut Self::State, o: u64) -> Result<(), tabletop_sdk::GameError> {
            self.0.apply_chance(s, o)
        }
    };
    (@ action_to_string) => {
        fn action_to_string(
            &self,
            s: &Self::State,
            p: u32,
            a: u64,
        ) -> Result<String, tabletop_sdk::GameError> {
            self.0.action_to_string(s, p, a)
        }
    };
    (@ parse_action) => {
        fn parse_action(
            &self,
            s: &Self::State,
            p: u32,
            t: &str,
        ) -> Result<u64, tabletop_sdk::GameError> {
            self.0.parse_action(s, p, t)
        }
    };
    (@ view) => {
        fn view<'a>(&'a self, s: &'a Self::State, v: tabletop_sdk::Viewer) -> Self::View<'a> {
            self.0.view(s, v)
        }
    };
    (@ render_text) => {
        fn render_text(&self, s: &Self::State, v: tabletop_sdk::Viewer) -> String {
            self.0.render_text(s, v)
        }
    };
    (@ resample) => {
        fn resample(&self, s: &Self::State, v: tabletop_sdk::Viewer, r: u64) -> Self::State {
            tabletop_sdk::Resample::resample(&self.0, s, v, r)
        }
    };
    (@ seat_names) => {
        fn seat_names(&self, players: u32) -> Vec<String> {
            tabletop_sdk::SeatNames::seat_names(&self.0, players)
        }
    };
    (@ explain_refusal) => {
        fn explain_refusal(
            &self,
            s: &Self::State,
            p: u32,
            a: tabletop_sdk::Attempt<'_>,
        ) -> Option<tabletop_sdk::Refusal> {
            tabletop_sdk::ExplainRefusal::explain_refusal(&self.0, s, p, a)
        }
    };
    (@ action_space) => {
        fn action_space(&self, s: &Self::State) -> u64 {
            tabletop_sdk::ExplainRefusal::action_space(&self.0, s)
        }
    };
}

pub(crate) use pass_through;
