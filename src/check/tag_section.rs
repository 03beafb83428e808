//! The per-game path, a rejected game's tag section read again (`clean
//! --repair`, `import --repair`): tag pairs as PGN writes them, with one repair, a value with
//! unescaped quotes inside (`[Event "The "Big" Open"]`), which runs from the
//! first quote to the last `"]` of its line, as the framer reads it. The
//! pairs themselves are read by the one tag-line reader, `pgn::tag_line`.

use crate::check::repair::{Repair, RepairClass};
use crate::pgn::tag_line::{self, Met};

/// A game's tags (values unescaped) and where its movetext starts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct TagSection {
    pub(crate) tags: Vec<(String, String)>,
    pub(crate) repairs: Vec<Repair>,
    /// Byte offset of the movetext in the game's text.
    pub(crate) movetext: usize,
}

/// Reads the tag section at the start of `text`: lines of tag pairs (one or
/// several per line), blank lines and `%` escape lines, up to the first
/// other line. None when a line starting with `[` is not tag pairs, even
/// read with the quote repair: such a game stays rejected.
pub(crate) fn read_tag_section(text: &str) -> Option<TagSection> {
    let mut section = TagSection::default();
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('%') {
            section.movetext += line.len();
            continue;
        }
        if !trimmed.starts_with('[') {
            break;
        }
        read_tag_line(trimmed, &mut section)?;
        section.movetext += line.len();
    }
    Some(section)
}

/// One line of tag pairs into `section`, each pair read by
/// [`tag_line::pair`]: a name of letters, digits and `_` between the `[`
/// and the value's quote, the value to its closing quote, then `]`. A value
/// whose closing quote is not followed by `]` has unescaped quotes inside:
/// it runs to the last `"]` of the line. None for anything else.
fn read_tag_line(line: &str, section: &mut TagSection) -> Option<()> {
    let mut rest = line;
    while !rest.is_empty() {
        let body = rest.strip_prefix('[')?;
        let pair = tag_line::pair(body.as_bytes());
        if !pair.met.has_value() {
            return None;
        }
        // The spans end at quotes or at the line's end: character
        // boundaries.
        let name = body.get(..pair.value.start - 1)?.trim();
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return None;
        }
        let closed = match pair.met {
            Met::Quote => body.get(pair.end..)?.trim_start().strip_prefix(']'),
            _ => None,
        };
        if let Some(after) = closed {
            let value = unescape(body.get(pair.value)?);
            section.tags.push((name.to_owned(), value));
            rest = after.trim_start();
            continue;
        }
        // Unescaped quotes: the value is everything up to the last `"]` of
        // the line, which ends the line's last tag.
        let quoted = body.get(pair.value.start..)?;
        let value = quoted.strip_suffix(']')?.trim_end().strip_suffix('"')?;
        section.repairs.push(Repair {
            class: RepairClass::UnescapedQuotes,
            ply: None,
            detail: format!("{name}: {value:?} read as one value"),
        });
        section.tags.push((name.to_owned(), value.to_owned()));
        rest = "";
    }
    Some(())
}

/// A value as written, its backslash escapes undone.
fn unescape(raw: &str) -> String {
    let mut value = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => value.extend(chars.next()),
            _ => value.push(c),
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_pairs_and_the_quote_repair() {
        let text = "[Event \"The \"Big\" Open\"]\n[White \"\"Learning with fun\"\"]\n\
                    [Black \"A \\\"B\\\"\"] [Round \"1\"]\n% escape\n\n1. e4 *\n";
        let section = read_tag_section(text).unwrap_or_else(|| panic!("unread"));
        let tags: Vec<(&str, &str)> = section
            .tags
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            tags,
            vec![
                ("Event", "The \"Big\" Open"),
                ("White", "\"Learning with fun\""),
                ("Black", "A \"B\""),
                ("Round", "1"),
            ]
        );
        assert_eq!(section.repairs.len(), 2);
        assert_eq!(
            section.repairs.first().map(|r| r.detail.as_str()),
            Some("Event: \"The \\\"Big\\\" Open\" read as one value")
        );
        assert_eq!(text.get(section.movetext..), Some("1. e4 *\n"));
    }

    #[test]
    fn a_line_that_is_no_tag_pair_is_not_guessed() {
        assert_eq!(read_tag_section("[White \"x\" junk]\n1. e4 *"), None);
        assert_eq!(read_tag_section("[White x]\n1. e4 *"), None);
        assert_eq!(read_tag_section("[White \"x\n1. e4 *"), None);
    }
}
