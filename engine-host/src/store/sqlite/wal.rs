//! A look at the store's WAL before SQLite opens it, to say when part of it
//! will be lost.
//!
//! What SQLite guarantees: on open it replays the WAL's frames from the
//! start while each frame's checksum (chained from the header through every
//! frame before it) and salt are right, and keeps every transaction whose
//! commit frame it reached; everything after the first frame that does not
//! check is ignored, without a word. A crash never loses an acknowledged
//! action (the WAL is fsynced before the answer), so the frames SQLite
//! ignores after a crash are of writes nobody was told of. But a WAL cut
//! short or damaged by something else (a disk fault, a copy of a running
//! host's files) loses acknowledged actions just as silently.
//!
//! So before opening, the host reads the WAL and warns when it ends in a
//! partial frame (cut short mid-frame) or when frames of the current WAL
//! follow one whose checksum fails (damaged in the middle). A WAL cut
//! exactly at a frame boundary looks like a whole, shorter WAL: nothing in
//! the file can tell, and the transactions after the cut are lost.

use std::path::Path;

/// The WAL header's size, and each frame's header's.
const WAL_HEADER: usize = 32;
const FRAME_HEADER: usize = 24;

/// What the WAL looks like.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum WalCheck {
    /// No WAL, an empty one, or one whose frames all check: SQLite replays
    /// all of it.
    Whole {
        /// Frames that check (of the current WAL).
        frames: usize,
    },
    /// Something SQLite will ignore: why, for the log.
    Damaged(String),
}

/// Reads the WAL at `wal` (if any) and says whether SQLite will replay all
/// of it. A WAL that cannot be read is left to SQLite.
pub(super) fn check_wal(wal: &Path) -> WalCheck {
    match std::fs::read(wal) {
        Ok(bytes) => check_bytes(&bytes),
        Err(_) => WalCheck::Whole { frames: 0 },
    }
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// SQLite's WAL checksum of `data` (a multiple of 8 bytes) from `(s0, s1)`;
/// `big_endian` as the header's magic number says.
fn checksum(data: &[u8], big_endian: bool, (mut s0, mut s1): (u32, u32)) -> (u32, u32) {
    for chunk in data.chunks_exact(8) {
        let word = |at: usize| {
            let b = [chunk[at], chunk[at + 1], chunk[at + 2], chunk[at + 3]];
            if big_endian {
                u32::from_be_bytes(b)
            } else {
                u32::from_le_bytes(b)
            }
        };
        s0 = s0.wrapping_add(word(0)).wrapping_add(s1);
        s1 = s1.wrapping_add(word(4)).wrapping_add(s0);
    }
    (s0, s1)
}

fn check_bytes(bytes: &[u8]) -> WalCheck {
    if bytes.is_empty() {
        return WalCheck::Whole { frames: 0 };
    }
    if bytes.len() < WAL_HEADER {
        return WalCheck::Damaged(format!(
            "it has {} bytes, fewer than its own header",
            bytes.len()
        ));
    }
    let magic = u32_at(bytes, 0);
    if magic & !1 != 0x377f_0682 {
        return WalCheck::Damaged("its header is not a WAL header".into());
    }
    let big_endian = magic & 1 == 1;
    let page_size = match u32_at(bytes, 8) {
        1 => 65_536,
        n => n as usize,
    };
    if !(512..=65_536).contains(&page_size) || !page_size.is_power_of_two() {
        return WalCheck::Damaged(format!("its header names a page size of {page_size}"));
    }
    let salts = (u32_at(bytes, 16), u32_at(bytes, 20));
    let mut sum = checksum(&bytes[..24], big_endian, (0, 0));
    if sum != (u32_at(bytes, 24), u32_at(bytes, 28)) {
        return WalCheck::Damaged("its header's checksum fails".into());
    }
    let frame = FRAME_HEADER + page_size;
    let body = bytes.len() - WAL_HEADER;
    let (whole, partial) = (body / frame, body % frame);
    let mut valid = 0;
    for index in 0..whole {
        let at = WAL_HEADER + index * frame;
        let header = &bytes[at..at + FRAME_HEADER];
        if (u32_at(header, 8), u32_at(header, 12)) != salts {
            // A frame of an earlier pass over the file: the current WAL
            // ended before it, as SQLite will see too.
            break;
        }
        let next = checksum(
            &bytes[at + FRAME_HEADER..at + frame],
            big_endian,
            checksum(&header[..8], big_endian, sum),
        );
        if next != (u32_at(header, 16), u32_at(header, 20)) {
            let later = (index + 1..whole)
                .filter(|&later| {
                    let at = WAL_HEADER + later * frame;
                    (u32_at(bytes, at + 8), u32_at(bytes, at + 12)) == salts
                })
                .count();
            return WalCheck::Damaged(format!(
                "frame {} of {whole} fails its checksum; SQLite ignores it and the {later} \
                 frames of the same WAL after it",
                index + 1
            ));
        }
        sum = next;
        valid += 1;
    }
    if partial != 0 && valid == whole {
        return WalCheck::Damaged(format!(
            "it ends in a partial frame ({partial} of {frame} bytes): it was cut short, by a \
             crash during a write that was never acknowledged or by damage to the file"
        ));
    }
    WalCheck::Whole { frames: valid }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A WAL header and `frames` frames of a 512-byte page, little-endian
    /// checksums, as SQLite writes them.
    fn wal(frames: usize) -> Vec<u8> {
        let mut bytes = Vec::new();
        bytes.extend(0x377f_0682u32.to_be_bytes());
        bytes.extend(3_007_000u32.to_be_bytes());
        bytes.extend(512u32.to_be_bytes());
        bytes.extend(0u32.to_be_bytes());
        bytes.extend(11u32.to_be_bytes());
        bytes.extend(22u32.to_be_bytes());
        let mut sum = checksum(&bytes, false, (0, 0));
        bytes.extend(sum.0.to_be_bytes());
        bytes.extend(sum.1.to_be_bytes());
        for page in 0..frames {
            let mut header = Vec::new();
            header.extend((page as u32 + 1).to_be_bytes());
            header.extend(if page + 1 == frames { 9u32 } else { 0 }.to_be_bytes());
            header.extend(11u32.to_be_bytes());
            header.extend(22u32.to_be_bytes());
            let data = vec![page as u8; 512];
            sum = checksum(&data, false, checksum(&header[..8], false, sum));
            header.extend(sum.0.to_be_bytes());
            header.extend(sum.1.to_be_bytes());
            bytes.extend(header);
            bytes.extend(data);
        }
        bytes
    }

    #[test]
    fn a_whole_wal_checks() {
        assert_eq!(check_bytes(&[]), WalCheck::Whole { frames: 0 });
        assert_eq!(check_bytes(&wal(3)), WalCheck::Whole { frames: 3 });
    }

    #[test]
    fn a_wal_cut_mid_frame_is_damaged() {
        let mut cut = wal(3);
        cut.truncate(cut.len() - 100);
        let WalCheck::Damaged(why) = check_bytes(&cut) else {
            panic!("a partial frame passes");
        };
        assert!(why.contains("partial frame"), "{why}");
        assert!(matches!(check_bytes(&cut[..20]), WalCheck::Damaged(_)));
    }

    #[test]
    fn a_frame_that_fails_its_checksum_is_named() {
        let mut damaged = wal(4);
        damaged[WAL_HEADER + (FRAME_HEADER + 512) + FRAME_HEADER + 7] ^= 0xff;
        let WalCheck::Damaged(why) = check_bytes(&damaged) else {
            panic!("a damaged frame passes");
        };
        assert!(why.contains("frame 2 of 4"), "{why}");
        assert!(why.contains("the 2 frames"), "{why}");
    }

    /// A WAL cut exactly at a frame boundary is a whole, shorter WAL: the
    /// file cannot tell (SQLite's limit, stated in the module's docs).
    #[test]
    fn a_wal_cut_at_a_frame_boundary_cannot_be_told_from_a_shorter_one() {
        let mut cut = wal(4);
        cut.truncate(WAL_HEADER + 2 * (FRAME_HEADER + 512));
        assert_eq!(check_bytes(&cut), WalCheck::Whole { frames: 2 });
    }
}
