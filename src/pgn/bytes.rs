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

#[cfg(test)]
mod tests {
    use super::*;

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
