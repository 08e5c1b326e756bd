//! Several server addresses (`--server a:1,b:2,c:3`): the CLI talks to the
//! first that answers and, when a call fails because its server is gone
//! (UNAVAILABLE, or the connection cannot be made or breaks), moves to the
//! next address, round robin, and calls again.
//!
//! Only a call that cannot apply twice is called again after it may have
//! reached a server ([`Retry::Safe`]): reads, a SubmitAction that carries
//! its expected version (the server refuses a stale one, so a retry of an
//! action that was applied is refused), a CreateMatch with a request id (a
//! retry answers the same match; `new` gives every creation one when the
//! CLI holds a credential, which request ids need). Any other call is
//! called again only when it never left this machine (the connection was
//! refused).
//!
//! Between full rounds of the addresses the CLI pauses [`ROUND_PAUSE`]; it
//! gives up [`PATIENCE`] after the first failure, with the last error. With
//! one address nothing is retried: the error comes at once, as it always did.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tonic::Code;
use tonic_types::StatusExt;

use crate::connection::{Conn, Tls};
use crate::error::CliError;

/// How long the CLI goes on trying after a failure before it gives up.
pub const PATIENCE: Duration = Duration::from_secs(15);
/// The pause after every address failed once in a row: a host that is
/// restarting gets a moment, and a dead list is not hammered.
pub const ROUND_PAUSE: Duration = Duration::from_millis(200);

/// Whether a call may be made again after a failure that may have come
/// after the server received it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    /// A read, or a change that cannot apply twice.
    Safe,
    /// A change that could apply twice: called again only when it never
    /// reached a server.
    NotSent,
}

/// The addresses, and the one in use with its connection.
#[derive(Debug, Clone)]
pub struct Servers {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    addresses: Vec<String>,
    credential: String,
    tls: Tls,
    current: Mutex<Current>,
}

#[derive(Debug, Default)]
struct Current {
    /// Index into the addresses.
    at: usize,
    /// Its connection, once made.
    conn: Option<Conn>,
}

/// One stretch of failures: when it began, and how many addresses failed
/// in it. A call that succeeds ends it.
#[derive(Debug)]
pub struct Outage {
    since: Instant,
    failures: usize,
}

impl Servers {
    /// The addresses of `list` (comma-separated), talked to with
    /// `credential` over `tls`.
    pub fn new(list: &str, credential: &str, tls: &Tls) -> Result<Servers, CliError> {
        let addresses: Vec<String> = list
            .split(',')
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .map(String::from)
            .collect();
        if addresses.is_empty() {
            return Err(CliError::Usage(format!(
                "--server `{list}` names no address"
            )));
        }
        Ok(Servers {
            shared: Arc::new(Shared {
                addresses,
                credential: credential.to_string(),
                tls: tls.clone(),
                current: Mutex::new(Current::default()),
            }),
        })
    }

    /// Whether calls carry a credential.
    pub fn has_credential(&self) -> bool {
        !self.shared.credential.is_empty()
    }

    /// Whether there is another address to move to.
    pub fn several(&self) -> bool {
        self.shared.addresses.len() > 1
    }

    fn current(&self) -> std::sync::MutexGuard<'_, Current> {
        // A panic while holding the lock leaves a plain index and an
        // optional channel, both still valid.
        self.shared
            .current
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The connection to the address in use, made if needed; addresses
    /// that cannot be reached are passed over (with several). Returns the
    /// address's index too, for [`Servers::move_on`].
    pub async fn conn(&self, outage: &mut Option<Outage>) -> Result<(usize, Conn), CliError> {
        loop {
            let (at, made) = {
                let current = self.current();
                (current.at, current.conn.clone())
            };
            if let Some(conn) = made {
                return Ok((at, conn));
            }
            let address = &self.shared.addresses[at];
            let several = self.several();
            match crate::connection::connect(
                address,
                &self.shared.credential,
                &self.shared.tls,
                several,
            )
            .await
            {
                Ok(conn) => {
                    let mut current = self.current();
                    if current.at == at {
                        current.conn = Some(conn.clone());
                    }
                    return Ok((at, conn));
                }
                Err(error @ CliError::Connect(..)) if several => {
                    self.move_on(at, outage, error).await?;
                }
                Err(error) => return Err(error),
            }
        }
    }

    /// The connection to the first address that answers, for commands
    /// that make one call that must not be repeated, or many.
    pub async fn first_answering(&self) -> Result<Conn, CliError> {
        Ok(self.conn(&mut None).await?.1)
    }

    /// After address `at` failed with `error`: the next address is used
    /// from now on, after a pause if every address failed in a row; or
    /// `error` once [`PATIENCE`] has passed since the outage began.
    pub async fn move_on(
        &self,
        at: usize,
        outage: &mut Option<Outage>,
        error: CliError,
    ) -> Result<(), CliError> {
        let count = self.shared.addresses.len();
        let outage = outage.get_or_insert_with(|| Outage {
            since: Instant::now(),
            failures: 0,
        });
        if count < 2 || outage.since.elapsed() >= PATIENCE {
            return Err(if count < 2 {
                error
            } else {
                CliError::GaveUp {
                    addresses: count,
                    seconds: PATIENCE.as_secs(),
                    last: Box::new(error),
                }
            });
        }
        {
            let mut current = self.current();
            // Another task may have moved on already: move once.
            if current.at == at {
                current.at = (at + 1) % count;
                current.conn = None;
            }
        }
        outage.failures += 1;
        if outage.failures.is_multiple_of(count) {
            tokio::time::sleep(ROUND_PAUSE).await;
        }
        Ok(())
    }

    /// Makes `call` with `request` on the address in use, moving on to the
    /// next and calling again when the server is gone and `retry` allows;
    /// the response's message.
    pub async fn call<R, T, F, Fut>(&self, retry: Retry, request: R, call: F) -> Result<T, CliError>
    where
        R: Clone,
        F: Fn(Conn, R) -> Fut,
        Fut: Future<Output = Result<tonic::Response<T>, tonic::Status>>,
    {
        let mut outage = None;
        loop {
            let (at, conn) = self.conn(&mut outage).await?;
            match call(conn, request.clone()).await {
                Ok(response) => return Ok(response.into_inner()),
                Err(status) if self.several() && may_call_again(retry, &status) => {
                    self.move_on(at, &mut outage, status.into()).await?;
                }
                Err(status) => return Err(status.into()),
            }
        }
    }
}

/// Whether a call that failed with `status` may be made again elsewhere.
pub fn may_call_again(retry: Retry, status: &tonic::Status) -> bool {
    match retry {
        Retry::Safe => server_gone(status),
        Retry::NotSent => never_sent(status),
    }
}

/// Whether `status` says the server is gone (or going), rather than
/// answering the call: UNAVAILABLE from the server (other than a stream
/// cut for reading too slowly, which resumes on the same server), or a
/// failure of the connection itself. A status the server sent has no
/// source; one made here from a broken connection has one.
pub fn server_gone(status: &tonic::Status) -> bool {
    match status.code() {
        Code::Unavailable => status
            .get_details_error_info()
            .is_none_or(|info| info.reason != "STREAM_FELL_BEHIND"),
        Code::Unknown | Code::Internal | Code::Cancelled => {
            std::error::Error::source(status).is_some()
        }
        _ => false,
    }
}

/// Whether the call failed before it left this machine: its connection
/// was refused.
pub fn never_sent(status: &tonic::Status) -> bool {
    let mut source = std::error::Error::source(status);
    while let Some(cause) = source {
        if let Some(io) = cause.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::ConnectionRefused
        {
            return true;
        }
        source = cause.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic_types::ErrorDetails;

    fn with_reason(reason: &str) -> tonic::Status {
        let details = ErrorDetails::with_error_info(reason, "tabletop", []);
        tonic::Status::with_error_details(Code::Unavailable, "gone", details)
    }

    #[test]
    fn a_list_is_split_on_commas_and_an_empty_one_refused() {
        let servers = Servers::new(" a:1, b:2,,c:3 ", "", &Tls::default()).unwrap();
        assert_eq!(servers.shared.addresses, ["a:1", "b:2", "c:3"]);
        assert!(servers.several());
        assert!(!Servers::new("a:1", "", &Tls::default()).unwrap().several());
        assert!(Servers::new(" , ", "", &Tls::default()).is_err());
    }

    #[test]
    fn unavailable_moves_on_but_a_slow_readers_cut_and_a_refusal_do_not() {
        assert!(server_gone(&tonic::Status::unavailable("down")));
        assert!(server_gone(&with_reason("SHUTTING_DOWN")));
        assert!(!server_gone(&with_reason("STREAM_FELL_BEHIND")));
        assert!(!server_gone(&tonic::Status::failed_precondition("stale")));
        // The server's own Unknown is an answer, not a broken connection.
        assert!(!server_gone(&tonic::Status::unknown("plugin said no")));
    }

    #[test]
    fn only_a_refused_connection_counts_as_never_sent() {
        let refused = tonic::Status::from_error(Box::new(std::io::Error::from(
            std::io::ErrorKind::ConnectionRefused,
        )));
        assert!(never_sent(&refused));
        assert!(!may_call_again(
            Retry::NotSent,
            &tonic::Status::unavailable("down")
        ));
        assert!(may_call_again(
            Retry::Safe,
            &tonic::Status::unavailable("down")
        ));
    }

    #[tokio::test]
    async fn moving_on_goes_round_the_list_and_gives_up_with_the_last_error() {
        let servers = Servers::new("a:1,b:2", "", &Tls::default()).unwrap();
        let mut outage = None;
        servers
            .move_on(0, &mut outage, CliError::Usage("first".into()))
            .await
            .unwrap();
        assert_eq!(servers.current().at, 1);
        servers
            .move_on(1, &mut outage, CliError::Usage("second".into()))
            .await
            .unwrap();
        assert_eq!(servers.current().at, 0, "round robin");
        // Moving on from an address no longer in use moves nothing.
        servers
            .move_on(1, &mut outage, CliError::Usage("late".into()))
            .await
            .unwrap();
        assert_eq!(servers.current().at, 0);
        if let Some(outage) = outage.as_mut() {
            outage.since -= PATIENCE;
        }
        let given_up = servers
            .move_on(0, &mut outage, CliError::Usage("last".into()))
            .await
            .unwrap_err();
        assert!(given_up.to_string().ends_with("last"), "{given_up}");
    }
}
