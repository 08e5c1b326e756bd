//! `tabletop`: a thin command-line client of engine-host. Everything
//! game-specific it shows (boards, legal moves, notation) comes from the
//! server.
//!
//! ```text
//! tabletop games
//! tabletop new focus --players 2
//! tabletop play MATCH --token TOKEN
//! tabletop replay record.json
//! tabletop arena --game focus --bots random,mcts:200ms --matches 20
//! tabletop plugin check libmygame.so
//! ```

/// Writes to stdout; a closed pipe (`tabletop legal … | head`) ends the program
/// quietly instead of panicking.
pub fn write_stdout(text: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        && e.kind() == std::io::ErrorKind::BrokenPipe
    {
        std::process::exit(0);
    }
}

/// `print!` through [`write_stdout`].
macro_rules! out {
    ($($arg:tt)*) => { $crate::write_stdout(&format!($($arg)*)) };
}

/// `println!` through [`write_stdout`].
macro_rules! outln {
    () => { $crate::write_stdout("\n") };
    ($($arg:tt)*) => { $crate::write_stdout(&format!("{}\n", format!($($arg)*))) };
}

mod access;
mod arena;
mod check;
mod commands;
mod connection;
mod create;
mod director;
mod error;
mod events;
mod failover;
mod listing;
mod render;
mod replay;
mod resume;
mod store;
mod submit;
mod watch;

use clap::{Parser, Subcommand};

/// Command-line client for a Tabletop server.
#[derive(Debug, Parser)]
#[command(name = "tabletop", version, about)]
pub struct Cli {
    /// The server's address, or several separated by commas
    /// (`a:50051,b:50051`): the first that answers is used, and a call
    /// safe to repeat moves to the next when its server is unavailable.
    /// Default: http://127.0.0.1:50051; `arena` without it starts a host
    /// of its own.
    #[arg(long, global = true, env = "TABLETOP_SERVER")]
    pub server: Option<String>,
    /// Print machine-readable JSON instead of text (read commands).
    #[arg(long, global = true)]
    pub json: bool,
    /// An organizer credential or the admin token, sent with every call as
    /// `authorization: Bearer SECRET`. Without it, TABLETOP_ADMIN_TOKEN is
    /// sent if set; else the calls are anonymous.
    #[arg(
        long,
        global = true,
        env = "TABLETOP_CREDENTIAL",
        default_value = "",
        hide_env_values = true
    )]
    pub credential: String,
    /// Connect over TLS, trusting the server certificates this CA (PEM)
    /// signed; an `http://` server address is then read as `https://`.
    #[arg(long, global = true, env = "TABLETOP_CA_FILE")]
    pub ca_file: Option<std::path::PathBuf>,
    /// A client certificate (PEM) to present over TLS: a server started
    /// with `--tls-client-ca` requires one for Admin calls.
    #[arg(
        long,
        global = true,
        env = "TABLETOP_CLIENT_CERT",
        requires = "client_key",
        requires = "ca_file"
    )]
    pub client_cert: Option<std::path::PathBuf>,
    /// The private key (PEM) of `--client-cert`.
    #[arg(
        long,
        global = true,
        env = "TABLETOP_CLIENT_KEY",
        requires = "client_cert"
    )]
    pub client_key: Option<std::path::PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

/// What to do.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the server's games (or describe one).
    Games {
        /// Describe this game in full.
        game: Option<String>,
    },
    /// Create a match; prints its id, the seat tokens and the open seats'
    /// join codes.
    New(create::NewArgs),
    /// Join an open seat of a waiting match; prints the token.
    Join {
        /// The match.
        match_id: String,
        /// The seat (default: the lowest open one, or the code's seat).
        #[arg(long)]
        seat: Option<u32>,
        /// The seat's join code, from the match's creator.
        #[arg(long, default_value = "")]
        code: String,
        /// The name to show for this seat.
        #[arg(long, default_value = "")]
        name: String,
        /// The platform's id for the player.
        #[arg(long, default_value = "")]
        external_id: String,
        /// Seat the server's bot instead (`mcts:500ms`, `random`); no token
        /// is issued.
        #[arg(long, value_name = "SPEC", default_value = "")]
        bot: String,
    },
    /// Give a taken seat a new token (organizer or admin); the old one
    /// stops working.
    ReissueToken {
        /// The match.
        match_id: String,
        /// The seat.
        #[arg(long)]
        seat: u32,
        /// The admin token in the request (the global --credential, or
        /// TABLETOP_ADMIN_TOKEN, is enough).
        #[arg(long, default_value = "")]
        admin_token: String,
    },
    /// Issue, revoke and list organizer credentials (admin).
    Credential {
        /// What to do.
        #[command(subcommand)]
        action: CredentialAction,
        /// The admin token in the request (the global --credential, or
        /// TABLETOP_ADMIN_TOKEN, is enough).
        #[arg(long, default_value = "")]
        admin_token: String,
    },
    /// Show a match (as a seat with --token, else as a spectator).
    Show {
        /// The match.
        match_id: String,
        /// Seat token.
        #[arg(long, env = "TABLETOP_TOKEN", default_value = "")]
        token: String,
        /// Show the match as it was right after this version (0: as created).
        #[arg(long)]
        at: Option<u64>,
    },
    /// List the legal actions of a seat.
    Legal {
        /// The match.
        match_id: String,
        /// Seat token.
        #[arg(long, env = "TABLETOP_TOKEN")]
        token: String,
    },
    /// Submit an action (notation, or `#ID` for an action id), or a shorthand
    /// for several (a whole War layout: `III/CIIIIIC/IIIIIII/CACCAIC`).
    Move {
        /// The match.
        match_id: String,
        /// The action: notation, or `#17` for id 17. A game may also read a
        /// shorthand that stands for several actions of the seat, applied all
        /// or nothing (War: a setup layout, `IIIIIIIICCC…` or `I@1 C@2 …`, see
        /// its README). Several words are joined with spaces.
        #[arg(required = true, num_args = 1..)]
        action: Vec<String>,
        /// Seat token.
        #[arg(long, env = "TABLETOP_TOKEN")]
        token: String,
        /// Refuse unless the match is at this version.
        #[arg(long)]
        expect_version: Option<u64>,
    },
    /// Resign a seat.
    Resign {
        /// The match.
        match_id: String,
        /// Seat token.
        #[arg(long, env = "TABLETOP_TOKEN")]
        token: String,
    },
    /// List matches.
    Matches {
        /// Only this game.
        #[arg(long)]
        game: Option<String>,
        /// Only matches in this state.
        #[arg(long, value_enum)]
        state: Option<StateArg>,
        /// Only matches with this label (repeatable; all must match).
        #[arg(long = "label", short = 'l', value_name = "KEY=VALUE")]
        labels: Vec<String>,
        /// Matches per page (the server allows at most 1000).
        #[arg(long, default_value_t = 100)]
        page_size: u32,
        /// Continue from a previous page's token (printed after a page that
        /// has more after it).
        #[arg(long, conflicts_with = "all")]
        page_token: Option<String>,
        /// Follow every page to the end.
        #[arg(long)]
        all: bool,
    },
    /// Watch a match live; redraws the board on every change.
    Watch {
        /// The match.
        match_id: String,
        /// Seat token (default: spectator).
        #[arg(long, env = "TABLETOP_TOKEN", default_value = "")]
        token: String,
        /// Resume after this version.
        #[arg(long)]
        from_version: Option<u64>,
    },
    /// List a match's past events as one viewer was told them, oldest
    /// first (also of a finished match).
    Events {
        /// The match.
        match_id: String,
        /// Seat token (default: spectator).
        #[arg(long, env = "TABLETOP_TOKEN", default_value = "")]
        token: String,
        /// Start after the event with this sequence number.
        #[arg(long, default_value_t = 0)]
        from: u64,
    },
    /// Play interactively: board, legal moves, prompt, until the match ends.
    Play {
        /// The match.
        match_id: String,
        /// Seat token.
        #[arg(long, env = "TABLETOP_TOKEN")]
        token: String,
    },
    /// Export a match record (JSON).
    Export {
        /// The match.
        match_id: String,
        /// The admin token in the request (the global --credential, or
        /// TABLETOP_ADMIN_TOKEN, is enough; a running match needs one).
        #[arg(long, default_value = "")]
        admin_token: String,
        /// Write to this file instead of stdout.
        #[arg(long, short = 'o')]
        output: Option<std::path::PathBuf>,
    },
    /// List loaded plugins (admin): each build's file and hash, whether it
    /// is trusted (runs inside the server) or runs in a worker process, its
    /// worker, faults and quarantined matches.
    Plugins {
        /// The admin token in the request (the global --credential, or
        /// TABLETOP_ADMIN_TOKEN, is enough).
        #[arg(long, default_value = "")]
        admin_token: String,
    },
    /// Play bots against each other in a round robin (seats rotated, seeds
    /// recorded) and print each pairing's games, wins/draws/losses, score
    /// with its 95% interval and Elo difference; against `--server`, or a
    /// host it starts (the `engine-host` next to this program).
    Arena(arena::ArenaArgs),
    /// Step through a match record (a file from `export`), forward and back,
    /// rendering each position. Replays locally with the record's plugin
    /// version; no server needed.
    Replay {
        /// The record (JSON).
        file: std::path::PathBuf,
        /// Where to find the game's plugin (default: next to this program).
        #[arg(long, env = "TABLETOP_PLUGIN_DIR")]
        plugin_dir: Option<std::path::PathBuf>,
        /// Print the position after this many actions and exit.
        #[arg(long, conflicts_with = "all")]
        step: Option<usize>,
        /// Print every position in order and exit.
        #[arg(long)]
        all: bool,
    },
    /// Work with a plugin file on this machine, no server needed.
    Plugin {
        /// What to do.
        #[command(subcommand)]
        action: PluginAction,
    },
    /// Work with a host's match store file on this machine, no server
    /// needed (stop the host first).
    Store {
        /// What to do.
        #[command(subcommand)]
        action: store::StoreAction,
    },
    /// Load a plugin file on the server (admin).
    LoadPlugin {
        /// Path on the server's machine.
        path: String,
        /// The admin token in the request (the global --credential, or
        /// TABLETOP_ADMIN_TOKEN, is enough).
        #[arg(long, default_value = "")]
        admin_token: String,
    },
    /// Retire a plugin version (admin): no new matches of it; its worker
    /// process ends once no match held by the server uses it.
    RetirePlugin {
        /// The game.
        game: String,
        /// The version.
        version: String,
    },
    /// Follow the lifecycle of every match (organizer or admin): created, seats, started,
    /// paused, quarantined, finished, aborted …; one line (or JSON object)
    /// per event, each with its cursor. Runs until interrupted.
    Feed {
        /// Only matches with this label (repeatable; all must match).
        #[arg(long = "label", short = 'l', value_name = "KEY=VALUE")]
        labels: Vec<String>,
        /// Only this game's matches.
        #[arg(long)]
        game: Option<String>,
        /// Start after this cursor (the last one a previous run printed).
        #[arg(long, value_name = "CURSOR", default_value_t = 0)]
        from: u64,
        /// The admin token in the request (the global --credential, or
        /// TABLETOP_ADMIN_TOKEN, is enough).
        #[arg(long, default_value = "")]
        admin_token: String,
    },
    /// End a match without a result (organizer or admin).
    Abort {
        /// The match.
        match_id: String,
        /// Why (shown in the feed, the view and the record).
        #[arg(long, default_value = "")]
        reason: String,
        /// The admin token in the request (the global --credential, or
        /// TABLETOP_ADMIN_TOKEN, is enough).
        #[arg(long, default_value = "")]
        admin_token: String,
    },
    /// End a running match with a director's result (organizer or
    /// admin).
    Adjudicate {
        /// The match.
        match_id: String,
        /// Every seat's rank, in seat order: `--ranks 1,2` (seat 0 wins).
        #[arg(long, value_delimiter = ',', required = true)]
        ranks: Vec<u32>,
        /// The admin token in the request (the global --credential, or
        /// TABLETOP_ADMIN_TOKEN, is enough).
        #[arg(long, default_value = "")]
        admin_token: String,
    },
    /// Stop a running match's clocks and refuse actions until `resume`
    /// (organizer or admin).
    Pause {
        /// The match.
        match_id: String,
        /// The admin token in the request (the global --credential, or
        /// TABLETOP_ADMIN_TOKEN, is enough).
        #[arg(long, default_value = "")]
        admin_token: String,
    },
    /// Restart a paused match's clocks (organizer or admin).
    Resume {
        /// The match.
        match_id: String,
        /// The admin token in the request (the global --credential, or
        /// TABLETOP_ADMIN_TOKEN, is enough).
        #[arg(long, default_value = "")]
        admin_token: String,
    },
    /// Lift a match's quarantine (admin): the server calls its plugin for
    /// it again and play goes on where it stopped.
    LiftQuarantine {
        /// The match.
        match_id: String,
        /// Play on with this loaded version of the game (a fixed build):
        /// the match's whole history is replayed through it first.
        #[arg(long = "to-version", default_value = "")]
        plugin_version: String,
        /// The admin token in the request (the global --credential, or
        /// TABLETOP_ADMIN_TOKEN, is enough).
        #[arg(long, default_value = "")]
        admin_token: String,
    },
    /// Give a seat more time (organizer or admin).
    AddTime {
        /// The match.
        match_id: String,
        /// The seat.
        #[arg(long)]
        seat: u32,
        /// How much, in milliseconds.
        #[arg(long, value_name = "MS")]
        ms: i64,
        /// The admin token in the request (the global --credential, or
        /// TABLETOP_ADMIN_TOKEN, is enough).
        #[arg(long, default_value = "")]
        admin_token: String,
    },
    /// Write a consistent copy of the running server's match store to a new
    /// file on the server's machine (admin); start a server with it as
    /// DATA_DIR/matches.sqlite3 to resume from it.
    Backup {
        /// Path of the new file on the server's machine: absolute, in a
        /// directory that exists.
        file: String,
        /// The admin token in the request (the global --credential, or
        /// TABLETOP_ADMIN_TOKEN, is enough).
        #[arg(long, default_value = "")]
        admin_token: String,
    },
}

/// `tabletop plugin …`.
#[derive(Debug, Subcommand)]
pub enum PluginAction {
    /// Run the conformance kit on a plugin file, in a child process with a
    /// memory and a CPU-time cap: determinism, hidden information, refusals,
    /// seat names, boards, targets, evaluations, the manifest's claims.
    /// Prints each failed check with the seed and the actions that
    /// reproduce it (`--json`: one JSON document). Exit status 0 when every
    /// check passes, 1 when one fails, 2 for a usage error or a file that
    /// is not a plugin.
    Check(check::CheckArgs),
}

/// `tabletop credential …`.
#[derive(Debug, Subcommand)]
pub enum CredentialAction {
    /// Issue an organizer credential; prints its id and its secret (shown
    /// once).
    Issue {
        /// Who it is for.
        name: String,
        /// The tenant whose matches it runs (1 to 63 of a-z, 0-9, `.`, `_`,
        /// `-`); without it, a new tenant of its own, named after its id.
        #[arg(long, default_value = "")]
        tenant: String,
    },
    /// Revoke a credential: calls with it are refused from then on.
    Revoke {
        /// The credential's id.
        credential_id: String,
    },
    /// List every credential issued (never a secret).
    List,
}

/// `tabletop matches --state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum StateArg {
    /// Seats are open.
    Waiting,
    /// Being played.
    Running,
    /// Over.
    Finished,
    /// Its plugin version is not loaded.
    Unavailable,
    /// Quarantined by the server: its plugin failed in one of its calls.
    Quarantined,
}

fn main() -> std::process::ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args
        .get(1)
        .is_some_and(|a| a == check::child::CHILD_SUBCOMMAND)
    {
        return std::process::ExitCode::from(check::child::run(&args[2..]));
    }
    let cli = Cli::parse();
    if let Command::Plugin {
        action: PluginAction::Check(check),
    } = &cli.command
    {
        return std::process::ExitCode::from(check::run(check, cli.json));
    }
    if let Command::Store { action } = &cli.command {
        return std::process::ExitCode::from(store::run(action, cli.json));
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("tabletop: cannot start the async runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match runtime.block_on(commands::run(cli)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tabletop: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
