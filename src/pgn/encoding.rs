//! PGN stage, text decoding: PGN should be UTF-8, but old archives are often
//! Latin-1 or Windows-1252. Bytes that are not valid UTF-8 are decoded as
//! Windows-1252 (never replaced by U+FFFD) and the caller is told.

/// Windows-1252 code points for bytes 0x80..=0x9F; the five undefined bytes
/// map to the C1 control of the same value, as the WHATWG encoding does.
const CP1252_HIGH: [char; 32] = [
    '\u{20AC}', '\u{0081}', '\u{201A}', '\u{0192}', '\u{201E}', '\u{2026}', '\u{2020}', '\u{2021}',
    '\u{02C6}', '\u{2030}', '\u{0160}', '\u{2039}', '\u{0152}', '\u{008D}', '\u{017D}', '\u{008F}',
    '\u{0090}', '\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}', '\u{2022}', '\u{2013}', '\u{2014}',
    '\u{02DC}', '\u{2122}', '\u{0161}', '\u{203A}', '\u{0153}', '\u{009D}', '\u{017E}', '\u{0178}',
];

/// Decodes `bytes` as UTF-8, or as Windows-1252 when that fails. The flag is
/// true when the fallback was used.
pub(crate) fn decode(bytes: &[u8]) -> (String, bool) {
    match std::str::from_utf8(bytes) {
        Ok(s) => (s.to_owned(), false),
        Err(_) => (decode_cp1252(bytes), true),
    }
}

/// Like [`decode`], appending to `out`.
pub(crate) fn decode_into(bytes: &[u8], out: &mut String) -> bool {
    match std::str::from_utf8(bytes) {
        Ok(s) => {
            out.push_str(s);
            false
        }
        Err(_) => {
            out.extend(bytes.iter().map(|&b| cp1252_char(b)));
            true
        }
    }
}

fn cp1252_char(b: u8) -> char {
    match b {
        0x80..=0x9f => CP1252_HIGH[usize::from(b - 0x80)],
        _ => char::from(b),
    }
}

fn decode_cp1252(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| cp1252_char(b)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_passes_through() {
        assert_eq!(decode("Müller".as_bytes()), ("Müller".to_string(), false));
    }

    #[test]
    fn latin1_and_cp1252_are_repaired() {
        assert_eq!(decode(b"M\xfcller"), ("Müller".to_string(), true));
        assert_eq!(decode(b"\x80 \x9c"), ("€ œ".to_string(), true));
    }
}
