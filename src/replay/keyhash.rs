//! Replay stage, hashing: position keys are already Zobrist hashes, so
//! the maps keyed by them need only a cheap mix, not SipHash.

use std::hash::{BuildHasher, Hasher};

/// Builds [`KeyMix`] hashers.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct KeyHasher;

impl BuildHasher for KeyHasher {
    type Hasher = KeyMix;

    fn build_hasher(&self) -> KeyMix {
        KeyMix(0)
    }
}

/// Multiply-rotate mixing (as in FxHash) of the integers written to it.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct KeyMix(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl KeyMix {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for KeyMix {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            for (slot, byte) in word.iter_mut().zip(chunk) {
                *slot = *byte;
            }
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, word: u64) {
        self.add(word);
    }

    fn write_u16(&mut self, word: u16) {
        self.add(u64::from(word));
    }

    fn write_u32(&mut self, word: u32) {
        self.add(u64::from(word));
    }
}
