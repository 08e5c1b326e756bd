//! Checks on a plugin file before anything loads it, and reading one.
//!
//! A plugin file is a regular file of at most [`max_plugin_bytes`]: a
//! path naming a FIFO, a device (`/dev/zero`), a socket or a directory is
//! refused from its metadata, before it is opened, so nothing blocks on a
//! FIFO without a writer or reads an endless device.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::LoadError;

/// The largest plugin file read unless [`set_max_plugin_bytes`] says
/// otherwise: 256 MiB, some twenty times the largest shipped game's debug
/// build.
pub const DEFAULT_MAX_PLUGIN_BYTES: u64 = 256 * 1024 * 1024;

static MAX_PLUGIN_BYTES: AtomicU64 = AtomicU64::new(DEFAULT_MAX_PLUGIN_BYTES);

/// Sets the largest plugin file this process reads (engine-host's
/// `--max-plugin-bytes`, passed on to its checking processes).
pub fn set_max_plugin_bytes(max: u64) {
    MAX_PLUGIN_BYTES.store(max, Ordering::Relaxed);
}

/// The largest plugin file this process reads.
pub fn max_plugin_bytes() -> u64 {
    MAX_PLUGIN_BYTES.load(Ordering::Relaxed)
}

/// What kind of thing `file_type` is, for a refusal.
fn kind_of(file_type: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    if file_type.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// Refuses what a plugin file cannot be: anything but a regular file, or
/// one larger than `max` bytes.
fn check_metadata(metadata: &std::fs::Metadata, max: u64) -> Result<(), LoadError> {
    if !metadata.is_file() {
        return Err(LoadError::NotAFile(kind_of(metadata.file_type())));
    }
    if metadata.len() > max {
        return Err(LoadError::TooLarge {
            bytes: metadata.len(),
            max,
        });
    }
    Ok(())
}

/// Checks, from its metadata alone, that `path` names a regular file (a
/// symbolic link is followed) of at most [`max_plugin_bytes`]. Nothing is
/// opened, so a FIFO cannot block the caller.
pub fn check_plugin_file(path: &Path) -> Result<(), LoadError> {
    let metadata = std::fs::metadata(path).map_err(|e| LoadError::Io(e.to_string()))?;
    check_metadata(&metadata, max_plugin_bytes())
}

/// Reads a plugin file of at most [`max_plugin_bytes`]: the checks of
/// [`check_plugin_file`] first, then the file is opened without blocking
/// (a FIFO put in its place meanwhile is refused, not waited on) and read
/// up to the cap, whatever its size claims.
pub fn read_plugin_file(path: &Path) -> Result<Vec<u8>, LoadError> {
    read_at_most(path, max_plugin_bytes())
}

fn read_at_most(path: &Path, max: u64) -> Result<Vec<u8>, LoadError> {
    let io = |e: std::io::Error| LoadError::Io(e.to_string());
    check_metadata(&std::fs::metadata(path).map_err(io)?, max)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path).map_err(io)?;
    check_metadata(&file.metadata().map_err(io)?, max)?;
    let mut bytes = Vec::new();
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > max {
        return Err(LoadError::TooLarge {
            bytes: bytes.len() as u64,
            max,
        });
    }
    Ok(bytes)
}

/// Whether `path` is a file named like a shared library for this platform
/// (`.so`, `.dylib`, `.dll`): what the loader and the directory watcher
/// consider at all.
pub fn is_plugin_file(path: &Path) -> bool {
    path.is_file()
        && path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e == std::env::consts::DLL_EXTENSION)
}

/// The plugin files of `dir` ([`is_plugin_file`]), in name order.
pub fn plugin_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| is_plugin_file(p))
        .collect();
    files.sort();
    Ok(files)
}

/// Checks that an ELF shared library is whole: every program segment and the
/// section header table lie inside the file. A half-copied file fails this;
/// loading it would map pages past its end and crash the host on first touch.
/// Other formats (macOS, Windows) are left to the loader.
///
/// The `object` crate reads the headers (read-only, bounds-checked); the
/// checks and their order are this function's: header, program headers,
/// section headers, then each segment's bytes.
pub fn check_complete_library(bytes: &[u8]) -> Result<(), String> {
    use object::read::elf::{FileHeader, ProgramHeader};

    if !bytes.starts_with(&object::elf::ELFMAG) {
        if cfg!(target_os = "linux") {
            return Err("no ELF header".into());
        }
        return Ok(());
    }
    let header = object::elf::FileHeader64::<object::LittleEndian>::parse(bytes)
        .ok()
        .filter(|header| header.is_little_endian())
        .ok_or("not a complete 64-bit little-endian ELF header")?;
    let endian = object::LittleEndian;
    let segments = header
        .program_headers(endian, bytes)
        .map_err(|_| "the program headers are cut off")?;
    header
        .section_headers(endian, bytes)
        .map_err(|_| "the section headers are cut off")?;
    for (i, segment) in segments.iter().enumerate() {
        if segment.data(endian, bytes).is_err() {
            return Err(format!("segment {i} is cut off"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_is_refused_as_one() {
        let dir = tempfile::tempdir().expect("temp dir");
        assert_eq!(
            read_plugin_file(dir.path()),
            Err(LoadError::NotAFile("a directory"))
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_device_is_refused_without_reading_it() {
        assert_eq!(
            read_plugin_file(Path::new("/dev/zero")),
            Err(LoadError::NotAFile("a character device"))
        );
    }

    #[test]
    fn a_file_over_the_cap_is_refused_and_one_within_it_is_read() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("big.so");
        std::fs::write(&file, vec![7u8; 4096]).expect("write");
        assert_eq!(read_plugin_file(&file).map(|b| b.len()), Ok(4096));
        assert_eq!(
            read_at_most(&file, 1024),
            Err(LoadError::TooLarge {
                bytes: 4096,
                max: 1024
            })
        );
    }

    #[test]
    fn a_file_that_is_not_elf_is_refused_on_linux() {
        let refused = check_complete_library(b"MZ\x90\x00 not a shared library");
        if cfg!(target_os = "linux") {
            assert_eq!(refused, Err("no ELF header".to_string()));
        }
    }

    #[test]
    fn a_cut_elf_header_is_refused() {
        let mut header = b"\x7fELF\x02\x01".to_vec();
        header.resize(40, 0);
        assert!(check_complete_library(&header).is_err());
    }

    /// This test binary, when it is a 64-bit little-endian ELF file.
    fn whole_elf() -> Option<Vec<u8>> {
        let whole = std::fs::read(std::env::current_exe().expect("test binary"))
            .expect("the test binary is readable");
        whole.starts_with(b"\x7fELF\x02\x01").then_some(whole)
    }

    #[test]
    fn a_library_cut_short_is_refused_and_a_whole_one_passes() {
        let Some(whole) = whole_elf() else { return };
        assert_eq!(check_complete_library(&whole), Ok(()));
        let cut = &whole[..whole.len() / 2];
        assert!(check_complete_library(cut).is_err());
    }

    #[test]
    fn each_cut_is_named() {
        let Some(whole) = whole_elf() else { return };
        assert_eq!(
            check_complete_library(&whole[..70]),
            Err("the program headers are cut off".to_string())
        );
        let mut headers_past_the_end = whole.clone();
        let end = whole.len() as u64;
        headers_past_the_end[0x28..0x30].copy_from_slice(&end.to_le_bytes());
        assert_eq!(
            check_complete_library(&headers_past_the_end),
            Err("the section headers are cut off".to_string())
        );
        // Cut one byte short of where the last segment's bytes end, with
        // no section headers to trip over first.
        let segments_end = {
            use object::read::elf::{FileHeader, ProgramHeader};
            let endian = object::LittleEndian;
            let header = object::elf::FileHeader64::<object::LittleEndian>::parse(&whole[..])
                .expect("a whole header");
            header
                .program_headers(endian, &whole[..])
                .expect("whole program headers")
                .iter()
                .map(|p| p.p_offset(endian) + p.p_filesz(endian))
                .max()
                .expect("a segment")
        };
        let mut no_sections = whole;
        no_sections[0x28..0x30].fill(0);
        no_sections.truncate(segments_end as usize - 1);
        let refused = check_complete_library(&no_sections).unwrap_err();
        assert!(
            refused.starts_with("segment ") && refused.ends_with(" is cut off"),
            "{refused}"
        );
    }

    #[test]
    fn a_big_endian_or_32_bit_header_is_refused() {
        let Some(whole) = whole_elf() else { return };
        for (at, value) in [(5, 2u8), (4, 1u8)] {
            let mut other = whole.clone();
            other[at] = value;
            assert_eq!(
                check_complete_library(&other),
                Err("not a complete 64-bit little-endian ELF header".to_string())
            );
        }
    }
}
