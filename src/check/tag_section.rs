//! The per-game path, a rejected game's tag section read again (`clean
//! --repair`, `import --repair`): tag pairs as PGN writes them, with one repair, a value with
//! unescaped quotes inside (`[Event "The "Big" Open"]`), which runs from the
//! first quote to the last `"]` of its line, as the framer reads it.

use crate::check::repair::{Repair, RepairClass};

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

/// One line of tag pairs into `section`.
fn read_tag_line(line: &str, section: &mut TagSection) -> Option<()> {
    let mut rest = line;
    while !rest.is_empty() {
        let body = rest.strip_prefix('[')?.trim_start();
        let name_len = body
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(body.len());
        let name = body.get(..name_len).filter(|n| !n.is_empty())?;
        let quoted = body.get(name_len..)?.trim_start().strip_prefix('"')?;
        match closed_value(quoted) {
            Some((value, after)) => {
                section.tags.push((name.to_owned(), value));
                rest = after.trim_start();
            }
            None => {
                // Unescaped quotes: the value is everything up to the last
                // `"]` of the line, which ends the line's last tag.
                let value = quoted.strip_suffix(']')?.trim_end().strip_suffix('"')?;
                section.repairs.push(Repair {
                    class: RepairClass::UnescapedQuotes,
                    ply: None,
                    detail: format!("{name}: {value:?} read as one value"),
                });
                section.tags.push((name.to_owned(), value.to_owned()));
                rest = "";
            }
        }
    }
    Some(())
}

/// A value after its opening quote, read to the closing quote (backslash
/// escapes) and the `]` after it: the unescaped value and what follows the
/// `]`. None when the closing quote is not followed by `]`.
fn closed_value(quoted: &str) -> Option<(String, &str)> {
    let mut value = String::new();
    let mut chars = quoted.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '\\' => value.extend(chars.next().map(|(_, c)| c)),
            '"' => {
                let after = quoted.get(at + 1..)?.trim_start().strip_prefix(']')?;
                return Some((value, after));
            }
            _ => value.push(c),
        }
    }
    None
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
