//! Who is calling, and what they may do.
//!
//! A call carries at most one bearer credential (gRPC metadata
//! `authorization: Bearer SECRET`, or a request's `admin_token` field): the
//! admin token from the server's configuration, or an organizer credential
//! the admin issued. Without one the caller is anonymous. Seat tokens and
//! join codes are not bearer credentials: they name one seat of one match,
//! and travel in the requests that act for that seat.
//!
//! | call | anonymous | organizer | admin |
//! |---|---|---|---|
//! | catalog, public views, listings, Watch and ListEvents as a spectator, finished records | yes | yes | yes |
//! | CreateMatch (no seed, no hidden-information start position) | unless `--anonymous-create deny` | yes | yes |
//! | CreateMatch with a seed or a hidden-information start position | no | yes | yes |
//! | JoinMatch of an invite-only seat | with its join code | yes | yes |
//! | Director: feed, abort, adjudicate, pause, resume, add time, re-issue a seat token | no | its tenant's matches | yes |
//! | ExportRecord of a running match | no | its tenant's matches | yes |
//! | ImportRecord, plugins, backups, credentials | no | no | yes |
//!
//! Every organizer credential belongs to a tenant (by default one of its
//! own, named after its id), and every match to the tenant of the
//! organizer who created it; the admin's tenant (empty) holds the rest. An
//! organizer runs only its tenant's matches; the admin runs all of them.
//!
//! Credentials are stored as SHA-256 hashes; a revoked one is refused at
//! once, by every call that presents it, and ends the streams it opened
//! (see `withdrawals`). The issued secrets are 128-bit random, so a plain hash is enough
//! (nothing to brute-force).

use std::collections::HashMap;
use std::sync::{Arc, RwLock, RwLockWriteGuard};

use tabletop_core::error::Credential;
use tabletop_core::tokens::{hash_token, hashes_equal, new_token};
use tabletop_core::{HostError, HostResult, check_tenant, now_ms};

use crate::store::{Store, StoredCredential};

/// The role an organizer credential is stored with.
pub const ORGANIZER_ROLE: &str = "organizer";

/// The creator key of every match an anonymous caller creates.
pub const ANONYMOUS_CREATOR: &str = "anonymous";

/// The creator key of the matches the admin creates or imports.
pub const ADMIN_CREATOR: &str = "admin";

/// Longest credential name, in characters.
pub const MAX_CREDENTIAL_NAME: usize = 64;

/// Who is calling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    /// No credential.
    Anonymous,
    /// An organizer credential: its id, name and tenant.
    Organizer {
        /// The credential's id.
        credential_id: String,
        /// Who it was issued to.
        name: String,
        /// The tenant whose matches it runs (never empty: that is the
        /// admin's).
        tenant: String,
    },
    /// The admin token.
    Admin,
}

/// What a call needs of its caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// An organizer credential or the admin token.
    Organizer,
    /// The admin token.
    Admin,
}

impl Caller {
    /// Refuses a caller who may not do `what`: an anonymous caller is asked
    /// for a credential, an organizer asking for an admin's call is told it
    /// needs more.
    pub fn require(&self, need: Need, what: &str) -> HostResult<()> {
        match (self, need) {
            (Caller::Admin, _) | (Caller::Organizer { .. }, Need::Organizer) => Ok(()),
            (Caller::Anonymous, Need::Organizer) => Err(HostError::TokenRequired {
                credential: Credential::Organizer,
            }),
            (Caller::Anonymous, Need::Admin) => Err(HostError::TokenRequired {
                credential: Credential::Admin,
            }),
            (Caller::Organizer { .. }, Need::Admin) => Err(HostError::NotPermitted {
                what: what.to_string(),
                needed: Credential::Admin,
            }),
        }
    }

    /// Whether the caller is an organizer or the admin.
    pub fn is_organizer(&self) -> bool {
        !matches!(self, Caller::Anonymous)
    }

    /// The tenant the caller's matches belong to: an organizer's own, the
    /// admin's (empty) for the admin and for anonymous callers, whose
    /// matches nobody but the admin directs.
    pub fn tenant(&self) -> &str {
        match self {
            Caller::Organizer { tenant, .. } => tenant,
            Caller::Admin | Caller::Anonymous => "",
        }
    }

    /// The creator a match this caller creates records
    /// ([`tabletop_core::MatchSetup::creator`]), which its bots' budget and
    /// search slots are keyed by: each organizer credential its own, the
    /// admin one, and every anonymous caller the same one, since nothing
    /// tells anonymous callers apart.
    pub fn creator_key(&self) -> String {
        match self {
            Caller::Organizer { credential_id, .. } => format!("credential:{credential_id}"),
            Caller::Admin => ADMIN_CREATOR.to_string(),
            Caller::Anonymous => ANONYMOUS_CREATOR.to_string(),
        }
    }

    /// Whether the caller runs matches of `tenant`: the admin runs every
    /// tenant's, an organizer its own tenant's only.
    pub fn runs(&self, tenant: &str) -> bool {
        match self {
            Caller::Admin => true,
            Caller::Organizer { tenant: own, .. } => own == tenant,
            Caller::Anonymous => false,
        }
    }

    /// Refuses a caller who may not do `what` to a match of `tenant`: an
    /// organizer's call on another tenant's match is refused as not
    /// permitted. Match ids are public (listings, spectator views), so
    /// answering as if the match did not exist would hide nothing and
    /// mislead a platform about its own mistake; the refusal names no
    /// tenant.
    pub fn require_tenant(&self, need: Need, what: &str, tenant: &str) -> HostResult<()> {
        self.require(need, what)?;
        if self.runs(tenant) {
            return Ok(());
        }
        Err(HostError::NotPermitted {
            what: format!("{what} of another tenant's match"),
            needed: Credential::Admin,
        })
    }
}

/// An issued credential, as listings show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CredentialInfo {
    /// Its id.
    pub credential_id: String,
    /// Who it is for.
    pub name: String,
    /// When it was issued.
    pub issued_at_ms: i64,
    /// When it was revoked.
    pub revoked_at_ms: Option<i64>,
    /// The tenant whose matches it runs.
    pub tenant: String,
}

impl From<&StoredCredential> for CredentialInfo {
    fn from(c: &StoredCredential) -> CredentialInfo {
        CredentialInfo {
            credential_id: c.credential_id.clone(),
            tenant: c.tenant.clone(),
            name: c.name.clone(),
            issued_at_ms: c.issued_at_ms,
            revoked_at_ms: c.revoked_at_ms,
        }
    }
}

/// The valid credentials by the hash of their secret.
type CredentialIndex = HashMap<[u8; 32], StoredCredential>;

/// The bearer credentials the host knows: the admin token, and the
/// organizer credentials issued (kept in the store, read once).
#[derive(Debug)]
pub struct Credentials {
    admin_token_hash: [u8; 32],
    /// The valid organizer credentials, read from the store on first use.
    index: RwLock<Option<CredentialIndex>>,
    store: Arc<dyn Store>,
    /// On a store several hosts share, a credential issued through another
    /// host is read from the store when first presented here (at most
    /// once per [`REREAD_ON_MISS`]).
    shared: std::sync::atomic::AtomicBool,
    last_reread: std::sync::Mutex<Option<std::time::Instant>>,
}

/// How often an unknown bearer secret may make a host that shares its store
/// read the credentials again.
const REREAD_ON_MISS: std::time::Duration = std::time::Duration::from_millis(250);

impl Credentials {
    /// The admin token known by its hash (a host on a shared store may
    /// never see the token itself), and the credentials `store` keeps.
    pub fn with_admin_token_hash(admin_token_hash: [u8; 32], store: Arc<dyn Store>) -> Credentials {
        Credentials {
            admin_token_hash,
            index: RwLock::new(None),
            store,
            shared: std::sync::atomic::AtomicBool::new(false),
            last_reread: std::sync::Mutex::new(None),
        }
    }

    /// The valid credentials the store holds, by their secret's hash.
    fn valid_in_store(&self) -> HostResult<CredentialIndex> {
        Ok(self
            .store
            .credentials()?
            .into_iter()
            .filter(|c| c.revoked_at_ms.is_none())
            .map(|c| (c.secret_hash, c))
            .collect())
    }

    /// Reads the credentials from the store again (other hosts issue and
    /// revoke them too); returns the ids that were valid and are not now.
    pub fn reread(&self) -> HostResult<Vec<String>> {
        self.shared
            .store(true, std::sync::atomic::Ordering::Relaxed);
        let valid = self.valid_in_store()?;
        let mut guard = self.index.write().unwrap_or_else(|e| e.into_inner());
        let gone = guard
            .as_ref()
            .map(|old| {
                old.values()
                    .filter(|c| !valid.contains_key(&c.secret_hash))
                    .map(|c| c.credential_id.clone())
                    .collect()
            })
            .unwrap_or_default();
        *guard = Some(valid);
        Ok(gone)
    }

    /// On a shared store, reads the credentials again for an unknown
    /// secret, at most once per [`REREAD_ON_MISS`]; whether it did.
    fn reread_on_miss(&self) -> bool {
        if !self.shared.load(std::sync::atomic::Ordering::Relaxed) {
            return false;
        }
        {
            let mut last = self.last_reread.lock().unwrap_or_else(|e| e.into_inner());
            if last.is_some_and(|at| at.elapsed() < REREAD_ON_MISS) {
                return false;
            }
            *last = Some(std::time::Instant::now());
        }
        self.reread().is_ok()
    }

    /// The caller a bearer secret names: empty is anonymous; the admin
    /// token is the admin; an issued, unrevoked organizer credential is
    /// that organizer; anything else is refused.
    pub fn authenticate(&self, secret: &str) -> HostResult<Caller> {
        if secret.is_empty() {
            return Ok(Caller::Anonymous);
        }
        let hash = hash_token(secret);
        if hashes_equal(&hash, &self.admin_token_hash) {
            return Ok(Caller::Admin);
        }
        let find = |index: &CredentialIndex| {
            index.get(&hash).map(|c| Caller::Organizer {
                credential_id: c.credential_id.clone(),
                name: c.name.clone(),
                tenant: c.tenant.clone(),
            })
        };
        let found = match self.with_credentials(find)? {
            None if self.reread_on_miss() => self.with_credentials(find)?,
            found => found,
        };
        found.ok_or(HostError::BadToken {
            credential: Credential::Bearer,
        })
    }

    /// Refuses `caller` as a new call with its credential would be
    /// refused now: an organizer whose credential was revoked since it was
    /// authenticated is told BAD_TOKEN. No credential and the admin token
    /// stay what they were.
    pub fn check_still_valid(&self, caller: &Caller) -> HostResult<()> {
        let Caller::Organizer { credential_id, .. } = caller else {
            return Ok(());
        };
        let valid = self
            .with_credentials(|index| index.values().any(|c| c.credential_id == *credential_id))?;
        if valid {
            Ok(())
        } else {
            Err(HostError::BadToken {
                credential: Credential::Bearer,
            })
        }
    }

    /// Issues an organizer credential for `name` in `tenant` (empty: a new
    /// tenant of its own, named after its id): its description and its
    /// secret (returned here only).
    pub fn issue(
        &self,
        caller: &Caller,
        name: &str,
        tenant: &str,
    ) -> HostResult<(CredentialInfo, String)> {
        caller.require(Need::Admin, "issuing a credential")?;
        let name = name.trim();
        if name.is_empty()
            || name.chars().count() > MAX_CREDENTIAL_NAME
            || name.chars().any(char::is_control)
        {
            return Err(HostError::InvalidRequest(format!(
                "a credential's name is 1 to {MAX_CREDENTIAL_NAME} characters with no control \
                 characters"
            )));
        }
        if !tenant.is_empty() {
            check_tenant(tenant).map_err(HostError::InvalidRequest)?;
        }
        let secret = new_token();
        let credential_id = format!("cred-{}", &new_token()[..12]);
        let stored = StoredCredential {
            tenant: if tenant.is_empty() {
                credential_id.clone()
            } else {
                tenant.to_string()
            },
            credential_id,
            name: name.to_string(),
            role: ORGANIZER_ROLE.to_string(),
            secret_hash: hash_token(&secret),
            issued_at_ms: now_ms(),
            revoked_at_ms: None,
        };
        let mut guard = self.credential_index()?;
        self.store.issue_credential(&stored)?;
        let info = CredentialInfo::from(&stored);
        guard
            .get_or_insert_with(CredentialIndex::new)
            .insert(stored.secret_hash, stored);
        Ok((info, secret))
    }

    /// Revokes a credential: calls with it are refused from now on.
    pub fn revoke(&self, caller: &Caller, credential_id: &str) -> HostResult<CredentialInfo> {
        caller.require(Need::Admin, "revoking a credential")?;
        let mut guard = self.credential_index()?;
        if !self.store.revoke_credential(credential_id, now_ms())? {
            return Err(HostError::InvalidRequest(format!(
                "no credential has the id `{}`",
                credential_id.chars().take(64).collect::<String>()
            )));
        }
        if let Some(index) = guard.as_mut() {
            index.retain(|_, c| c.credential_id != credential_id);
        }
        drop(guard);
        self.store
            .credentials()?
            .iter()
            .find(|c| c.credential_id == credential_id)
            .map(CredentialInfo::from)
            .ok_or_else(|| HostError::Internal("a revoked credential left the store".into()))
    }

    /// Every credential issued, revoked ones included, oldest first.
    pub fn list(&self, caller: &Caller) -> HostResult<Vec<CredentialInfo>> {
        caller.require(Need::Admin, "listing credentials")?;
        Ok(self
            .store
            .credentials()?
            .iter()
            .map(CredentialInfo::from)
            .collect())
    }

    /// Reads the valid credentials from the store now (the host does at
    /// start); returns how many there are.
    pub fn load(&self) -> HostResult<usize> {
        Ok(self.credential_index()?.as_ref().map_or(0, HashMap::len))
    }

    /// Runs `read` on the valid credentials, reading them from the store
    /// the first time.
    fn with_credentials<T>(&self, read: impl FnOnce(&CredentialIndex) -> T) -> HostResult<T> {
        {
            let index = self.index.read().unwrap_or_else(|e| e.into_inner());
            if let Some(index) = index.as_ref() {
                return Ok(read(index));
            }
        }
        let guard = self.credential_index()?;
        Ok(read(guard.as_ref().unwrap_or(&CredentialIndex::new())))
    }

    /// The valid credentials, locked for a change, read from the store if
    /// they were not yet (the guard always holds `Some`).
    fn credential_index(&self) -> HostResult<RwLockWriteGuard<'_, Option<CredentialIndex>>> {
        let mut guard = self.index.write().unwrap_or_else(|e| e.into_inner());
        if guard.is_none() {
            *guard = Some(self.valid_in_store()?);
        }
        Ok(guard)
    }
}
