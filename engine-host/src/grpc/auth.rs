//! The caller of a gRPC call: the bearer credential in its metadata
//! (`authorization: Bearer SECRET`), or, for the calls that have one, the
//! request's `admin_token` field. What each caller may do is the engine's
//! business (`engine::access`); this only reads the secret.

use tabletop_core::HostError;
use tonic::metadata::MetadataMap;
use tonic::{Request, Status};

use super::services::Api;
use super::status::to_status;
use crate::engine::Caller;

/// The metadata key of the bearer credential.
pub const AUTHORIZATION: &str = "authorization";

/// The bearer secret of a call: the metadata's, or else `field` (a
/// request's `admin_token`); empty when there is neither. A malformed
/// `authorization` value is refused rather than read as anonymous.
pub fn bearer_secret(metadata: &MetadataMap, field: &str) -> Result<String, HostError> {
    let Some(value) = metadata.get(AUTHORIZATION) else {
        return Ok(field.to_string());
    };
    let text = value
        .to_str()
        .map_err(|_| HostError::InvalidRequest("the authorization metadata is not text".into()))?;
    let secret = parse_bearer(text)?;
    if !field.is_empty() && field != secret {
        return Err(HostError::InvalidRequest(
            "the request carries two different credentials (metadata and admin_token)".into(),
        ));
    }
    Ok(secret.to_string())
}

/// The secret of an `authorization` value, `Bearer SECRET`.
pub fn parse_bearer(text: &str) -> Result<&str, HostError> {
    text.strip_prefix("Bearer ")
        .or_else(|| text.strip_prefix("bearer "))
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| {
            HostError::InvalidRequest("the authorization metadata must read `Bearer SECRET`".into())
        })
}

impl Api {
    /// Who makes `request`; `field` is its `admin_token` (empty for calls
    /// without one).
    pub(super) fn caller<T>(&self, request: &Request<T>, field: &str) -> Result<Caller, Status> {
        bearer_secret(request.metadata(), field)
            .and_then(|secret| self.engine.authenticate(&secret))
            .map_err(to_status)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(value: &str) -> MetadataMap {
        let mut metadata = MetadataMap::new();
        metadata.insert(AUTHORIZATION, value.parse().expect("ascii"));
        metadata
    }

    #[test]
    fn the_metadata_credential_comes_first_and_the_field_is_the_fallback() {
        assert_eq!(bearer_secret(&with("Bearer s3"), "").unwrap(), "s3");
        assert_eq!(
            bearer_secret(&MetadataMap::new(), "admin").unwrap(),
            "admin"
        );
        assert_eq!(bearer_secret(&MetadataMap::new(), "").unwrap(), "");
        assert_eq!(bearer_secret(&with("Bearer same"), "same").unwrap(), "same");
    }

    #[test]
    fn malformed_or_conflicting_credentials_are_refused() {
        assert!(bearer_secret(&with("Basic abc"), "").is_err());
        assert!(bearer_secret(&with("Bearer "), "").is_err());
        assert!(bearer_secret(&with("Bearer one"), "two").is_err());
    }
}
