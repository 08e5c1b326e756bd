//! One function per subcommand. Errors become one line: the gRPC status code
//! and the server's message.

use std::io::{BufRead, Write};

use tabletop_proto::v1 as pb;
use tabletop_proto::v1::{
    admin_client::AdminClient, catalog_client::CatalogClient, matches_client::MatchesClient,
    watch_client::WatchClient,
};
use tokio_stream::StreamExt;

use crate::connection::Conn;
use crate::error::{CliError, CliResult};
use crate::render;
use crate::render::print_json;
use crate::{Cli, Command};

/// The server the commands talk to unless `--server` or TABLETOP_SERVER
/// says otherwise.
const DEFAULT_SERVER: &str = "http://127.0.0.1:50051";

/// Prints a view as JSON or as the board and status lines.
fn print_view(view: &pb::MatchView, json: bool) {
    if json {
        print_json(&render::view_json(view));
    } else {
        out!("{}", render::view_text(view));
    }
}

/// Runs the parsed command line.
pub async fn run(cli: Cli) -> CliResult {
    let credential = if cli.credential.is_empty() {
        std::env::var("TABLETOP_ADMIN_TOKEN").unwrap_or_default()
    } else {
        cli.credential.clone()
    };
    let tls = crate::connection::Tls {
        ca_file: cli.ca_file.clone(),
        client_cert: cli.client_cert.clone().zip(cli.client_key.clone()),
    };
    match cli.command {
        // Local: no connection.
        Command::Replay {
            file,
            plugin_dir,
            step,
            all,
        } => crate::replay::run(&file, plugin_dir, step, all),
        // Connects to `--server`, or starts a host of its own without it.
        Command::Arena(args) => {
            crate::arena::run(args, cli.server.as_deref(), &credential, &tls).await
        }
        command => {
            let server = cli.server.as_deref().unwrap_or(DEFAULT_SERVER);
            let channel = crate::connection::connect(server, &credential, &tls).await?;
            on_server(channel, command, cli.json).await
        }
    }
}

/// Runs a command that talks to the server over `channel`.
async fn on_server(channel: Conn, command: Command, json: bool) -> CliResult {
    match command {
        Command::Games { game } => games(channel, game, json).await,
        Command::New(args) => crate::create::run(channel, args, json).await,
        Command::Join {
            match_id,
            seat,
            code,
            name,
            external_id,
            bot,
        } => {
            let request = pb::JoinMatchRequest {
                match_id,
                seat,
                join_code: code,
                display_name: name,
                external_id,
                bot,
            };
            join(channel, request, json).await
        }
        Command::Show {
            match_id,
            token,
            at,
        } => show(channel, match_id, token, at, json).await,
        Command::Legal { match_id, token } => legal(channel, match_id, token, json).await,
        Command::Move {
            match_id,
            action,
            token,
            expect_version,
        } => submit(channel, match_id, token, &action, expect_version, json).await,
        Command::Resign { match_id, token } => resign(channel, match_id, token, json).await,
        Command::Matches {
            game,
            state,
            labels,
            page_size,
            page_token,
            all,
        } => {
            let filters = crate::listing::Filters {
                game: game.unwrap_or_default(),
                state,
                labels: crate::listing::pairs("label", &labels)?,
                page_size,
            };
            crate::listing::matches(channel, filters, page_token, all, json).await
        }
        Command::Watch {
            match_id,
            token,
            from_version,
        } => watch(channel, match_id, token, from_version, json).await,
        Command::Events {
            match_id,
            token,
            from,
        } => crate::events::list(channel, match_id, token, from, json).await,
        Command::Play { match_id, token } => play(channel, match_id, token).await,
        Command::Export {
            match_id,
            admin_token,
            output,
        } => export(channel, match_id, admin_token, output).await,
        Command::Plugins { admin_token } => plugins(channel, admin_token, json).await,
        command @ (Command::Feed { .. }
        | Command::Abort { .. }
        | Command::Adjudicate { .. }
        | Command::Pause { .. }
        | Command::Resume { .. }
        | Command::AddTime { .. }
        | Command::LiftQuarantine { .. }) => crate::director::run(channel, command, json).await,
        command @ (Command::ReissueToken { .. } | Command::Credential { .. }) => {
            crate::access::run(channel, command, json).await
        }
        Command::Backup { file, admin_token } => backup(channel, file, admin_token).await,
        Command::LoadPlugin { path, admin_token } => load_plugin(channel, path, admin_token).await,
        Command::RetirePlugin { game, version } => retire_plugin(channel, game, version).await,
        Command::Plugin { .. } => Err(CliError::Usage(
            "`plugin check` is local and was handled before connecting".into(),
        )),
        Command::Store { .. } => Err(CliError::Usage(
            "`store check` is local and was handled before connecting".into(),
        )),
        Command::Replay { file, .. } => Err(CliError::Usage(format!(
            "replay of {} is local and was handled before connecting",
            file.display()
        ))),
        Command::Arena(args) => Err(CliError::Usage(format!(
            "the arena of {} was handled before connecting",
            args.game
        ))),
    }
}

/// `join`: prints the seat's token, or its bot.
async fn join(channel: Conn, request: pb::JoinMatchRequest, json: bool) -> CliResult {
    let bot = request.bot.clone();
    let joined = MatchesClient::new(channel)
        .join_match(request)
        .await?
        .into_inner();
    if json {
        print_json(&serde_json::json!({ "seat": joined.seat, "token": joined.token }));
    } else if !bot.is_empty() {
        outln!("seat {} bot {bot}", joined.seat);
    } else {
        outln!("seat {} token {}", joined.seat, joined.token);
    }
    Ok(())
}

/// `show`: the match as the token's seat (or a spectator) sees it, now or
/// after version `at`.
async fn show(
    channel: Conn,
    match_id: String,
    token: String,
    at: Option<u64>,
    json: bool,
) -> CliResult {
    let view = MatchesClient::new(channel)
        .get_view(pb::GetViewRequest {
            match_id,
            seat_token: token,
            at_version: at,
            svg: false,
        })
        .await?
        .into_inner();
    print_view(&view, json);
    Ok(())
}

/// `legal`: the seat's legal actions with their ids.
async fn legal(channel: Conn, match_id: String, token: String, json: bool) -> CliResult {
    let legal = MatchesClient::new(channel)
        .list_legal_actions(pb::ListLegalActionsRequest {
            match_id,
            seat_token: token,
            ids_only: false,
        })
        .await?
        .into_inner();
    if json {
        print_json(&serde_json::json!({
            "version": legal.version,
            "seat": legal.seat,
            "actions": legal.actions.iter().map(|a| serde_json::json!({
                "id": a.id, "notation": a.notation,
            })).collect::<Vec<_>>(),
        }));
    } else {
        for a in &legal.actions {
            outln!("{:>8}  {}", format!("#{}", a.id), a.notation);
        }
    }
    Ok(())
}

/// `move`: submits the action (its words joined by spaces) and prints the
/// view after it.
async fn submit(
    channel: Conn,
    match_id: String,
    token: String,
    action: &[String],
    expect_version: Option<u64>,
    json: bool,
) -> CliResult {
    let response = MatchesClient::new(channel)
        .submit_action(pb::SubmitActionRequest {
            match_id,
            seat_token: token,
            action: Some(parse_action(&action.join(" "))?),
            expected_version: expect_version,
            ..Default::default()
        })
        .await?
        .into_inner();
    let view = response.view.unwrap_or_default();
    if json {
        print_json(&serde_json::json!({
            "pending": response.pending,
            "view": render::view_json(&view),
        }));
    } else {
        out!("{}", render::view_text(&view));
        if response.pending {
            outln!("(action recorded; waiting for the other seats)");
        }
    }
    Ok(())
}

/// `resign`: prints the view after it.
async fn resign(channel: Conn, match_id: String, token: String, json: bool) -> CliResult {
    let view = MatchesClient::new(channel)
        .resign(pb::ResignRequest {
            match_id,
            seat_token: token,
        })
        .await?
        .into_inner();
    print_view(&view, json);
    Ok(())
}

/// `export`: the record's JSON, to `output` or stdout.
async fn export(
    channel: Conn,
    match_id: String,
    admin_token: String,
    output: Option<std::path::PathBuf>,
) -> CliResult {
    let record = MatchesClient::new(channel)
        .export_record(pb::ExportRecordRequest {
            match_id,
            admin_token,
        })
        .await?
        .into_inner()
        .record_json;
    match output {
        Some(path) => std::fs::write(path, record)?,
        None => outln!("{record}"),
    }
    Ok(())
}

/// `plugins`: every loaded plugin with its matches, where it runs and how
/// it has fared.
async fn plugins(channel: Conn, admin_token: String, json: bool) -> CliResult {
    let plugins = AdminClient::new(channel)
        .list_plugins(pb::ListPluginsRequest { admin_token })
        .await?
        .into_inner()
        .plugins;
    if json {
        print_json(&serde_json::json!(
            plugins.iter().map(plugin_json).collect::<Vec<_>>()
        ));
    } else {
        for p in &plugins {
            outln!("{}", plugin_line(p));
        }
    }
    Ok(())
}

/// A plugin as `plugins --json` prints it.
fn plugin_json(p: &pb::PluginInfo) -> serde_json::Value {
    serde_json::json!({
        "game": p.game, "version": p.version, "file": p.file,
        "sha256": p.sha256, "loaded_at_ms": p.loaded_at_ms,
        "match_ids": p.match_ids, "trusted": p.trusted,
        "worker_pid": p.worker_pid, "worker_starts": p.worker_starts,
        "faults": p.faults, "recent_faults": p.recent_faults,
        "suspended": p.suspended, "retired": p.retired,
        "quarantined_match_ids": p.quarantined_match_ids,
    })
}

/// A plugin in one line: `nim 1.0.0  libnim.so  3f2a…  worker pid 812 (2
/// starts)  1 fault  2 matches (1 quarantined: m1)`.
fn plugin_line(p: &pb::PluginInfo) -> String {
    let hash = p.sha256.get(..12).unwrap_or(&p.sha256);
    let runs = if p.trusted {
        "trusted (in the server)".to_string()
    } else if p.worker_pid != 0 {
        format!("worker pid {} ({} starts)", p.worker_pid, p.worker_starts)
    } else {
        format!("worker not running ({} starts)", p.worker_starts)
    };
    let mut line = format!("{} {}  {}  {hash}  {runs}", p.game, p.version, p.file);
    if p.faults > 0 {
        line.push_str(&format!(
            "  {} faults ({} recent)",
            p.faults, p.recent_faults
        ));
    }
    if p.suspended {
        line.push_str("  suspended: no new matches");
    }
    if p.retired {
        line.push_str("  retired");
    }
    line.push_str(&format!("  {} matches", p.match_ids.len()));
    if !p.quarantined_match_ids.is_empty() {
        line.push_str(&format!(
            " ({} quarantined: {})",
            p.quarantined_match_ids.len(),
            p.quarantined_match_ids.join(", ")
        ));
    }
    line
}

/// `retire-plugin`: no new matches of a plugin version.
async fn retire_plugin(channel: Conn, game: String, version: String) -> CliResult {
    let plugin = AdminClient::new(channel)
        .retire_plugin(pb::RetirePluginRequest { game, version })
        .await?
        .into_inner();
    outln!("{}", plugin_line(&plugin));
    Ok(())
}

/// `backup`: the server writes a copy of its store to `file`.
async fn backup(channel: Conn, file: String, admin_token: String) -> CliResult {
    let written = AdminClient::new(channel)
        .backup(pb::BackupRequest {
            admin_token,
            path: file,
        })
        .await?
        .into_inner();
    outln!(
        "backed up {} matches ({} bytes) to {}",
        written.matches,
        written.bytes,
        written.path
    );
    Ok(())
}

/// `load-plugin`: the server loads the file at `path` on its machine.
async fn load_plugin(channel: Conn, path: String, admin_token: String) -> CliResult {
    let loaded = AdminClient::new(channel)
        .load_plugin(pb::LoadPluginRequest { admin_token, path })
        .await?
        .into_inner();
    let plugin = loaded.plugin.unwrap_or_default();
    outln!(
        "{} {} {}",
        plugin.game,
        plugin.version,
        if loaded.already_loaded {
            "(already loaded)"
        } else {
            "loaded"
        }
    );
    Ok(())
}

/// `#17` is action id 17; anything else is notation.
fn parse_action(text: &str) -> Result<pb::submit_action_request::Action, CliError> {
    use pb::submit_action_request::Action;
    // `#17` is an id; any other text, `#d5-d6` (War's entrenchment) included,
    // is notation for the game to read.
    match text.strip_prefix('#') {
        Some(id) if !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()) => id
            .parse()
            .map(Action::ActionId)
            .map_err(|_| CliError::Usage(format!("`{text}` is not an action id (#NUMBER)"))),
        _ => Ok(Action::Notation(text.to_string())),
    }
}

async fn games(channel: Conn, game: Option<String>, json: bool) -> CliResult {
    let mut catalog = CatalogClient::new(channel);
    match game {
        Some(name) => {
            let info = catalog
                .get_game(pb::GetGameRequest {
                    game: name,
                    version: None,
                })
                .await?
                .into_inner();
            if json {
                print_json(&render::game_json(&info));
            } else {
                out!("{}", render::game_text(&info));
            }
        }
        None => {
            let list = catalog
                .list_games(pb::ListGamesRequest {})
                .await?
                .into_inner();
            if json {
                print_json(&serde_json::json!(
                    list.games.iter().map(render::game_json).collect::<Vec<_>>()
                ));
            } else {
                for g in &list.games {
                    outln!(
                        "{:<12} {:<8} {}–{} players",
                        g.name,
                        g.version,
                        g.min_players,
                        g.max_players
                    );
                }
            }
        }
    }
    Ok(())
}

const CLEAR_SCREEN: &str = "\x1b[2J\x1b[H";

async fn watch(
    channel: Conn,
    match_id: String,
    token: String,
    from_version: Option<u64>,
    json: bool,
) -> CliResult {
    let mut watcher = WatchClient::new(channel);
    let mut request = pb::WatchMatchRequest {
        match_id,
        seat_token: token,
        from_version,
        after_seq: None,
        omit_views: false,
    };
    let mut stream = watcher.watch_match(request.clone()).await?.into_inner();
    while let Some(message) = stream.next().await {
        let message = match message {
            Ok(message) => message,
            Err(status) => match crate::resume::after_fell_behind(&status, "after_seq") {
                // Cut for reading too slowly (a paused terminal): every
                // event queued before the cut arrived, so watch on after
                // the last of them.
                Some(after_seq) => {
                    request.after_seq = Some(after_seq);
                    request.from_version = None;
                    stream = watcher.watch_match(request.clone()).await?.into_inner();
                    continue;
                }
                None => return Err(status.into()),
            },
        };
        let (event, view) = match message.kind {
            Some(pb::watch_event::Kind::Snapshot(view)) => (None, Some(view)),
            Some(pb::watch_event::Kind::Transition(t)) => (Some(t.event_json), t.view),
            Some(pb::watch_event::Kind::SeatActed(a)) => {
                if json {
                    print_json(&serde_json::json!({
                        "version": message.version, "seat_acted": a.seat,
                    }));
                } else {
                    outln!("seat {} has acted", a.seat);
                }
                continue;
            }
            None => continue,
        };
        if json {
            print_json(&serde_json::json!({
                "version": message.version,
                "event": event.and_then(|e| serde_json::from_str::<serde_json::Value>(&e).ok()),
                "view": view.as_ref().map(render::view_json),
            }));
        } else if let Some(view) = view {
            out!("{CLEAR_SCREEN}{}", render::view_text(&view));
            if let Some(event) = event {
                outln!("last: {event}");
            }
            std::io::stdout().flush()?;
        }
    }
    Ok(())
}

async fn play(channel: Conn, match_id: String, token: String) -> CliResult {
    let mut matches = MatchesClient::new(channel);
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut shown = None;
    loop {
        let view = matches
            .get_view(pb::GetViewRequest {
                match_id: match_id.clone(),
                seat_token: token.clone(),
                at_version: None,
                svg: false,
            })
            .await?
            .into_inner();
        if shown != Some(view.version) {
            out!("{}", render::view_text(&view));
            shown = Some(view.version);
        }
        if view.state == pb::MatchState::Finished as i32 {
            return Ok(());
        }
        if view.state == pb::MatchState::Quarantined as i32 {
            // No move is taken, and the server refuses to list any.
            outln!("waiting for the quarantine to end… (press Enter to refresh, q to quit)");
            std::io::stdout().flush()?;
            let Some(line) = lines.next() else {
                return Ok(());
            };
            if matches!(line?.trim(), "q" | "quit") {
                return Ok(());
            }
            shown = None;
            continue;
        }
        let legal = matches
            .list_legal_actions(pb::ListLegalActionsRequest {
                match_id: match_id.clone(),
                seat_token: token.clone(),
                ids_only: false,
            })
            .await?
            .into_inner();
        if legal.actions.is_empty() {
            // The server's bots answer by themselves: wait for them without
            // asking for Enter.
            let waiting: Vec<&pb::SeatStatus> = view
                .seats
                .iter()
                .filter(|s| s.to_move && !s.has_acted)
                .collect();
            if !waiting.is_empty() && waiting.iter().all(|s| !s.bot.is_empty()) {
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                continue;
            }
            outln!("waiting for the other seats… (press Enter to refresh, q to quit)");
        } else {
            let shown: Vec<&str> = legal.actions.iter().map(|a| a.notation.as_str()).collect();
            outln!("legal: {}", shown.join("  "));
            out!("your move (notation, #id, or q)> ");
        }
        std::io::stdout().flush()?;
        let Some(line) = lines.next() else {
            return Ok(());
        };
        let line = line?;
        let line = line.trim();
        if line == "q" || line == "quit" {
            return Ok(());
        }
        if line.is_empty() || legal.actions.is_empty() {
            shown = None;
            continue;
        }
        let result = matches
            .submit_action(pb::SubmitActionRequest {
                match_id: match_id.clone(),
                seat_token: token.clone(),
                action: Some(parse_action(line)?),
                expected_version: Some(legal.version),
                ..Default::default()
            })
            .await;
        match result {
            Ok(r) if r.get_ref().pending => outln!("(recorded; waiting for the other seats)"),
            Ok(_) => {}
            Err(status) => {
                outln!("refused: {}", status.message());
                shown = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pb::submit_action_request::Action;

    #[test]
    fn hash_notation_is_not_mistaken_for_an_id() {
        assert_eq!(parse_action("#17").unwrap(), Action::ActionId(17));
        assert_eq!(
            parse_action("#d5-d6").unwrap(),
            Action::Notation("#d5-d6".into())
        );
        assert_eq!(parse_action("#").unwrap(), Action::Notation("#".into()));
        assert!(parse_action("#99999999999999999999999").is_err());
    }
}
