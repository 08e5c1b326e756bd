//! One function per subcommand. Errors become one line: the gRPC status code
//! and the server's message.

use std::io::{BufRead, Write};

use tabletop_proto::v1 as pb;
use tabletop_proto::v1::{
    admin_client::AdminClient, catalog_client::CatalogClient, matches_client::MatchesClient,
};

use crate::error::{CliError, CliResult};
use crate::failover::{Retry, Servers};
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
            let servers = Servers::new(server, &credential, &tls)?;
            on_server(&servers, command, cli.json).await
        }
    }
}

/// Runs a command that talks to `servers`.
async fn on_server(servers: &Servers, command: Command, json: bool) -> CliResult {
    match command {
        Command::Games { game } => games(servers, game, json).await,
        Command::New(args) => crate::create::run(servers, args, json).await,
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
            join(servers, request, json).await
        }
        Command::Show {
            match_id,
            token,
            at,
        } => show(servers, match_id, token, at, json).await,
        Command::Legal { match_id, token } => legal(servers, match_id, token, json).await,
        Command::Move {
            match_id,
            action,
            token,
            expect_version,
        } => {
            let action = parse_action(&action.join(" "))?;
            crate::submit::run(servers, match_id, token, action, expect_version, json).await
        }
        Command::Resign { match_id, token } => resign(servers, match_id, token, json).await,
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
            crate::listing::matches(servers, filters, page_token, all, json).await
        }
        Command::Watch {
            match_id,
            token,
            from_version,
        } => crate::watch::run(servers, match_id, token, from_version, json).await,
        Command::Events {
            match_id,
            token,
            from,
        } => crate::events::list(servers, match_id, token, from, json).await,
        Command::Play { match_id, token } => play(servers, match_id, token).await,
        Command::Export {
            match_id,
            admin_token,
            output,
        } => export(servers, match_id, admin_token, output).await,
        Command::Plugins { admin_token } => plugins(servers, admin_token, json).await,
        command @ (Command::Feed { .. }
        | Command::Abort { .. }
        | Command::Adjudicate { .. }
        | Command::Pause { .. }
        | Command::Resume { .. }
        | Command::AddTime { .. }
        | Command::LiftQuarantine { .. }) => crate::director::run(servers, command, json).await,
        command @ (Command::ReissueToken { .. } | Command::Credential { .. }) => {
            crate::access::run(servers, command, json).await
        }
        Command::Backup { file, admin_token } => backup(servers, file, admin_token).await,
        Command::LoadPlugin { path, admin_token } => load_plugin(servers, path, admin_token).await,
        Command::RetirePlugin { game, version } => retire_plugin(servers, game, version).await,
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
async fn join(servers: &Servers, request: pb::JoinMatchRequest, json: bool) -> CliResult {
    let bot = request.bot.clone();
    // Taking a seat twice is not the same as once: not called again.
    let joined = servers
        .call(Retry::NotSent, request, |c, r| async move {
            MatchesClient::new(c).join_match(r).await
        })
        .await?;
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
    servers: &Servers,
    match_id: String,
    token: String,
    at: Option<u64>,
    json: bool,
) -> CliResult {
    let request = pb::GetViewRequest {
        match_id,
        seat_token: token,
        at_version: at,
        svg: false,
    };
    let view = servers
        .call(Retry::Safe, request, |c, r| async move {
            MatchesClient::new(c).get_view(r).await
        })
        .await?;
    print_view(&view, json);
    Ok(())
}

/// `legal`: the seat's legal actions with their ids.
async fn legal(servers: &Servers, match_id: String, token: String, json: bool) -> CliResult {
    let request = pb::ListLegalActionsRequest {
        match_id,
        seat_token: token,
        ids_only: false,
    };
    let legal = servers
        .call(Retry::Safe, request, |c, r| async move {
            MatchesClient::new(c).list_legal_actions(r).await
        })
        .await?;
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

/// `resign`: prints the view after it.
async fn resign(servers: &Servers, match_id: String, token: String, json: bool) -> CliResult {
    let request = pb::ResignRequest {
        match_id,
        seat_token: token,
    };
    let view = servers
        .call(Retry::NotSent, request, |c, r| async move {
            MatchesClient::new(c).resign(r).await
        })
        .await?;
    print_view(&view, json);
    Ok(())
}

/// `export`: the record's JSON, to `output` or stdout.
async fn export(
    servers: &Servers,
    match_id: String,
    admin_token: String,
    output: Option<std::path::PathBuf>,
) -> CliResult {
    let request = pb::ExportRecordRequest {
        match_id,
        admin_token,
    };
    let record = servers
        .call(Retry::Safe, request, |c, r| async move {
            MatchesClient::new(c).export_record(r).await
        })
        .await?
        .record_json;
    match output {
        Some(path) => std::fs::write(path, record)?,
        None => outln!("{record}"),
    }
    Ok(())
}

/// `plugins`: every loaded plugin with its matches, where it runs and how
/// it has fared.
async fn plugins(servers: &Servers, admin_token: String, json: bool) -> CliResult {
    let request = pb::ListPluginsRequest { admin_token };
    let plugins = servers
        .call(Retry::Safe, request, |c, r| async move {
            AdminClient::new(c).list_plugins(r).await
        })
        .await?
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
        "hosts": p.hosts,
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
    if !p.hosts.is_empty() {
        line.push_str(&format!("  on {}", p.hosts.join(", ")));
    }
    line
}

/// `retire-plugin`: no new matches of a plugin version.
async fn retire_plugin(servers: &Servers, game: String, version: String) -> CliResult {
    let request = pb::RetirePluginRequest { game, version };
    let plugin = servers
        .call(Retry::NotSent, request, |c, r| async move {
            AdminClient::new(c).retire_plugin(r).await
        })
        .await?;
    outln!("{}", plugin_line(&plugin));
    Ok(())
}

/// `backup`: the server writes a copy of its store to `file`.
async fn backup(servers: &Servers, file: String, admin_token: String) -> CliResult {
    let request = pb::BackupRequest {
        admin_token,
        path: file,
    };
    let written = servers
        .call(Retry::NotSent, request, |c, r| async move {
            AdminClient::new(c).backup(r).await
        })
        .await?;
    outln!(
        "backed up {} matches ({} bytes) to {}",
        written.matches,
        written.bytes,
        written.path
    );
    Ok(())
}

/// `load-plugin`: the server loads the file at `path` on its machine.
async fn load_plugin(servers: &Servers, path: String, admin_token: String) -> CliResult {
    let request = pb::LoadPluginRequest { admin_token, path };
    let loaded = servers
        .call(Retry::NotSent, request, |c, r| async move {
            AdminClient::new(c).load_plugin(r).await
        })
        .await?;
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
pub(crate) fn parse_action(text: &str) -> Result<pb::submit_action_request::Action, CliError> {
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

async fn games(servers: &Servers, game: Option<String>, json: bool) -> CliResult {
    match game {
        Some(name) => {
            let request = pb::GetGameRequest {
                game: name,
                version: None,
            };
            let info = servers
                .call(Retry::Safe, request, |c, r| async move {
                    CatalogClient::new(c).get_game(r).await
                })
                .await?;
            if json {
                print_json(&render::game_json(&info));
            } else {
                out!("{}", render::game_text(&info));
            }
        }
        None => {
            let list = servers
                .call(Retry::Safe, pb::ListGamesRequest {}, |c, r| async move {
                    CatalogClient::new(c).list_games(r).await
                })
                .await?;
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

async fn play(servers: &Servers, match_id: String, token: String) -> CliResult {
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut shown = None;
    loop {
        let view = crate::submit::seat_view(servers, &match_id, &token).await?;
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
        let request = pb::ListLegalActionsRequest {
            match_id: match_id.clone(),
            seat_token: token.clone(),
            ids_only: false,
        };
        let legal = servers
            .call(Retry::Safe, request, |c, r| async move {
                MatchesClient::new(c).list_legal_actions(r).await
            })
            .await?;
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
        // With the version the legal actions are of: safe to send again
        // to the next server when this one does not answer.
        let request = pb::SubmitActionRequest {
            match_id: match_id.clone(),
            seat_token: token.clone(),
            action: Some(parse_action(line)?),
            expected_version: Some(legal.version),
            ..Default::default()
        };
        match crate::submit::submit(servers, request).await {
            Ok(r) if r.pending => outln!("(recorded; waiting for the other seats)"),
            Ok(_) => {}
            Err(CliError::Status(status)) => {
                outln!("refused: {}", status.message());
                shown = None;
            }
            Err(error @ CliError::MaybeApplied { .. }) => {
                outln!("{error}");
                shown = None;
            }
            Err(error) => return Err(error),
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
