//! What a match is created from.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::clock::TimeControl;
use crate::delay::SpectatorDelay;
use crate::director::OpenSeatDeadline;
use crate::identity::SeatPlayer;
use crate::log::{LogEntry, LogKind};

/// Everything needed to create a match (also what a record starts from).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchSetup {
    /// The match id.
    pub match_id: String,
    /// The game.
    pub game: String,
    /// The plugin version.
    pub plugin_version: String,
    /// The hex SHA-256 of the plugin file the match was created with: which
    /// build of the version, when files disagree. Absent for matches
    /// created before builds were recorded (and for games linked
    /// in-process).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin_sha256: Option<String>,
    /// Seats.
    pub players: u32,
    /// Options as given (raw text).
    pub options: BTreeMap<String, String>,
    /// Seed of the chance stream.
    pub seed: u64,
    /// Start position, if not the game's start.
    pub start_position: Option<String>,
    /// Creation time, ms since the Unix epoch.
    pub created_at_ms: i64,
    /// The clock, if the match has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<TimeControl>,
    /// What the creator tagged it with (tournament, round, table …).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// When its open seats must be taken by, and what happens if not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_seat_deadline: Option<OpenSeatDeadline>,
    /// How far behind spectators see it while it runs (see
    /// [`crate::delay`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spectator_delay: Option<SpectatorDelay>,
    /// Who plays the seats taken at creation, as the creator said.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seat_players: Vec<SeatPlayer>,
    /// The tenant the match belongs to: whose organizers may direct,
    /// export and follow it while it runs. Empty for the admin's tenant,
    /// which holds every match no organizer created (and every match
    /// stored before tenants, unless the migration found its creator).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tenant: String,
    /// Who created it, as the host keys its bots' budgets and search
    /// slots: `anonymous`, `admin` or `credential:<id>`. Empty when the
    /// host did not record it (matches stored before creators were kept).
    /// Not part of a record: a record says what was played, not by whose
    /// credential.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub creator: String,
}

impl MatchSetup {
    /// The setup with the build a release in `log` last moved the match to
    /// ([`LogKind::Release`]): the build its whole log replays through.
    pub fn with_build_of(mut self, log: &[LogEntry]) -> MatchSetup {
        let moved_to = log.iter().rev().find_map(|entry| match &entry.kind {
            LogKind::Release { build } => build.as_ref(),
            _ => None,
        });
        if let Some(build) = moved_to {
            self.plugin_version = build.version.clone();
            self.plugin_sha256 = build.sha256.clone();
        }
        self
    }
}

/// Most labels a match may have.
pub const MAX_LABELS: usize = 16;
/// Longest label key, in bytes.
pub const MAX_LABEL_KEY: usize = 63;
/// Longest label value, in bytes.
pub const MAX_LABEL_VALUE: usize = 256;

/// Checks a match's labels: at most [`MAX_LABELS`]; keys of 1 to
/// [`MAX_LABEL_KEY`] lowercase letters, digits, `.`, `_` or `-`, starting
/// with a letter; values of at most [`MAX_LABEL_VALUE`] bytes without
/// control characters.
pub fn check_labels(labels: &BTreeMap<String, String>) -> Result<(), String> {
    if labels.len() > MAX_LABELS {
        return Err(format!(
            "a match has at most {MAX_LABELS} labels, not {}",
            labels.len()
        ));
    }
    for (key, value) in labels {
        let well_formed = key.len() <= MAX_LABEL_KEY
            && key.starts_with(|c: char| c.is_ascii_lowercase())
            && key
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "._-".contains(c));
        if !well_formed {
            let shown: String = key.chars().take(MAX_LABEL_KEY).collect();
            return Err(format!(
                "label key `{shown}` is not 1 to {MAX_LABEL_KEY} lowercase letters, digits, \
                 `.`, `_` or `-` starting with a letter"
            ));
        }
        if value.len() > MAX_LABEL_VALUE || value.chars().any(char::is_control) {
            return Err(format!(
                "label `{key}`: a value is at most {MAX_LABEL_VALUE} bytes with no control \
                 characters"
            ));
        }
    }
    Ok(())
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Longest tenant name, in bytes.
pub const MAX_TENANT: usize = 63;

/// Checks a tenant's name: 1 to [`MAX_TENANT`] lowercase letters, digits,
/// `.`, `_` or `-` (the admin's tenant, empty, is never named).
pub fn check_tenant(tenant: &str) -> Result<(), String> {
    let well_formed = !tenant.is_empty()
        && tenant.len() <= MAX_TENANT
        && tenant
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "._-".contains(c));
    if well_formed {
        Ok(())
    } else {
        let shown: String = tenant.chars().take(MAX_TENANT).collect();
        Err(format!(
            "tenant `{shown}` is not 1 to {MAX_TENANT} lowercase letters, digits, `.`, `_` or `-`"
        ))
    }
}

/// The seed of the chance stream of a match whose creator in `tenant`
/// chose `seed`: the same within a tenant, so a chosen seed reproduces its
/// matches there, and unrelated across tenants, so that nobody reproduces
/// another tenant's deal by choosing its seed (reaching a given stream
/// from another tenant means finding a SHA-256 preimage). The admin's
/// tenant (empty) keeps the seed as chosen, so its matches, and every match
/// made before tenants, deal as they always did.
pub fn tenant_seed(tenant: &str, seed: u64) -> u64 {
    if tenant.is_empty() {
        return seed;
    }
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    hasher.update(b"tabletop tenant seed\0");
    hasher.update((tenant.len() as u64).to_le_bytes());
    hasher.update(tenant.as_bytes());
    hasher.update(seed.to_le_bytes());
    let digest = hasher.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(first)
}

#[cfg(test)]
mod tenant_tests {
    use super::*;

    #[test]
    fn a_chosen_seed_deals_alike_within_a_tenant_and_apart_across_tenants() {
        assert_eq!(tenant_seed("", 7), 7, "the admin's tenant keeps the seed");
        assert_eq!(tenant_seed("spring", 7), tenant_seed("spring", 7));
        assert_ne!(tenant_seed("spring", 7), tenant_seed("autumn", 7));
        assert_ne!(tenant_seed("spring", 7), 7);
        assert_ne!(tenant_seed("spring", 7), tenant_seed("spring", 8));
    }

    #[test]
    fn tenant_names_are_short_lowercase_words() {
        assert!(check_tenant("spring-open.2026_a").is_ok());
        for bad in ["", "Spring", "a b", "x/y", &"a".repeat(MAX_TENANT + 1)] {
            assert!(check_tenant(bad).is_err(), "{bad:?}");
        }
    }
}
