//! Secret tokens: seat tokens are random, shown once, and kept only as hashes.

use sha2::{Digest, Sha256};

/// A new random token (128 bits, hex).
pub fn new_token() -> String {
    hex::encode(rand::random::<[u8; 16]>())
}

/// The hash under which a token is stored.
pub fn hash_token(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// Compares two hashes without an early exit, so timing does not tell how
/// much of a guess was right.
pub fn hashes_equal(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_unique_and_hash_stably() {
        let a = new_token();
        let b = new_token();
        assert_ne!(a, b);
        assert_eq!(a.len(), 32);
        assert!(hashes_equal(&hash_token(&a), &hash_token(&a)));
        assert!(!hashes_equal(&hash_token(&a), &hash_token(&b)));
    }
}
