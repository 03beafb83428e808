//! PGN stage, byte scanning for the short distances movetext is made of: a
//! lichess comment is 16 bytes, where memchr's setup costs more than the
//! scan; memchr takes over for long ones (TCEC's kilobyte of engine output).

/// Bytes looked at one by one before memchr takes over.
const NEAR: usize = 32;

/// Where `needle` first is in `haystack`.
pub(crate) fn find_byte(needle: u8, haystack: &[u8]) -> Option<usize> {
    let near = haystack.get(..NEAR).unwrap_or(haystack);
    if let Some(at) = near.iter().position(|&b| b == needle) {
        return Some(at);
    }
    let far = haystack.get(near.len()..)?;
    memchr::memchr(needle, far).map(|at| at + near.len())
}

/// Newlines in `bytes`.
pub(crate) fn count_newlines(bytes: &[u8]) -> u64 {
    if bytes.len() <= NEAR {
        bytes.iter().filter(|&&b| b == b'\n').count() as u64
    } else {
        memchr::memchr_iter(b'\n', bytes).count() as u64
    }
}

/// A 64-bit hash of a game's bytes as read: what an import records
/// (`games.raw_hash`) so that `export` can tell a source changed since.
/// Eight bytes a step (a game costs about 0.1 µs); stable across runs,
/// machines and versions: the tables keep it.
pub fn raw_hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mix = |h: u64, word: u64| (h ^ word).wrapping_mul(K).rotate_left(29);
    let mut h = (bytes.len() as u64).wrapping_mul(K);
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        h = mix(h, u64::from_le_bytes(word.try_into().unwrap_or([0; 8])));
    }
    let mut tail = [0u8; 8];
    for (to, from) in tail.iter_mut().zip(words.remainder()) {
        *to = *from;
    }
    h = mix(h, u64::from_le_bytes(tail));
    h ^ (h >> 32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_search_and_counts_agree_with_the_obvious_ones() {
        let text = b"{ [%clk 0:03:00] }\n\x0b\n}\n x \x8a\n\x0a\x0b}";
        for start in 0..text.len() {
            for end in start..=text.len() {
                let part = &text[start..end];
                for needle in [b'}', b'\n', b'\x0b', b'\x8a', b'q'] {
                    let obvious = part.iter().position(|&b| b == needle);
                    assert_eq!(find_byte(needle, part), obvious, "{start}..{end}");
                }
                let newlines = part.iter().filter(|&&b| b == b'\n').count() as u64;
                assert_eq!(count_newlines(part), newlines);
            }
        }
        let long = [b"x".repeat(100), b"}".to_vec()].concat();
        assert_eq!(find_byte(b'}', &long), Some(100));
    }

    #[test]
    fn raw_hashes_are_stable_and_tell_one_byte_apart() {
        // The tables keep the hash: it must never change.
        assert_eq!(raw_hash(b""), 0);
        let game = b"[Event \"x\"]\n\n1. e4 e5 1-0\n";
        assert_eq!(raw_hash(game), raw_hash(game));
        let mut changed = game.to_vec();
        for at in 0..changed.len() {
            changed[at] ^= 1;
            assert_ne!(raw_hash(&changed), raw_hash(game), "{at}");
            changed[at] ^= 1;
        }
        assert_ne!(raw_hash(&game[..game.len() - 1]), raw_hash(game));
    }

    #[test]
    fn near_and_far_agree_with_memchr() {
        for len in [0, 1, 31, 32, 33, 100, 1000] {
            for at in [0, 5, 31, 32, 33, 99, 999] {
                let mut bytes = vec![b'a'; len];
                if let Some(b) = bytes.get_mut(at) {
                    *b = b'}';
                }
                bytes.extend_from_slice(b"\n}");
                let newlines = memchr::memchr_iter(b'\n', &bytes).count() as u64;
                assert_eq!(find_byte(b'}', &bytes), memchr::memchr(b'}', &bytes));
                assert_eq!(count_newlines(&bytes), newlines);
                assert_eq!(find_byte(b'x', &bytes), None);
            }
        }
    }
}
