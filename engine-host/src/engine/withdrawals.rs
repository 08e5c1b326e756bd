//! What ends an open stream besides its own end: the withdrawal of what
//! opened it. A revoked organizer credential and a re-issued seat token
//! refuse every new call at once, and a stream opened with one of them
//! (a lifecycle feed, a watch) must not outlive it: each is told of every
//! withdrawal, and one that concerns it asks again whether what it was
//! opened with still holds ([`super::Engine::still_open`]) — the same
//! check a new call makes, so the stream ends with the answer a new call
//! gets.

use tokio::sync::broadcast;

use super::access::Caller;

/// Withdrawals told at once before a stream that does not keep up is told
/// it missed some (and checks everything it was opened with).
const TOLD_AT_ONCE: usize = 256;

/// Something that opened streams and opens nothing any more.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Withdrawn {
    /// The organizer credential with this id was revoked.
    Credential(String),
    /// A seat's token was re-issued: its old one is withdrawn.
    SeatToken {
        /// The match.
        match_id: String,
        /// The seat.
        seat: u32,
    },
}

/// The seat token a stream was opened with.
#[derive(Debug, Clone)]
pub struct SeatGrant {
    /// The match.
    pub match_id: String,
    /// The seat the token named when the stream opened.
    pub seat: u32,
    /// The token, checked again when the seat's token is re-issued.
    pub token: String,
}

/// What a stream was opened with: its caller's credential, and the seat
/// token it watches with, if any.
#[derive(Debug, Clone)]
pub struct OpenedWith {
    /// Who opened it.
    pub caller: Caller,
    /// The seat token it watches with.
    pub seat: Option<SeatGrant>,
}

impl OpenedWith {
    /// Whether anything it was opened with can be withdrawn: the admin
    /// token (from the server's configuration) and no credential at all
    /// cannot.
    pub fn can_be_withdrawn(&self) -> bool {
        matches!(self.caller, Caller::Organizer { .. }) || self.seat.is_some()
    }
}

impl Withdrawn {
    /// Whether this withdrawal may end a stream opened with `opened`.
    pub fn concerns(&self, opened: &OpenedWith) -> bool {
        match self {
            Withdrawn::Credential(id) => matches!(
                &opened.caller,
                Caller::Organizer { credential_id, .. } if credential_id == id
            ),
            Withdrawn::SeatToken { match_id, seat } => opened
                .seat
                .as_ref()
                .is_some_and(|grant| grant.match_id == *match_id && grant.seat == *seat),
        }
    }
}

/// Where withdrawals are told: every open stream that can be ended by
/// one subscribes before it checks what it was opened with, so a
/// withdrawal between the check and the subscription is not missed.
#[derive(Debug)]
pub struct Withdrawals {
    sender: broadcast::Sender<Withdrawn>,
}

impl Default for Withdrawals {
    fn default() -> Withdrawals {
        Withdrawals {
            sender: broadcast::channel(TOLD_AT_ONCE).0,
        }
    }
}

impl Withdrawals {
    /// Tells every subscribed stream of `withdrawn` (none listening is fine).
    pub fn tell(&self, withdrawn: Withdrawn) {
        let _ = self.sender.send(withdrawn);
    }

    /// Every withdrawal from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Withdrawn> {
        self.sender.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn organizer(id: &str) -> Caller {
        Caller::Organizer {
            credential_id: id.into(),
            name: "cup".into(),
            tenant: id.into(),
        }
    }

    #[test]
    fn a_withdrawal_concerns_only_what_it_withdraws() {
        let seat = |match_id: &str, seat| SeatGrant {
            match_id: match_id.into(),
            seat,
            token: "t".into(),
        };
        let feed = OpenedWith {
            caller: organizer("cred-a"),
            seat: None,
        };
        let watch = OpenedWith {
            caller: Caller::Anonymous,
            seat: Some(seat("m1", 1)),
        };
        let revoked = Withdrawn::Credential("cred-a".into());
        assert!(revoked.concerns(&feed));
        assert!(!revoked.concerns(&watch));
        assert!(!Withdrawn::Credential("cred-b".into()).concerns(&feed));
        let reissued = |match_id: &str, seat| Withdrawn::SeatToken {
            match_id: match_id.into(),
            seat,
        };
        assert!(reissued("m1", 1).concerns(&watch));
        assert!(!reissued("m1", 0).concerns(&watch));
        assert!(!reissued("m2", 1).concerns(&watch));
        assert!(!reissued("m1", 1).concerns(&feed));
    }

    #[test]
    fn only_an_organizer_credential_or_a_seat_token_can_be_withdrawn() {
        let opened = |caller, seat| OpenedWith { caller, seat };
        assert!(!opened(Caller::Anonymous, None).can_be_withdrawn());
        assert!(!opened(Caller::Admin, None).can_be_withdrawn());
        assert!(opened(organizer("cred-a"), None).can_be_withdrawn());
        let grant = SeatGrant {
            match_id: "m".into(),
            seat: 0,
            token: "t".into(),
        };
        assert!(opened(Caller::Admin, Some(grant)).can_be_withdrawn());
    }
}
