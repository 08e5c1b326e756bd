//! How a command fails: one line, the gRPC status code and the server's
//! message, or what was wrong locally.

use std::fmt;

/// A failure of the command, printed as one line.
#[derive(Debug)]
pub enum CliError {
    /// The server could not be reached.
    Connect(String, String),
    /// The server refused the request.
    Status(tonic::Status),
    /// Bad command-line input.
    Usage(String),
    /// Local I/O failed.
    Io(std::io::Error),
    /// A SubmitAction whose first try got no answer, and whose second, on
    /// another server, was refused as an action already applied would be:
    /// the first was most likely applied.
    MaybeApplied {
        /// Why the first try got no answer.
        first: Box<tonic::Status>,
        /// The refusal of the second.
        refusal: Box<tonic::Status>,
    },
    /// No address of several answered within the patience; the last
    /// failure.
    GaveUp {
        /// How many addresses were tried.
        addresses: usize,
        /// For how long.
        seconds: u64,
        /// What the last one said.
        last: Box<CliError>,
    },
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Connect(server, e) => write!(f, "cannot connect to {server}: {e}"),
            CliError::Status(s) => {
                write!(f, "{:?}: {}", s.code(), s.message())?;
                write_sources(f, s)
            }
            CliError::Usage(m) => f.write_str(m),
            CliError::Io(e) => write!(f, "{e}"),
            CliError::MaybeApplied { first, refusal } => write!(
                f,
                "the action may have been applied (it cannot apply twice): its first try got \
                 no answer ({:?}), and the retry on the next server was refused: {:?}: {}",
                first.code(),
                refusal.code(),
                refusal.message()
            ),
            CliError::GaveUp {
                addresses,
                seconds,
                last,
            } => write!(
                f,
                "none of the {addresses} servers answered for {seconds} s; the last: {last}"
            ),
        }
    }
}

/// Writes the causes of `error`, each after `: `. A failure below gRPC (TLS,
/// the connection) says what it was only in its sources: "transport error"
/// alone does not name the certificate a TLS handshake refused.
pub fn write_sources(f: &mut impl fmt::Write, error: &dyn std::error::Error) -> fmt::Result {
    let mut source = error.source();
    while let Some(cause) = source {
        write!(f, ": {cause}")?;
        source = cause.source();
    }
    Ok(())
}

impl From<tonic::Status> for CliError {
    fn from(s: tonic::Status) -> Self {
        CliError::Status(s)
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        CliError::Io(e)
    }
}

pub(crate) type CliResult = Result<(), CliError>;
