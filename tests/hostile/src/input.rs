//! How a fuzz input's bytes become a match setup, a random-play recipe and
//! a text. Every byte string decodes to something (short inputs are padded
//! with zero bytes, which mean "the default"), so the fuzzer never wastes an
//! input on a header it cannot read.
//!
//! Layout: one byte for the player count, one for the number of random
//! plies, eight for the seed (little endian), one per option of the game's
//! manifest, in manifest order; the rest is the text, read as UTF-8 with
//! invalid bytes replaced.

use std::borrow::Cow;
use std::collections::BTreeMap;

use rand_xoshiro::SplitMix64;
use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use tabletop_sdk::{Manifest, OptionKind, OptionValue};

/// Bytes before the per-option bytes: players, plies, seed.
const FIXED_HEADER: usize = 10;

/// A decoded fuzz input.
#[derive(Debug, Clone)]
pub struct Input<'a> {
    /// Seats, within the manifest's range.
    pub players: u32,
    /// Random plies to play before the text is tried.
    pub plies: u32,
    /// The seed of the random play and of chance outcomes.
    pub seed: u64,
    /// Raw options, as a host passes them to the game.
    pub options: BTreeMap<String, String>,
    /// The text under test.
    pub text: Cow<'a, str>,
}

/// The header length for `manifest`: where the text starts.
pub fn header_len(manifest: &Manifest) -> usize {
    FIXED_HEADER + manifest.options.len()
}

/// Decodes `data` for a game with `manifest`.
pub fn decode<'a>(manifest: &Manifest, data: &'a [u8]) -> Input<'a> {
    let header_len = header_len(manifest).min(data.len());
    let (header, text) = data.split_at(header_len);
    let byte = |i: usize| header.get(i).copied().unwrap_or(0);
    let seats = manifest.max_players.saturating_sub(manifest.min_players) + 1;
    let players = manifest.min_players + u32::from(byte(0)) % seats;
    let mut seed = [0u8; 8];
    for (i, b) in seed.iter_mut().enumerate() {
        *b = byte(2 + i);
    }
    let options = manifest
        .options
        .iter()
        .enumerate()
        .filter_map(|(i, spec)| {
            option_value(&spec.kind, &spec.default, byte(FIXED_HEADER + i))
                .map(|value| (spec.name.clone(), value))
        })
        .collect();
    Input {
        players,
        plies: u32::from(byte(1)),
        seed: u64::from_le_bytes(seed),
        options,
        text: String::from_utf8_lossy(text),
    }
}

/// The value one header byte picks for an option: 0 leaves it out (the
/// default); otherwise the bounds, a value in range, or a choice. Free-text
/// options keep their default: the text of an input can be one instead
/// ([`crate::game::option_text`]).
fn option_value(kind: &OptionKind, default: &OptionValue, byte: u8) -> Option<String> {
    if byte == 0 {
        return None;
    }
    match kind {
        OptionKind::Int { min, max } => Some(
            match byte % 4 {
                1 => *min,
                2 => *max,
                3 => default_int(default).unwrap_or(*min),
                _ => {
                    let span = max.saturating_sub(*min).saturating_add(1).max(1);
                    min.saturating_add(i64::from(byte / 4) % span)
                }
            }
            .to_string(),
        ),
        OptionKind::Bool => Some((byte % 2 == 1).to_string()),
        OptionKind::Choice(values) if !values.is_empty() => {
            Some(values[usize::from(byte) % values.len()].clone())
        }
        OptionKind::Choice(_) | OptionKind::Text => None,
    }
}

fn default_int(default: &OptionValue) -> Option<i64> {
    match default {
        OptionValue::Int(v) => Some(*v),
        _ => None,
    }
}

/// Encodes a header and text so that [`decode`] reads them back: how the
/// seed corpus is written. `option_bytes` are the raw per-option bytes
/// (zero for the default).
pub fn encode(
    manifest: &Manifest,
    players: u32,
    plies: u8,
    seed: u64,
    option_bytes: &[u8],
    text: &str,
) -> Vec<u8> {
    let seats = manifest.max_players.saturating_sub(manifest.min_players) + 1;
    let players_byte = (players.saturating_sub(manifest.min_players) % seats) as u8;
    let mut out = vec![players_byte, plies];
    out.extend_from_slice(&seed.to_le_bytes());
    for i in 0..manifest.options.len() {
        out.push(option_bytes.get(i).copied().unwrap_or(0));
    }
    out.extend_from_slice(text.as_bytes());
    out
}

/// A small deterministic random source (`rand_xoshiro`'s SplitMix64): the
/// harness needs no quality, only the same choices for the same input.
#[derive(Debug, Clone)]
pub struct Rng(SplitMix64);

impl Rng {
    /// A source seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(SplitMix64::seed_from_u64(seed))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        (self.next_u64() % n as u64) as usize
    }
}
