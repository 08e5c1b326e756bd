//! Charging a player's call to its seat: the gRPC layer sees only metadata,
//! and a seat token travels in the request, so a call without a credential
//! to a method that takes one is charged here, by its handler, once the
//! token is read ([`SeatCharge`]).

use std::time::Instant;

use tonic::{Request, Status};

use super::layer::refusal_status;
use super::limits::{SeatCharge, Unproven};
use crate::metrics::metrics;

/// A charged call: what to tell the charge when the call succeeds.
#[derive(Debug)]
pub(super) struct Charged(Option<(SeatCharge, Unproven)>);

impl Charged {
    /// The call succeeded: its token is a seat's and gets a bucket.
    pub(super) fn succeeded(self) {
        if let Some((charge, token)) = self.0 {
            charge.proven(token, Instant::now());
        }
    }
}

/// Charges `request`, which presents `token` (empty: none), when the layer
/// left it to its handler; refuses it when its seat's bucket (or the
/// anonymous one) is empty.
pub(super) fn charge<T>(request: &Request<T>, token: &str) -> Result<Charged, Status> {
    let Some(charge) = request.extensions().get::<SeatCharge>() else {
        return Ok(Charged(None));
    };
    match charge.charge(token, Instant::now()) {
        Ok(unproven) => Ok(Charged(unproven.map(|token| (charge.clone(), token)))),
        Err(refusal) => {
            metrics().refused(refusal.kind);
            if let Some(count) = refusal.log {
                tracing::warn!(
                    limit = refusal.kind.name(),
                    credential = %refusal.key,
                    max = refusal.limit,
                    retry_after_ms = refusal.retry_after.as_millis() as u64,
                    refused = count,
                    "call refused by a limit"
                );
            }
            Err(refusal_status(&refusal))
        }
    }
}
