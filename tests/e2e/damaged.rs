//! Damaged plugin files: copies of the real built plugins with the damage a
//! bad disk, a bad copy or a bad build does — flipped bytes, garbled program
//! headers, a broken dynamic section, a file cut short, junk at the end.
//! Loaded in-process, some of these kill the process inside the dynamic
//! loader; the host checks every file in a child process first, so none
//! may take the host down, and each is named in the log.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tabletop_proto::v1 as pb;
use tabletop_tests::{ADMIN_TOKEN, Host, HostOptions, built_plugin, workspace_game_crates};
use tonic::Code;

/// The ELF header's size: damage goes past it (a damaged header is refused
/// by the loader's own checks before any `dlopen`).
const ELF_HEADER: usize = 64;
const PT_LOAD: u32 = 1;
const PT_DYNAMIC: u32 = 2;
const DT_NEEDED: u64 = 1;
const DT_STRTAB: u64 = 5;
const DT_SYMTAB: u64 = 6;
const DT_RELA: u64 = 7;
const DT_RELASZ: u64 = 8;
const DT_INIT_ARRAY: u64 = 25;
const DT_GNU_HASH: u64 = 0x6fff_fef5;

fn u16_at(bytes: &[u8], at: usize) -> usize {
    u16::from_le_bytes([bytes[at], bytes[at + 1]]) as usize
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

fn put_u64(bytes: &mut [u8], at: usize, value: u64) {
    bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

/// The file offsets of the program headers: (offset of the entry, p_type).
fn program_headers(elf: &[u8]) -> Vec<(usize, u32)> {
    let (phoff, size, count) = (
        u64_at(elf, 0x20) as usize,
        u16_at(elf, 0x36),
        u16_at(elf, 0x38),
    );
    (0..count)
        .map(|i| phoff + i * size)
        .map(|at| (at, u32_at(elf, at)))
        .collect()
}

/// The program header of the first segment of `kind` (`nth` of them).
fn segment(elf: &[u8], kind: u32, nth: usize) -> usize {
    program_headers(elf)
        .into_iter()
        .filter(|&(_, t)| t == kind)
        .nth(nth)
        .unwrap_or_else(|| panic!("a built plugin has segment type {kind} #{nth}"))
        .0
}

/// The dynamic section's file range.
fn dynamic(elf: &[u8]) -> (usize, usize) {
    let header = segment(elf, PT_DYNAMIC, 0);
    let (offset, size) = (u64_at(elf, header + 8), u64_at(elf, header + 32));
    (offset as usize, size as usize)
}

/// The file offset of the value of the first dynamic entry tagged `tag`.
fn dynamic_value(elf: &[u8], tag: u64) -> Option<usize> {
    let (offset, size) = dynamic(elf);
    (offset..offset + size)
        .step_by(16)
        .find(|&at| u64_at(elf, at) == tag)
        .map(|at| at + 8)
}

/// One damaged copy: its file name and content, and which game it is of.
struct Variant {
    name: String,
    bytes: Vec<u8>,
    game: usize,
}

/// The damaged copies of one plugin, all from `seed`.
fn damage(game: &str, elf: &[u8], seed: u64) -> Vec<(String, Vec<u8>)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let len = elf.len();
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    let mut copy = |kind: String, f: &mut dyn FnMut(&mut Vec<u8>, &mut ChaCha8Rng)| {
        let mut bytes = elf.to_vec();
        f(&mut bytes, &mut rng);
        out.push((format!("{game}-{kind}"), bytes));
    };
    for flips in [1, 4, 16, 64, 256, 1024] {
        copy(format!("flip{flips}"), &mut |b, rng| {
            for _ in 0..flips {
                let at = rng.random_range(ELF_HEADER..b.len());
                b[at] ^= rng.random_range(1..=255u8);
            }
        });
    }
    let phdrs = program_headers(elf);
    let (first, last) = (phdrs[0].0, phdrs[phdrs.len() - 1].0 + 56);
    copy("phdrs-zeroed".into(), &mut |b, _| b[first..last].fill(0));
    copy("phdrs-garbled".into(), &mut |b, rng| {
        rng.fill(&mut b[first..last])
    });
    let load = segment(elf, PT_LOAD, 1);
    copy("load-offset".into(), &mut |b, _| {
        let offset = u64_at(b, load + 8);
        put_u64(b, load + 8, offset + 0x1000);
    });
    copy("load-vaddr".into(), &mut |b, _| {
        let vaddr = u64_at(b, load + 16);
        put_u64(b, load + 16, vaddr ^ 0x7_0000);
    });
    copy("load-memsz".into(), &mut |b, _| {
        put_u64(b, load + 40, 1 << 46)
    });
    copy("dynamic-phdr-garbled".into(), &mut |b, rng| {
        let at = segment(elf, PT_DYNAMIC, 0);
        rng.fill(&mut b[at + 8..at + 56]);
    });
    let (dyn_at, dyn_size) = dynamic(elf);
    copy("dynamic-zeroed".into(), &mut |b, _| {
        b[dyn_at..dyn_at + dyn_size].fill(0);
    });
    copy("dynamic-garbled".into(), &mut |b, rng| {
        rng.fill(&mut b[dyn_at..dyn_at + dyn_size]);
    });
    for (tag, name) in [
        (DT_NEEDED, "needed"),
        (DT_STRTAB, "strtab"),
        (DT_SYMTAB, "symtab"),
        (DT_RELA, "rela"),
        (DT_RELASZ, "relasz"),
        (DT_INIT_ARRAY, "init-array"),
        (DT_GNU_HASH, "gnu-hash"),
    ] {
        let Some(at) = dynamic_value(elf, tag) else {
            continue;
        };
        copy(format!("dyn-{name}"), &mut |b, rng| {
            let value = u64_at(b, at);
            let garbage = match rng.random_range(0..3) {
                0 => value.wrapping_add(rng.random_range(1..0x10_0000)),
                1 => rng.random(),
                _ => value / 2,
            };
            put_u64(b, at, garbage);
        });
    }
    for percent in [5, 25, 50, 75, 99] {
        copy(format!("cut{percent}"), &mut |b, _| {
            b.truncate(len * percent / 100);
        });
    }
    copy("cut-last-byte".into(), &mut |b, _| b.truncate(len - 1));
    copy("random-tail".into(), &mut |b, rng| {
        let tail: Vec<u8> = (0..4096).map(|_| rng.random()).collect();
        b.extend_from_slice(&tail);
    });
    copy("random-last-quarter".into(), &mut |b, rng| {
        rng.fill(&mut b[len * 3 / 4..]);
    });
    copy("section-headers-garbled".into(), &mut |b, rng| {
        let shoff = u64_at(elf, 0x28) as usize;
        let end = (shoff + u16_at(elf, 0x3A) * u16_at(elf, 0x3C)).min(len);
        rng.fill(&mut b[shoff..end]);
    });
    out
}

/// Every damaged copy of every built game plugin, numbered. The names sort
/// after the originals' (`lib…`), so at start the originals load first and a
/// copy that passes its check meets the game already loaded.
fn variants() -> Vec<Variant> {
    let mut all = Vec::new();
    for (game, name) in workspace_game_crates().iter().enumerate() {
        let elf = std::fs::read(built_plugin(name)).expect("read the built plugin");
        assert!(
            elf.starts_with(b"\x7fELF\x02\x01"),
            "a 64-bit little-endian ELF"
        );
        let damaged = damage(name, &elf, 0xDA3A_6E00 + game as u64);
        all.extend(damaged.into_iter().map(|(kind, bytes)| (game, kind, bytes)));
    }
    all.into_iter()
        .enumerate()
        .map(|(i, (game, kind, bytes))| Variant {
            name: format!(
                "x-damaged-{i:03}-{kind}.{}",
                std::env::consts::DLL_EXTENSION
            ),
            bytes,
            game,
        })
        .collect()
}

/// What became of a file, from the log line naming it ([`lines_naming`]).
fn outcome(line: &Offer<'_>) -> &'static str {
    let Offer { refused, said } = *line;
    if !refused {
        return if said.contains("is already loaded with the same content") {
            "already loaded (same content)"
        } else if said.contains("is claimed by files with different content") {
            "loaded beside the build of its game version another file holds"
        } else {
            "loaded (passed its check; a new name or version)"
        };
    }
    if said.starts_with("crashed the checking process (SIG") {
        "refused: crashed the checking process (signal)"
    } else if said.starts_with("crashed the checking process") {
        "refused: crashed the checking process (exit code)"
    } else if said.starts_with("hung") {
        "refused: hung"
    } else if said.starts_with("misbehaved") {
        "refused: misbehaved in a playout"
    } else if said.starts_with("could not be checked") {
        "refused: could not be checked"
    } else if said.contains("is already loaded from") {
        "refused: passed its check, but its game and version are loaded from another file"
    } else {
        "refused by the loader (not loadable, incomplete, not a plugin, bad manifest)"
    }
}

/// A log line that names a file offered to the host.
#[derive(Debug, Clone, Copy)]
struct Offer<'l> {
    /// Whether it was refused.
    refused: bool,
    /// What the line says of the file after naming it.
    said: &'l str,
}

/// The log lines that name `file` as offered to the host.
fn lines_naming<'l>(log: &'l str, file: &Path) -> Vec<Offer<'l>> {
    let named = format!("plugin file {}: ", file.display());
    log.lines()
        .filter_map(|line| {
            let (before, said) = line.split_once(&named)?;
            Some(Offer {
                refused: before.ends_with("refused "),
                said,
            })
        })
        .collect()
}

/// The host still runs and serves, with every real game.
async fn assert_serving(host: &mut Host, when: &str) {
    assert!(host.is_running(), "the host died {when}");
    let games: Vec<String> = host
        .catalog()
        .await
        .list_games(pb::ListGamesRequest {})
        .await
        .unwrap_or_else(|e| panic!("ListGames {when}: {e}"))
        .into_inner()
        .games
        .into_iter()
        .map(|g| g.name)
        .collect();
    for game in workspace_game_crates() {
        assert!(games.contains(&game), "{game} is served {when}: {games:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn damaged_plugin_files_are_refused_without_crashing_the_host() {
    let started = Instant::now();
    let root = tempfile::tempdir().expect("temp dir");
    let plugin_dir = Host::fresh_plugin_dir(root.path());
    let log_file = root.path().join("host.log");
    let variants = variants();
    assert!(variants.len() >= 100, "{} variants", variants.len());
    // Half in the plugin directory before the start, half hot-added; each
    // kind of damage to one game at start, to the next while running.
    let (mut at_start, mut hot): (Vec<&Variant>, Vec<&Variant>) = (Vec::new(), Vec::new());
    for (i, v) in variants.iter().enumerate() {
        if (i + v.game) % 2 == 0 {
            at_start.push(v);
        } else {
            hot.push(v);
        }
    }
    for v in &at_start {
        std::fs::write(plugin_dir.join(&v.name), &v.bytes).expect("write a variant");
    }
    let mut host = Host::start_with(HostOptions {
        plugin_dir: Some(plugin_dir.clone()),
        env: vec![
            ("RUST_LOG".into(), "info".into()),
            ("NO_COLOR".into(), "1".into()),
        ],
        log_file: Some(log_file.clone()),
        ..Default::default()
    })
    .await;
    assert_serving(&mut host, "after a start among damaged files").await;

    // Written beside and renamed in, as a deployment would copy a file.
    let staging = root.path().join("staging");
    std::fs::create_dir_all(&staging).expect("staging dir");
    for v in &hot {
        let staged = staging.join(&v.name);
        std::fs::write(&staged, &v.bytes).expect("write a variant");
        std::fs::rename(&staged, plugin_dir.join(&v.name)).expect("move a variant in");
    }
    let read_log = || std::fs::read_to_string(&log_file).expect("read the host log");
    let deadline = Instant::now() + Duration::from_secs(45);
    loop {
        let log = read_log();
        let waiting: Vec<&str> = hot
            .iter()
            .filter(|v| lines_naming(&log, &plugin_dir.join(&v.name)).is_empty())
            .map(|v| v.name.as_str())
            .collect();
        if waiting.is_empty() {
            break;
        }
        assert!(host.is_running(), "the host died while hot-adding");
        assert!(
            Instant::now() < deadline,
            "{} hot-added files not named in the log in time: {waiting:?}",
            waiting.len()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // A few more polls: a refused file is not looked at again.
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_serving(&mut host, "after damaged files were hot-added").await;

    let log = read_log();
    let mut tally: BTreeMap<&str, usize> = BTreeMap::new();
    for v in &variants {
        let lines = lines_naming(&log, &plugin_dir.join(&v.name));
        assert_eq!(lines.len(), 1, "{} is named once: {lines:#?}", v.name);
        *tally.entry(outcome(&lines[0])).or_default() += 1;
    }

    // The admin call checks too: a file that crashes its check is refused
    // with an error, and the host serves on.
    let crashing: Vec<&Variant> = variants
        .iter()
        .filter(|v| outcome(&lines_naming(&log, &plugin_dir.join(&v.name))[0]).contains("crashed"))
        .take(4)
        .collect();
    let mut admin = host.admin().await;
    for v in &crashing {
        let refused = admin
            .load_plugin(pb::LoadPluginRequest {
                admin_token: ADMIN_TOKEN.into(),
                path: plugin_dir.join(&v.name).display().to_string(),
            })
            .await
            .expect_err("a crashing file is refused");
        assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
        assert!(
            refused.message().contains("crashed the checking process"),
            "{}",
            refused.message()
        );
    }
    assert_serving(&mut host, "after admin loads of crashing files").await;

    let figures: Vec<String> = tally.iter().map(|(k, n)| format!("{n:4}  {k}")).collect();
    eprintln!(
        "{} damaged plugin files ({} before the start, {} hot-added), 0 host crashes, {:.1} s:\n{}",
        variants.len(),
        at_start.len(),
        hot.len(),
        started.elapsed().as_secs_f64(),
        figures.join("\n")
    );
    assert!(
        !crashing.is_empty(),
        "no damaged file crashed its check: the damage no longer reaches the dynamic loader's \
         weak spots, and the test proves less than it claims"
    );
}
