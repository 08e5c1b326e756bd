//! The connection every command uses: a channel to the server, over TLS
//! when given a CA file, that sends the caller's credential, if any, as
//! `authorization: Bearer SECRET` metadata on every call.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tonic::metadata::MetadataValue;
use tonic::service::Interceptor;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Identity};

use crate::error::CliError;

/// A channel that carries the caller's credential.
pub type Conn = InterceptedService<Channel, Bearer>;

/// Adds `authorization: Bearer SECRET` to each request when a credential is
/// configured; anonymous otherwise.
#[derive(Debug, Clone)]
pub struct Bearer(Option<MetadataValue<tonic::metadata::Ascii>>);

impl Bearer {
    /// A credential from `--credential` / `TABLETOP_CREDENTIAL`; empty means
    /// anonymous.
    pub fn new(secret: &str) -> Result<Self, CliError> {
        if secret.is_empty() {
            return Ok(Bearer(None));
        }
        MetadataValue::try_from(format!("Bearer {secret}"))
            .map(|value| Bearer(Some(value)))
            .map_err(|_| CliError::Usage("the credential must be printable ASCII".into()))
    }
}

impl Interceptor for Bearer {
    fn call(
        &mut self,
        mut request: tonic::Request<()>,
    ) -> Result<tonic::Request<()>, tonic::Status> {
        if let Some(value) = &self.0 {
            request
                .metadata_mut()
                .insert("authorization", value.clone());
        }
        Ok(request)
    }
}

/// TLS settings: the CA that signs the server's certificate, and the
/// client's own certificate and key (PEM files).
#[derive(Debug, Clone, Default)]
pub struct Tls {
    /// `None`: plaintext.
    pub ca_file: Option<PathBuf>,
    /// (certificate, key).
    pub client_cert: Option<(PathBuf, PathBuf)>,
}

fn read_pem(path: &Path, what: &str) -> Result<Vec<u8>, CliError> {
    std::fs::read(path)
        .map_err(|e| CliError::Usage(format!("cannot read the {what} {}: {e}", path.display())))
}

impl Tls {
    /// The client's TLS configuration, if TLS is on.
    fn config(&self) -> Result<Option<ClientTlsConfig>, CliError> {
        let Some(ca) = &self.ca_file else {
            return Ok(None);
        };
        let mut config =
            ClientTlsConfig::new().ca_certificate(Certificate::from_pem(read_pem(ca, "CA file")?));
        if let Some((cert, key)) = &self.client_cert {
            config = config.identity(Identity::from_pem(
                read_pem(cert, "client certificate")?,
                read_pem(key, "client key")?,
            ));
        }
        Ok(Some(config))
    }
}

/// How long a connection may take to open when there is another address
/// to try; and how often, and for how long, a quiet connection is checked
/// with a ping, so that a watch on a host that vanished (no reset ever
/// comes) moves on too.
const ONE_OF_SEVERAL_WAIT: Duration = Duration::from_secs(5);

/// Connects to `server`, over TLS if `tls` says, sending `credential` with
/// every call. `one_of_several`: another address can be tried, so a
/// server that does not answer is given up on sooner.
pub async fn connect(
    server: &str,
    credential: &str,
    tls: &Tls,
    one_of_several: bool,
) -> Result<Conn, CliError> {
    let bearer = Bearer::new(credential)?;
    let tls = tls.config()?;
    // Without a CA the client has nothing to check the server's
    // certificate with, and the call would fail with a bare "operation was
    // canceled".
    if tls.is_none() && server.starts_with("https://") {
        return Err(CliError::Usage(format!(
            "{server} is a TLS server: give its CA certificate with --ca-file (or \
             TABLETOP_CA_FILE)"
        )));
    }
    let address = match (&tls, server.strip_prefix("http://")) {
        (Some(_), Some(rest)) => format!("https://{rest}"),
        // `host:port`, as the other clients and grpcurl take it.
        (tls, None) if !server.contains("://") => {
            let scheme = if tls.is_some() { "https" } else { "http" };
            format!("{scheme}://{server}")
        }
        _ => server.to_string(),
    };
    let mut endpoint = Channel::from_shared(address)
        .map_err(|e| CliError::Usage(format!("bad server address `{server}`: {e}")))?;
    if let Some(tls) = tls {
        endpoint = endpoint
            .tls_config(tls)
            .map_err(|e| CliError::Usage(format!("cannot use the TLS files: {e}")))?;
    }
    if one_of_several {
        endpoint = endpoint
            .connect_timeout(ONE_OF_SEVERAL_WAIT)
            .http2_keep_alive_interval(ONE_OF_SEVERAL_WAIT)
            .keep_alive_timeout(ONE_OF_SEVERAL_WAIT)
            .keep_alive_while_idle(true);
    }
    let channel = endpoint.connect().await.map_err(|e| {
        let mut why = e.to_string();
        let _ = crate::error::write_sources(&mut why, &e);
        CliError::Connect(server.to_string(), why)
    })?;
    Ok(InterceptedService::new(channel, bearer))
}
