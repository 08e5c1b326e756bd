//! Checks on a plugin file before anything loads it.

use std::path::{Path, PathBuf};

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
pub fn check_complete_library(bytes: &[u8]) -> Result<(), String> {
    if !bytes.starts_with(b"\x7fELF") {
        if cfg!(target_os = "linux") {
            return Err("no ELF header".into());
        }
        return Ok(());
    }
    if bytes.len() < 64 || bytes[4] != 2 || bytes[5] != 1 {
        return Err("not a complete 64-bit little-endian ELF header".into());
    }
    let u16_at = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]) as u64;
    let u64_at = |at: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(b)
    };
    let len = bytes.len() as u64;
    let within = |offset: u64, size: u64| offset.checked_add(size).is_some_and(|end| end <= len);
    let (phoff, shoff) = (u64_at(0x20), u64_at(0x28));
    let (phentsize, phnum) = (u16_at(0x36), u16_at(0x38));
    let (shentsize, shnum) = (u16_at(0x3A), u16_at(0x3C));
    if phentsize < 56 || !within(phoff, phentsize * phnum) {
        return Err("the program headers are cut off".into());
    }
    if shnum > 0 && !within(shoff, shentsize * shnum) {
        return Err("the section headers are cut off".into());
    }
    for i in 0..phnum {
        let at = (phoff + i * phentsize) as usize;
        let (offset, filesz) = (u64_at(at + 8), u64_at(at + 32));
        if !within(offset, filesz) {
            return Err(format!("segment {i} is cut off"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn a_library_cut_short_is_refused_and_a_whole_one_passes() {
        let whole = std::fs::read(std::env::current_exe().expect("test binary"))
            .expect("the test binary is readable");
        if !whole.starts_with(b"\x7fELF") {
            return;
        }
        assert_eq!(check_complete_library(&whole), Ok(()));
        let cut = &whole[..whole.len() / 2];
        assert!(check_complete_library(cut).is_err());
    }
}
