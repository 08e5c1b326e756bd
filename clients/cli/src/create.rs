//! `tabletop new`: its arguments, the CreateMatch request they make, and
//! what is printed of the match created.

use tabletop_proto::v1 as pb;
use tabletop_proto::v1::matches_client::MatchesClient;

use crate::error::{CliError, CliResult};
use crate::failover::{Retry, Servers};
use crate::render::print_json;

/// `tabletop new`'s arguments.
#[derive(Debug, clap::Args)]
pub struct NewArgs {
    /// The game.
    game: String,
    /// Number of seats.
    #[arg(long, short = 'p', default_value_t = 2)]
    players: u32,
    /// A game option, `name=value` (repeatable).
    #[arg(long = "option", short = 'o', value_name = "NAME=VALUE")]
    options: Vec<String>,
    /// Seed of the match's random source.
    #[arg(long)]
    seed: Option<u64>,
    /// Plugin version (default: newest).
    #[arg(long)]
    version: Option<String>,
    /// Start position in the game's notation.
    #[arg(long)]
    position: Option<String>,
    /// Leave these seats open for `join` (repeatable). Each gets a join
    /// code, printed here, for the player invited to it.
    #[arg(long = "open-seat")]
    open_seats: Vec<u32>,
    /// Let anyone join the open seats, without a join code.
    #[arg(long, requires = "open_seats")]
    public_open_seats: bool,
    /// Who holds a seat taken now, `SEAT=NAME` or `SEAT=NAME:EXTERNAL_ID`
    /// (repeatable); shown in views, records, results and the feed.
    #[arg(long = "player", value_name = "SEAT=NAME[:ID]")]
    players_named: Vec<String>,
    /// Seat the server's bot, `SEAT=SPEC` (repeatable): `1=random`,
    /// `1=mcts:500ms` (time a move), `1=mcts:2000` (iterations a move).
    /// No token is issued for a bot's seat.
    #[arg(long = "bot", value_name = "SEAT=SPEC")]
    bots: Vec<String>,
    /// Clock: time for each move, in milliseconds (0 = no per-move limit).
    #[arg(long, value_name = "MS")]
    per_move_ms: Option<i64>,
    /// Clock: each seat's bank, in milliseconds (0 = no bank).
    #[arg(long, value_name = "MS")]
    bank_ms: Option<i64>,
    /// Clock: added to a seat's bank after each of its moves, in milliseconds.
    #[arg(long, value_name = "MS")]
    increment_ms: Option<i64>,
    /// Clock: what running out does. `lose` ends the match with the seat
    /// last; `out` takes the seat out while the others play on (3 or more
    /// players, games that can remove a player).
    #[arg(long, value_enum, value_name = "WHAT")]
    on_timeout: Option<OnTimeoutArg>,
    /// Tag the match, `key=value` (repeatable): tournament, round, table …
    #[arg(long = "label", short = 'l', value_name = "KEY=VALUE")]
    labels: Vec<String>,
    /// Make the call safe to retry: the same id with the same request
    /// returns the same match and tokens (a credential needed). Without
    /// it, a caller with a credential gets one made up, so that a creation
    /// sent again to the next server (the first did not answer) answers
    /// the same match.
    #[arg(long, value_name = "ID")]
    request_id: Option<String>,
    /// A deadline for the open seats, in milliseconds after creation.
    #[arg(long, value_name = "MS", requires = "open_seats")]
    open_seat_deadline_ms: Option<i64>,
    /// What the deadline does to seats still open: abort the match, or
    /// start it without them.
    #[arg(long, value_enum, requires = "open_seat_deadline_ms")]
    on_deadline: Option<OnDeadlineArg>,
    /// Spectators see the running match this many versions behind
    /// (at most 1000); seats see it live.
    #[arg(long, value_name = "N")]
    spectator_delay_moves: Option<u32>,
    /// Spectators see the running match this many milliseconds behind
    /// (at most an hour); seats see it live.
    #[arg(long, value_name = "MS")]
    spectator_delay_ms: Option<i64>,
}

/// `tabletop new --on-deadline`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum OnDeadlineArg {
    /// The match ends without a result.
    Abort,
    /// The match starts with the absent seats out.
    StartWithout,
}

/// `tabletop new --on-timeout`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum OnTimeoutArg {
    /// The match ends with the seat last.
    Lose,
    /// The seat is out; the others play on.
    Out,
}

/// Creates the match and prints its id, tokens, bots and join codes.
pub async fn run(servers: &Servers, args: NewArgs, json: bool) -> CliResult {
    let mut request = request(args)?;
    // The server takes request ids from callers with a credential only.
    if request.request_id.is_empty() && servers.has_credential() {
        request.request_id = fresh_request_id();
    }
    // With a request id, safe to send again: a second try answers the
    // match the first one created. Without, it could create two.
    let retry = if request.request_id.is_empty() {
        Retry::NotSent
    } else {
        Retry::Safe
    };
    let created = servers
        .call(retry, request, |c, r| async move {
            MatchesClient::new(c).create_match(r).await
        })
        .await?;
    if json {
        print_json(&created_json(&created));
    } else {
        print_created(&created);
    }
    Ok(())
}

/// The request the arguments make; the server checks the values.
fn request(args: NewArgs) -> Result<pb::CreateMatchRequest, CliError> {
    Ok(pb::CreateMatchRequest {
        time_control: time_control(&args),
        spectator_delay: spectator_delay(&args),
        open_seat_deadline: open_seat_deadline(&args),
        options: crate::listing::pairs("option", &args.options)?,
        seat_players: crate::access::seat_players(&args.players_named)?,
        labels: crate::listing::pairs("label", &args.labels)?,
        bots: seat_bots(&args.bots)?,
        game: args.game,
        version: args.version,
        players: args.players,
        seed: args.seed,
        start_position: args.position,
        open_seats: args.open_seats,
        public_open_seats: args.public_open_seats,
        view_detail: pb::ViewDetail::Full as i32,
        request_id: args.request_id.unwrap_or_default(),
    })
}

/// A request id no one else can guess: whoever sent the same request under
/// it would be answered this match's seat tokens.
fn fresh_request_id() -> String {
    format!("cli-{:032x}", rand::random::<u128>())
}

/// A clock if any clock flag asks for one.
fn time_control(args: &NewArgs) -> Option<pb::TimeControl> {
    let clocked = args.per_move_ms.is_some()
        || args.bank_ms.is_some()
        || args.increment_ms.is_some()
        || args.on_timeout.is_some();
    clocked.then(|| pb::TimeControl {
        per_move_ms: args.per_move_ms.unwrap_or(0),
        bank_ms: args.bank_ms.unwrap_or(0),
        increment_ms: args.increment_ms.unwrap_or(0),
        on_timeout: match args.on_timeout {
            None => pb::OnTimeout::Unspecified,
            Some(OnTimeoutArg::Lose) => pb::OnTimeout::Lose,
            Some(OnTimeoutArg::Out) => pb::OnTimeout::Out,
        } as i32,
    })
}

/// A delay for spectators if either delay flag asks for one.
fn spectator_delay(args: &NewArgs) -> Option<pb::SpectatorDelay> {
    let delayed = args.spectator_delay_moves.is_some() || args.spectator_delay_ms.is_some();
    delayed.then(|| pb::SpectatorDelay {
        moves: args.spectator_delay_moves.unwrap_or(0),
        ms: args.spectator_delay_ms.unwrap_or(0),
    })
}

/// The open seats' deadline, if `--open-seat-deadline-ms` gives one.
fn open_seat_deadline(args: &NewArgs) -> Option<pb::OpenSeatDeadline> {
    args.open_seat_deadline_ms
        .map(|within_ms| pb::OpenSeatDeadline {
            within_ms,
            on_deadline: match args.on_deadline {
                None | Some(OnDeadlineArg::Abort) => pb::OnDeadline::Abort,
                Some(OnDeadlineArg::StartWithout) => pb::OnDeadline::StartWithout,
            } as i32,
        })
}

/// The `--bot SEAT=SPEC` arguments, as a request's seat bots.
fn seat_bots(args: &[String]) -> Result<Vec<pb::SeatBot>, CliError> {
    args.iter()
        .map(|arg| {
            let (seat, spec) = arg.split_once('=').ok_or_else(|| {
                CliError::Usage(format!("--bot `{arg}`: give SEAT=SPEC, e.g. 1=mcts:500ms"))
            })?;
            let seat = seat.trim().parse().map_err(|_| {
                CliError::Usage(format!("--bot `{arg}`: `{seat}` is not a seat number"))
            })?;
            Ok(pb::SeatBot {
                seat,
                spec: spec.trim().to_string(),
            })
        })
        .collect()
}

fn created_json(created: &pb::CreateMatchResponse) -> serde_json::Value {
    serde_json::json!({
        "match_id": created.match_id,
        "seats": created.seats.iter().map(|s| serde_json::json!({
            "seat": s.seat, "token": s.token,
        })).collect::<Vec<_>>(),
        "join_codes": created.join_codes.iter().map(|c| serde_json::json!({
            "seat": c.seat, "code": c.code,
        })).collect::<Vec<_>>(),
    })
}

fn print_created(created: &pb::CreateMatchResponse) {
    outln!("match {}", created.match_id);
    for seat in &created.seats {
        outln!("seat {} token {}", seat.seat, seat.token);
    }
    if let Some(view) = &created.view {
        for seat in view.seats.iter().filter(|s| !s.bot.is_empty()) {
            outln!("seat {} bot {}", seat.seat, seat.bot);
        }
    }
    if let Some(seat) = created.seats.first() {
        outln!(
            "play with: tabletop play {} --token {}",
            created.match_id,
            seat.token
        );
    }
    for code in &created.join_codes {
        outln!("seat {} join code {}", code.seat, code.code);
    }
}
