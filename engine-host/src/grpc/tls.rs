//! TLS for the gRPC listener (rustls, through tonic): the server's
//! certificate chain and key from PEM files, and optionally a CA whose
//! client certificates the Admin service requires; and the client side a
//! host forwards calls to other TLS hosts with ([`peer_config`]).
//!
//! A client certificate is asked for on every connection but required by
//! none at the handshake (`client_auth_optional`): rustls verifies any
//! certificate a client presents against the CA, and the tower layer then
//! refuses Admin calls on a connection without one (UNAUTHENTICATED,
//! reason CLIENT_CERTIFICATE_REQUIRED). So players and spectators connect
//! with the server's CA alone, and only the admin needs a client key.

use std::path::{Path, PathBuf};

use tonic::transport::{Certificate, ClientTlsConfig, Identity, ServerTlsConfig};

/// Where the listener's TLS material is.
#[derive(Debug, Clone)]
pub struct TlsFiles {
    /// The certificate chain, PEM.
    pub cert: PathBuf,
    /// The private key, PEM.
    pub key: PathBuf,
    /// The CA that signs admin client certificates, PEM.
    pub client_ca: Option<PathBuf>,
}

fn read(path: &Path, what: &str) -> Result<Vec<u8>, String> {
    let bytes = std::fs::read(path)
        .map_err(|e| format!("cannot read the TLS {what} {}: {e}", path.display()))?;
    if !bytes.windows(11).any(|w| w == b"-----BEGIN ") {
        return Err(format!(
            "the TLS {what} {} is not PEM (no `-----BEGIN` line)",
            path.display()
        ));
    }
    Ok(bytes)
}

impl TlsFiles {
    /// The server's TLS configuration, or a one-line reason it cannot be
    /// made (a file missing, unreadable or not PEM).
    pub fn server_config(&self) -> Result<ServerTlsConfig, String> {
        let cert = read(&self.cert, "certificate")?;
        let key = read(&self.key, "key")?;
        let mut config = ServerTlsConfig::new().identity(Identity::from_pem(cert, key));
        if let Some(ca) = &self.client_ca {
            config = config
                .client_ca_root(Certificate::from_pem(read(ca, "client CA")?))
                .client_auth_optional(true);
        }
        // Parse it now, so a bad certificate or key stops the start with
        // its reason rather than the first connection.
        tonic::transport::Server::builder()
            .tls_config(config.clone())
            .map_err(|e| format!("the TLS certificate or key cannot be used: {e}"))?;
        Ok(config)
    }
}

/// How this host checks the certificates of the hosts it forwards calls
/// to over TLS: against `peer_ca` (PEM) when given, else against the
/// system's trusted roots. The name checked is the host part of the
/// address each host advertises.
pub fn peer_config(peer_ca: Option<&Path>) -> Result<ClientTlsConfig, String> {
    let config = ClientTlsConfig::new().assume_http2(true);
    Ok(match peer_ca {
        Some(path) => config.ca_certificate(Certificate::from_pem(read(path, "peer CA")?)),
        None => config.with_native_roots(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_or_non_pem_files_are_refused_with_their_path() {
        let dir = tempfile::tempdir().unwrap();
        let junk = dir.path().join("junk.pem");
        std::fs::write(&junk, "not a certificate").unwrap();
        let missing = TlsFiles {
            cert: dir.path().join("nope.pem"),
            key: junk.clone(),
            client_ca: None,
        };
        let e = missing.server_config().unwrap_err();
        assert!(e.contains("nope.pem"), "{e}");
        let not_pem = TlsFiles {
            cert: junk.clone(),
            key: junk,
            client_ca: None,
        };
        let e = not_pem.server_config().unwrap_err();
        assert!(e.contains("not PEM"), "{e}");
        let e = peer_config(Some(&dir.path().join("peer.pem"))).unwrap_err();
        assert!(e.contains("peer CA") && e.contains("peer.pem"), "{e}");
    }
}
