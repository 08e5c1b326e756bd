//! The writer's connection: the asynchronous client, driven by a runtime
//! of the writer thread's own, so that a batch's statements — `BEGIN`,
//! every write's steps — go to the server together and are answered in one
//! round trip, where the synchronous client waits for each in turn (a
//! batch holding a creation and an end would be ~8 round trips). The server
//! still runs them one after another, in the order sent; the writer judges
//! every answer before it sends `COMMIT`, so a write that must fail is
//! never committed by a pipeline that ran on past it.

use std::collections::HashMap;

use futures_util::future::join_all;
use postgres::types::ToSql;
use postgres::{NoTls, Statement};
use tabletop_core::{HostError, HostResult};
use tokio_postgres::Client;

use super::connect::{BY_KEY, Target, db_error, round_trips};
use super::step::Answer;

/// How the writer's session is readied besides [`BY_KEY`]: joins by
/// nested loops over index probes only. Every statement of the writer
/// finds its rows through a key, yet a plan made while the tables are
/// young (the server keeps one per prepared statement, and may keep it as
/// the tables grow) judged reading every match into a hash or a bitmap as
/// cheap as probing for the batch's few: a plan that costs more with each
/// match stored.
const PROBES_ONLY: &str =
    "SET enable_hashjoin = off; SET enable_mergejoin = off; SET enable_bitmapscan = off";

/// One request of a pipeline.
pub(super) enum Request<'a> {
    /// Statements with no parameters, run as they are (`BEGIN`, `COMMIT`,
    /// `SAVEPOINT …`).
    Simple(&'static str),
    /// A statement (prepared once per connection) and its parameters;
    /// `rows`: its rows are wanted, not only their number.
    Statement {
        sql: &'static str,
        params: Vec<&'a (dyn ToSql + Sync)>,
        rows: bool,
    },
}

/// The writer's connection and the statements prepared on it.
pub(super) struct Pipeline {
    /// Drives the connection while the writer waits on a request; the
    /// connection's task ends with it.
    runtime: tokio::runtime::Runtime,
    client: Client,
    statements: HashMap<&'static str, Statement>,
}

impl std::fmt::Debug for Pipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pipeline")
            .field("closed", &self.client.is_closed())
            .field("statements", &self.statements.len())
            .finish()
    }
}

impl Pipeline {
    /// Connects to `target`, the session readied as every store session is
    /// (`connect::by_key`). Must not be called on a thread that runs async
    /// tasks.
    pub(super) fn open(target: &Target) -> HostResult<Pipeline> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| HostError::Internal(format!("cannot start the store writer: {e}")))?;
        let (client, connection) = runtime
            .block_on(target.config().connect(NoTls))
            .map_err(|e| target.unreachable(e))?;
        // A broken connection ends this task; the client then answers every
        // request with a closed-connection error.
        runtime.spawn(connection);
        let mut pipeline = Pipeline {
            runtime,
            client,
            statements: HashMap::new(),
        };
        let readied = pipeline.send(&[Request::Simple(BY_KEY), Request::Simple(PROBES_ONLY)])?;
        if let Some(e) = readied.into_iter().find_map(Result::err) {
            return Err(db_error(e));
        }
        Ok(pipeline)
    }

    /// Whether the connection is known to be broken.
    pub(super) fn is_closed(&self) -> bool {
        self.client.is_closed()
    }

    /// Sends every request at once, in order, and waits for every answer:
    /// one round trip, and one more first when a statement is new to the
    /// connection. `Err` when a statement could not be prepared (nothing
    /// was run); otherwise each request's own answer, a failure among them
    /// leaving the rest of a transaction aborted, as PostgreSQL does.
    pub(super) fn send(
        &mut self,
        requests: &[Request<'_>],
    ) -> HostResult<Vec<Result<Answer, postgres::Error>>> {
        let mut new: Vec<&'static str> = Vec::new();
        for request in requests {
            if let Request::Statement { sql, .. } = request
                && !self.statements.contains_key(sql)
                && !new.contains(sql)
            {
                new.push(sql);
            }
        }
        let Pipeline {
            runtime,
            client,
            statements,
        } = self;
        if !new.is_empty() {
            round_trips(1);
            let prepared = runtime.block_on(join_all(new.iter().map(|sql| client.prepare(sql))));
            for (sql, statement) in new.into_iter().zip(prepared) {
                statements.insert(sql, statement.map_err(db_error)?);
            }
        }
        round_trips(1);
        let statements = &*statements;
        let client = &*client;
        let answers = requests.iter().map(|request| async move {
            match request {
                Request::Simple(sql) => {
                    client.batch_execute(sql).await.map(|()| Answer::Changed(0))
                }
                Request::Statement { sql, params, rows } => {
                    let statement = &statements[*sql];
                    if *rows {
                        client.query(statement, params).await.map(Answer::Rows)
                    } else {
                        client.execute(statement, params).await.map(Answer::Changed)
                    }
                }
            }
        });
        Ok(runtime.block_on(join_all(answers)))
    }
}
