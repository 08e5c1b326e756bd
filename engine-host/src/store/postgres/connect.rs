//! Connections to the PostgreSQL server: how they are opened, which
//! errors mean the server cannot be reached, the statement cache each
//! connection keeps, and the reachability every connection attempt
//! reports to.
//!
//! The synchronous client runs each call on a runtime of its own, which
//! tokio forbids on a thread that runs async tasks: connections are opened
//! and used only on the store's own threads (the writer and the readers),
//! never on a caller's.

use std::collections::HashMap;
use std::time::Duration;

use postgres::types::ToSql;
use postgres::{Client, NoTls, Row, Statement};
use tabletop_core::{HostError, HostResult};
use tokio_postgres::Config;

use super::step::{Answer, Step};

/// How long opening a connection may take before the server counts as
/// unreachable: a refused connection fails at once, a silent network only
/// after this.
pub(super) const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// How long sent data may go unacknowledged by the server's machine before
/// the connection counts as broken.
const SILENT_SERVER_TIMEOUT: Duration = Duration::from_secs(15);

/// Where the store connects: the parsed URL, and how to name the server
/// in messages (never with its password).
#[derive(Debug, Clone)]
pub(super) struct Target {
    config: Config,
    /// `host:port/database`, for messages and logs.
    pub(super) name: String,
}

impl Target {
    /// Parses a `postgres://` or `postgresql://` URL; a malformed one is
    /// refused with a short reason.
    pub(super) fn parse(url: &str) -> HostResult<Target> {
        let mut config: Config = url.parse().map_err(|e| {
            HostError::InvalidRequest(format!("the PostgreSQL URL does not parse: {e}"))
        })?;
        config.connect_timeout(CONNECT_TIMEOUT);
        // A server that vanished without closing its connections (a network
        // cut, a machine gone) is noticed within seconds, not when the
        // kernel gives up on the socket: unanswered data or keepalives
        // break the connection, which answers StoreUnavailable.
        config.keepalives(true);
        config.keepalives_idle(Duration::from_secs(5));
        config.tcp_user_timeout(SILENT_SERVER_TIMEOUT);
        config.application_name("engine-host");
        let hosts: Vec<String> = config
            .get_hosts()
            .iter()
            .map(|host| match host {
                tokio_postgres::config::Host::Tcp(name) => name.clone(),
                #[cfg(unix)]
                tokio_postgres::config::Host::Unix(path) => path.display().to_string(),
            })
            .collect();
        let port = config.get_ports().first().copied().unwrap_or(5432);
        let database = config
            .get_dbname()
            .or(config.get_user())
            .unwrap_or("postgres");
        let name = format!("{}:{port}/{database}", hosts.join(","));
        Ok(Target { config, name })
    }

    /// Opens a connection; any failure means the server cannot be reached
    /// (the URL was checked when the store opened).
    pub(super) fn connect(&self) -> HostResult<Connection> {
        let client = postgres::Config::from(self.config.clone())
            .connect(NoTls)
            .map_err(|e| self.unreachable(e))?;
        Ok(Connection {
            client,
            statements: HashMap::new(),
        })
    }

    /// The parsed URL, for the writer's asynchronous client.
    pub(super) fn config(&self) -> &Config {
        &self.config
    }

    /// A failed connection attempt, as the host says it.
    pub(super) fn unreachable(&self, e: postgres::Error) -> HostError {
        HostError::StoreUnavailable(format!(
            "cannot connect to PostgreSQL at {}: {e}",
            self.name
        ))
    }
}

/// Whether `e` says the server cannot be reached (the connection broke,
/// the server is shutting down or refuses connections) rather than that a
/// statement failed on a working connection.
pub(super) fn is_unreachable(e: &postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    if let Some(code) = e.code() {
        let code = code.code();
        // Class 08: connection exceptions; 57P01-57P03: the server is
        // shutting down, crashed, or not yet taking connections; 53300:
        // too many connections.
        return code.starts_with("08") || matches!(code, "57P01" | "57P02" | "57P03" | "53300");
    }
    // No SQL state: a failure of the socket itself.
    std::error::Error::source(e).is_some_and(|source| source.is::<std::io::Error>())
}

/// `e` as the host says it: [`HostError::StoreUnavailable`] when the server
/// cannot be reached, [`HostError::Internal`] otherwise.
pub(super) fn db_error(e: postgres::Error) -> HostError {
    if is_unreachable(&e) {
        HostError::StoreUnavailable(format!("PostgreSQL cannot be reached: {e}"))
    } else {
        let detail = e
            .as_db_error()
            .map_or_else(|| e.to_string(), |db| db.message().to_string());
        HostError::Internal(format!("the match store failed: {detail}"))
    }
}

/// What readies a session for the store's statements (see [`by_key`]).
pub(super) const BY_KEY: &str = "SET enable_seqscan = off; SET jit = off";

/// Readies a new connection for the store's statements, every one of which
/// finds its rows through a key or an index. The planner, whose statistics
/// of a young table are stale, may still choose to scan a whole table (the
/// log, on every read or batch) in the plan it keeps for a prepared
/// statement, and keep it as the table grows: scans are off for the
/// session, so each row is found through its index. So is JIT compilation,
/// which the cost of a plan that must still scan (the one-row lifecycle
/// counter) would then start on every statement, for milliseconds each.
pub(super) fn by_key(mut connection: Connection) -> HostResult<Connection> {
    round_trips(1);
    connection.client.batch_execute(BY_KEY).map_err(db_error)?;
    Ok(connection)
}

/// One connection and the statements prepared on it: every action runs
/// the same few statements, and a prepared one costs one round trip
/// instead of two.
pub(super) struct Connection {
    pub(super) client: Client,
    pub(super) statements: HashMap<String, Statement>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("closed", &self.client.is_closed())
            .field("statements", &self.statements.len())
            .finish()
    }
}

impl Connection {
    /// Whether the connection is known to be broken.
    pub(super) fn is_closed(&self) -> bool {
        self.client.is_closed()
    }
}

/// Counts `count` requests sent to the server and waited on (the
/// `tabletop_store_round_trips` metric): what a write or read costs in
/// waits on the network, apart from the server's work.
pub(super) fn round_trips(count: u64) {
    crate::metrics::metrics().store_round_trips(count);
}

/// Runs statements through a connection's cache, on a transaction (or a
/// savepoint of one) or on the connection itself.
pub(super) struct Prepared<'a, C: postgres::GenericClient> {
    pub(super) client: &'a mut C,
    pub(super) statements: &'a mut HashMap<String, Statement>,
}

impl<C: postgres::GenericClient> Prepared<'_, C> {
    fn statement(&mut self, sql: &str) -> HostResult<Statement> {
        if let Some(statement) = self.statements.get(sql) {
            return Ok(statement.clone());
        }
        round_trips(1);
        let statement = self.client.prepare(sql).map_err(db_error)?;
        self.statements.insert(sql.to_string(), statement.clone());
        Ok(statement)
    }

    /// Runs `step` and judges its answer: the last lifecycle row it wrote,
    /// if it wrote any.
    pub(super) fn run(&mut self, step: &Step) -> HostResult<Option<u64>> {
        let params = step.params();
        let answer = if step.wants_rows() {
            Answer::Rows(self.query(step.sql, &params)?)
        } else {
            Answer::Changed(self.execute(step.sql, &params)?)
        };
        step.judge(answer)
    }

    /// Runs `sql`; the number of rows it changed.
    pub(super) fn execute(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> HostResult<u64> {
        let statement = self.statement(sql)?;
        round_trips(1);
        self.client.execute(&statement, params).map_err(db_error)
    }

    /// The rows `sql` answers.
    pub(super) fn query(
        &mut self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> HostResult<Vec<Row>> {
        let statement = self.statement(sql)?;
        round_trips(1);
        self.client.query(&statement, params).map_err(db_error)
    }

    /// The one row `sql` answers, if any.
    pub(super) fn query_opt(
        &mut self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> HostResult<Option<Row>> {
        let statement = self.statement(sql)?;
        round_trips(1);
        self.client.query_opt(&statement, params).map_err(db_error)
    }
}

/// Whether the store reaches its server, as last seen by any connection
/// attempt or statement; the health service follows it.
#[derive(Debug)]
pub(super) struct Reachability {
    sender: tokio::sync::watch::Sender<bool>,
}

impl Reachability {
    pub(super) fn new() -> Reachability {
        Reachability {
            sender: tokio::sync::watch::channel(true).0,
        }
    }

    /// Records what a call on the server just showed, logging each change
    /// once.
    pub(super) fn saw<T>(&self, target: &Target, outcome: &HostResult<T>) {
        let reachable = !matches!(outcome, Err(HostError::StoreUnavailable(_)));
        let changed = self.sender.send_if_modified(|was| {
            let changed = *was != reachable;
            *was = reachable;
            changed
        });
        match (changed, outcome) {
            (true, Err(e)) => {
                let why = match e {
                    HostError::StoreUnavailable(why) => why.clone(),
                    other => other.to_string(),
                };
                tracing::error!(
                    server = %target.name,
                    "the match store lost its database ({why}); calls that store anything are \
                     refused (UNAVAILABLE, reason STORE_UNAVAILABLE) until it is back"
                )
            }
            (true, Ok(_)) => {
                tracing::info!(server = %target.name, "the match store reaches its database again")
            }
            _ => {}
        }
    }

    pub(super) fn is_reachable(&self) -> bool {
        *self.sender.borrow()
    }

    pub(super) fn subscribe(&self) -> tokio::sync::watch::Receiver<bool> {
        self.sender.subscribe()
    }
}
