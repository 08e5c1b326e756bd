//! The one place where domain errors become gRPC statuses.

use tonic::{Code, Status};

use crate::core::error::HostError;

/// Maps a domain error to its status code, keeping the message.
pub fn to_status(error: HostError) -> Status {
    let code = match &error {
        HostError::InvalidArgument(_) => Code::InvalidArgument,
        HostError::NotFound(_) => Code::NotFound,
        HostError::FailedPrecondition(_) => Code::FailedPrecondition,
        HostError::Unauthenticated(_) => Code::Unauthenticated,
        HostError::PermissionDenied(_) => Code::PermissionDenied,
        HostError::Unavailable(_) => Code::Unavailable,
        HostError::Internal(_) => Code::Internal,
    };
    if code == Code::Internal {
        tracing::error!(error = %error, "internal error");
    }
    Status::new(code, error.message().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_domain_error_has_its_own_code() {
        let cases = [
            (
                HostError::InvalidArgument("a".into()),
                Code::InvalidArgument,
            ),
            (HostError::NotFound("b".into()), Code::NotFound),
            (
                HostError::FailedPrecondition("c".into()),
                Code::FailedPrecondition,
            ),
            (
                HostError::Unauthenticated("d".into()),
                Code::Unauthenticated,
            ),
            (
                HostError::PermissionDenied("e".into()),
                Code::PermissionDenied,
            ),
            (HostError::Unavailable("f".into()), Code::Unavailable),
            (HostError::Internal("g".into()), Code::Internal),
        ];
        for (error, code) in cases {
            let message = error.message().to_string();
            let status = to_status(error);
            assert_eq!(status.code(), code);
            assert_eq!(status.message(), message);
        }
    }
}
