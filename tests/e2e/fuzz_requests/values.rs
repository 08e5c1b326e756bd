//! The hostile values of the request fuzzer: strings, numbers, maps,
//! credentials, paths and records, aimed now and then at the real matches,
//! tokens and records it knows, and requests built from them.

use std::collections::HashMap;
use std::path::PathBuf;

use rand::Rng;
use rand::seq::IndexedRandom;
use rand_chacha::ChaCha8Rng;
use tabletop_proto::v1 as pb;
use tabletop_tests::{ADMIN_TOKEN, as_admin, with_credential};

/// A match the fuzzer aims at: its id, seat tokens and join codes.
#[derive(Debug, Clone)]
pub struct Table {
    pub match_id: String,
    pub tokens: Vec<String>,
    pub join_codes: Vec<String>,
}

/// The random source and what it aims at.
pub struct Fuzzer {
    pub rng: ChaCha8Rng,
    pub tables: Vec<Table>,
    pub organizer: String,
    pub credential_ids: Vec<String>,
    pub record_json: String,
    pub data_dir: PathBuf,
    pub plugin_file: String,
}

impl Fuzzer {
    pub fn chance(&mut self, percent: u32) -> bool {
        self.rng.random_range(0..100) < percent
    }

    /// A hostile string: empty, huge, control and bidi characters,
    /// numbers too large, paths, format strings, or another table's id or
    /// token.
    pub fn text(&mut self) -> String {
        match self.rng.random_range(0..12) {
            0 => String::new(),
            1 => "x".repeat(20_000),
            11 => "y".repeat(1_500),
            2 => self.ascii(40),
            3 => "\u{0}\u{7f}\u{202e}é漢🙂\r\n\t".into(),
            4 => "-1".into(),
            5 => "18446744073709551616".into(),
            6 => "../../../../etc/passwd".into(),
            7 => "%s%n{}{{}}\"'`;--".into(),
            8 => (0..self.rng.random_range(1..30))
                .map(|_| char::from_u32(self.rng.random_range(0..0x11_0000)).unwrap_or('\u{fffd}'))
                .collect(),
            9 => "é".repeat(3_000),
            _ => {
                let table = self.tables.choose(&mut self.rng).expect("tables").clone();
                match self.rng.random_range(0..3) {
                    0 => table.match_id,
                    1 => table
                        .tokens
                        .choose(&mut self.rng)
                        .cloned()
                        .unwrap_or_default(),
                    _ => format!("{}x", table.match_id),
                }
            }
        }
    }

    /// Printable ASCII, up to `max` characters.
    pub fn ascii(&mut self, max: usize) -> String {
        let len = self.rng.random_range(1..=max);
        (0..len)
            .map(|_| char::from(self.rng.random_range(0x21u8..0x7f)))
            .collect()
    }

    pub fn u32(&mut self) -> u32 {
        match self.rng.random_range(0..6) {
            0 => 0,
            1 => 1,
            2 => 2,
            3 => u32::MAX,
            4 => 1 << 31,
            _ => self.rng.random(),
        }
    }

    pub fn u64(&mut self) -> u64 {
        match self.rng.random_range(0..6) {
            0 => 0,
            1 => 1,
            2 => self.rng.random_range(2..200),
            3 => u64::MAX,
            4 => 1 << 63,
            _ => self.rng.random(),
        }
    }

    pub fn i64(&mut self) -> i64 {
        match self.rng.random_range(0..7) {
            0 => 0,
            1 => -1,
            2 => i64::MIN,
            3 => i64::MAX,
            4 => 1 << 62,
            5 => self.rng.random_range(1..100_000),
            _ => self.rng.random(),
        }
    }

    /// An enum number: a known one or one no enum has.
    pub fn enum_value(&mut self, known: i32) -> i32 {
        match self.rng.random_range(0..5) {
            0 => -1,
            1 => i32::MAX,
            2 => known + 1,
            _ => self.rng.random_range(0..=known),
        }
    }

    pub fn f64(&mut self) -> f64 {
        *[f64::NAN, f64::INFINITY, -0.0, 1e308, -1.0, 0.5]
            .choose(&mut self.rng)
            .expect("values")
    }

    /// Options, labels, filters: real names with hostile values, hostile
    /// names, or very many entries.
    pub fn map(&mut self) -> HashMap<String, String> {
        let names = ["max_turns", "board", "rail_tiles", "opening_swap", "round"];
        if self.chance(10) {
            return (0..200)
                .map(|i| (format!("k{i}"), self.ascii(20)))
                .collect();
        }
        (0..self.rng.random_range(0..3))
            .map(|_| {
                let key = if self.chance(60) {
                    names.choose(&mut self.rng).expect("names").to_string()
                } else {
                    self.text()
                };
                (key, self.text())
            })
            .collect()
    }

    pub fn match_id(&mut self, table: &Table) -> String {
        if self.chance(70) {
            table.match_id.clone()
        } else {
            self.text()
        }
    }

    pub fn seat_token(&mut self, table: &Table) -> String {
        match self.rng.random_range(0..10) {
            0..4 => table
                .tokens
                .choose(&mut self.rng)
                .cloned()
                .unwrap_or_default(),
            4 => String::new(),
            _ => self.text(),
        }
    }

    pub fn admin_token(&mut self) -> String {
        match self.rng.random_range(0..10) {
            0..3 => ADMIN_TOKEN.to_string(),
            3..5 => String::new(),
            _ => self.text(),
        }
    }

    /// `message` with a random bearer credential: none, the admin's, an
    /// organizer's, or made up.
    pub fn request<T>(&mut self, message: T) -> tonic::Request<T> {
        match self.rng.random_range(0..10) {
            0..3 => tonic::Request::new(message),
            3..6 => as_admin(message),
            6..8 => with_credential(&self.organizer.clone(), message),
            _ => with_credential(&self.ascii(2_000), message),
        }
    }

    /// The exported record, mutated: a number made extreme, a string made
    /// huge, the text cut short, or replaced by a hostile string.
    pub fn record_json(&mut self) -> String {
        let json = self.record_json.clone();
        match self.rng.random_range(0..4) {
            0 => {
                let digits: Vec<usize> = json
                    .char_indices()
                    .filter(|&(i, c)| {
                        c.is_ascii_digit() && !json[..i].ends_with(|p: char| p.is_ascii_digit())
                    })
                    .map(|(i, _)| i)
                    .collect();
                let Some(&start) = digits.choose(&mut self.rng) else {
                    return json;
                };
                let end = json[start..]
                    .find(|c: char| !c.is_ascii_digit())
                    .map_or(json.len(), |n| start + n);
                let extreme = [
                    "4294967295",
                    "18446744073709551615",
                    "9223372036854775807",
                    "-9223372036854775808",
                    "1e400",
                    "-1",
                    "0",
                ]
                .choose(&mut self.rng)
                .expect("numbers");
                format!("{}{extreme}{}", &json[..start], &json[end..])
            }
            1 => json.replacen("\"focus\"", &format!("{:?}", self.text()), 1),
            2 => {
                let mut cut = self.rng.random_range(0..json.len());
                while !json.is_char_boundary(cut) {
                    cut -= 1;
                }
                json[..cut].to_string()
            }
            _ => self.text(),
        }
    }

    /// A plugin path: the built plugin, a directory, a text file, nothing
    /// there, or hostile text (never a FIFO or a device).
    pub fn plugin_path(&mut self) -> String {
        match self.rng.random_range(0..6) {
            0 => self.plugin_file.clone(),
            1 => self.data_dir.display().to_string(),
            2 => "/etc/passwd".into(),
            3 => "/nonexistent/plugin.so".into(),
            4 => String::new(),
            _ => format!("/nonexistent/{}", self.text()),
        }
    }

    /// A backup path: in the data directory, where nothing can be
    /// written, or hostile text under a directory that does not exist.
    pub fn backup_path(&mut self) -> String {
        match self.rng.random_range(0..5) {
            0 => self
                .data_dir
                .join(format!("fuzz-{}.sqlite3", self.rng.random::<u32>()))
                .display()
                .to_string(),
            1 => self.data_dir.display().to_string(),
            2 => String::new(),
            3 => "x".repeat(5_000),
            _ => format!("/nonexistent/{}", self.text()),
        }
    }
}

/// A valid creation (a game at two seats) with one to three fields made
/// hostile.
pub fn create_request(fz: &mut Fuzzer) -> pb::CreateMatchRequest {
    let game = ["focus", "lanza", "lanzeloth", "war"]
        .choose(&mut fz.rng)
        .expect("games");
    let mut m = pb::CreateMatchRequest {
        game: game.to_string(),
        players: 2,
        ..Default::default()
    };
    for _ in 0..fz.rng.random_range(1..=3) {
        match fz.rng.random_range(0..15) {
            0 => m.game = fz.text(),
            1 => m.version = Some(fz.text()),
            2 => m.players = fz.u32(),
            3 => m.options = fz.map(),
            4 => m.seed = Some(fz.u64()),
            5 => m.start_position = Some(fz.text()),
            6 => m.open_seats = (0..fz.rng.random_range(1..4)).map(|_| fz.u32()).collect(),
            7 => {
                m.time_control = Some(pb::TimeControl {
                    per_move_ms: fz.i64(),
                    bank_ms: fz.i64(),
                    increment_ms: fz.i64(),
                    on_timeout: fz.enum_value(2),
                })
            }
            8 => m.view_detail = fz.enum_value(2),
            9 => m.labels = fz.map(),
            10 => m.request_id = fz.text(),
            11 => {
                m.open_seat_deadline = Some(pb::OpenSeatDeadline {
                    within_ms: fz.i64(),
                    on_deadline: fz.enum_value(2),
                })
            }
            12 => {
                m.seat_players = (0..fz.rng.random_range(1..4))
                    .map(|_| pb::SeatPlayer {
                        seat: fz.u32() % 4,
                        display_name: fz.text(),
                        external_id: fz.text(),
                        bot: if fz.rng.random_bool(0.1) {
                            fz.text()
                        } else {
                            String::new()
                        },
                    })
                    .collect()
            }
            13 => m.public_open_seats = true,
            _ => {
                m.spectator_delay = Some(pb::SpectatorDelay {
                    moves: fz.u32(),
                    ms: fz.i64(),
                })
            }
        }
    }
    m
}

/// `legal` with one field made wrong: another match, another seat's or a
/// made-up token, an action that is not legal, a stale version.
pub fn mutate_submit(
    fz: &mut Fuzzer,
    table: &Table,
    mut legal: pb::SubmitActionRequest,
) -> pb::SubmitActionRequest {
    use pb::submit_action_request::Action;
    let version = legal.expected_version.unwrap_or_default();
    match fz.rng.random_range(0..6) {
        0 => legal.match_id = fz.text(),
        1 => legal.seat_token = fz.seat_token(table),
        2 => legal.action = Some(Action::ActionId(fz.u64())),
        3 => legal.action = Some(Action::Notation(fz.text())),
        4 => {
            legal.expected_version = Some(
                *[version.wrapping_sub(1), version + 1, u64::MAX]
                    .choose(&mut fz.rng)
                    .expect("versions"),
            )
        }
        _ => legal.action = None,
    }
    legal
}

/// A submission with every field random.
pub fn random_submit(fz: &mut Fuzzer, table: &Table) -> pb::SubmitActionRequest {
    use pb::submit_action_request::Action;
    let notations = [
        "c3-e3",
        "I@1",
        "flip",
        "K2 Q5 J1",
        "III/CIIIIIC/IIIIIII/CACCAIC",
    ];
    let action = if fz.chance(50) {
        Action::ActionId(fz.u64())
    } else if fz.chance(50) {
        Action::Notation(
            notations
                .choose(&mut fz.rng)
                .expect("notations")
                .to_string(),
        )
    } else {
        Action::Notation(fz.text())
    };
    pb::SubmitActionRequest {
        match_id: fz.match_id(table),
        seat_token: fz.seat_token(table),
        action: fz.chance(95).then_some(action),
        expected_version: fz.chance(50).then(|| fz.u64()),
        view_detail: if fz.chance(80) { 0 } else { fz.enum_value(2) },
    }
}
