//! The connection every command uses: a channel to the server that sends the
//! caller's credential, if any, as `authorization: Bearer SECRET` metadata on
//! every call.

use tonic::metadata::MetadataValue;
use tonic::service::Interceptor;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

use crate::commands::CliError;

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

/// Connects to `server`, sending `credential` with every call.
pub async fn connect(server: &str, credential: &str) -> Result<Conn, CliError> {
    let bearer = Bearer::new(credential)?;
    let endpoint = Channel::from_shared(server.to_string())
        .map_err(|e| CliError::Usage(format!("bad server address `{server}`: {e}")))?;
    let channel = endpoint
        .connect()
        .await
        .map_err(|e| CliError::Connect(server.to_string(), e.to_string()))?;
    Ok(InterceptedService::new(channel, bearer))
}
