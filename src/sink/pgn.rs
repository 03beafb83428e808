//! Sink stage, PGN writer: games in the PGN standard's export format (Seven
//! Tag Roster first, escaped tag values, move numbers, comments and NAGs,
//! lines of at most 80 characters, a result marker), for `pgnlake clean`
//! and `export`, and a repaired game as read for `import --repair`.

use std::borrow::Cow;
use std::fmt::Write as _;

/// The Seven Tag Roster, in its order, with the value written when a game
/// lacks the tag (the `Result` default is the game's result).
const SEVEN_TAG_ROSTER: [(&str, &str); 7] = [
    ("Event", "?"),
    ("Site", "?"),
    ("Date", "????.??.??"),
    ("Round", "?"),
    ("White", "?"),
    ("Black", "?"),
    ("Result", "*"),
];

/// Longest movetext line.
pub(crate) const LINE_WIDTH: usize = 80;

/// One move with what follows it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ExportMove {
    /// SAN with `+` / `#`.
    pub san: String,
    pub nags: Vec<u8>,
    pub comments: Vec<String>,
    /// Alternatives to this move, written after it in parentheses.
    pub variations: Vec<ExportLine>,
}

/// A variation: its moves start with the move number of the move it
/// replaces.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ExportLine {
    pub leading_comments: Vec<String>,
    pub moves: Vec<ExportMove>,
}

/// A game to write.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ExportGame {
    /// Tags in their original order; the roster is moved to the front.
    pub tags: Vec<(String, String)>,
    /// Comments before the first move.
    pub leading_comments: Vec<String>,
    pub moves: Vec<ExportMove>,
    /// Move number and side of the first move (from the FEN, else 1 white).
    pub first_move_number: u32,
    pub white_first: bool,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`; written as the marker and, when the
    /// tags lack one, as the `Result` tag.
    pub result: String,
}

/// `"` and `\` escaped with a backslash.
pub(crate) fn escape_tag_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Appends `game` in export format, followed by a blank line.
pub(crate) fn write_game(game: &ExportGame, out: &mut String) {
    write_tags(game, out);
    write_movetext(game, out);
}

/// Appends `game` with its tags as they are (in their order, none added,
/// none moved), its movetext, and its result marker only when `result` is
/// not empty: a repaired game as it was read, for `import --repair` to
/// check like any other.
pub(crate) fn write_game_as_read(game: &ExportGame, out: &mut String) {
    for (name, value) in &game.tags {
        write_tag(out, name, value);
    }
    write_movetext(game, out);
}

/// A blank line, the movetext and its marker, a blank line.
fn write_movetext(game: &ExportGame, out: &mut String) {
    out.push('\n');
    let mut lines = Lines::new(out);
    for comment in &game.leading_comments {
        lines.comment(comment);
    }
    write_moves(
        &mut lines,
        &game.moves,
        game.first_move_number.max(1),
        game.white_first,
    );
    if !game.result.is_empty() {
        lines.token(&game.result);
    }
    lines.finish();
    out.push('\n');
}

/// Writes `moves` from move `number` (`white` to move), with their NAGs,
/// comments and variations. A black move gets `N...` when it opens the line
/// or follows a comment or a variation.
fn write_moves(lines: &mut Lines<'_>, moves: &[ExportMove], mut number: u32, mut white: bool) {
    let mut need_number = true;
    for m in moves {
        if white {
            lines.token(&format!("{number}."));
        } else if need_number {
            lines.token(&format!("{number}..."));
        }
        lines.token(&m.san);
        for nag in &m.nags {
            lines.token(&format!("${nag}"));
        }
        for comment in &m.comments {
            lines.comment(comment);
        }
        for variation in &m.variations {
            lines.open();
            for comment in &variation.leading_comments {
                lines.comment(comment);
            }
            write_moves(lines, &variation.moves, number, white);
            lines.close();
        }
        need_number = !m.comments.is_empty() || !m.variations.is_empty();
        if !white {
            number += 1;
        }
        white = !white;
    }
}

/// `[Name "value"]` and a line break.
fn write_tag(out: &mut String, name: &str, value: &str) {
    let _ = writeln!(out, "[{name} \"{}\"]", escape_tag_value(value));
}

fn write_tags(game: &ExportGame, out: &mut String) {
    let tag = write_tag;
    for (name, default) in SEVEN_TAG_ROSTER {
        let value = game
            .tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str());
        let fallback = if name == "Result" {
            game.result.as_str()
        } else {
            default
        };
        tag(out, name, value.unwrap_or(fallback));
    }
    let mut seen = [false; SEVEN_TAG_ROSTER.len()];
    for (name, value) in &game.tags {
        // The first of each roster tag is already out; repeats stay, in order.
        if let Some(i) = SEVEN_TAG_ROSTER.iter().position(|(n, _)| n == name)
            && let Some(first) = seen.get_mut(i)
            && !*first
        {
            *first = true;
            continue;
        }
        tag(out, name, value);
    }
}

/// Movetext tokens joined by spaces, wrapped at [`LINE_WIDTH`].
struct Lines<'a> {
    out: &'a mut String,
    line: usize,
    /// The next token follows without a space (after `(`).
    glue: bool,
}

impl<'a> Lines<'a> {
    fn new(out: &'a mut String) -> Self {
        Lines {
            out,
            line: 0,
            glue: false,
        }
    }

    fn token(&mut self, token: &str) {
        let width = token.chars().count();
        let glue = std::mem::take(&mut self.glue);
        if self.line > 0 && self.line + usize::from(!glue) + width > LINE_WIDTH {
            self.out.push('\n');
            self.line = 0;
        }
        if self.line > 0 && !glue {
            self.out.push(' ');
            self.line += 1;
        }
        self.out.push_str(token);
        self.line += width;
    }

    /// `{text}`; runs of white space, line breaks included, become one
    /// space, and braces parentheses (a comment cannot hold `}`: text kept
    /// from a broken movetext may). A comment that fits on a line is kept
    /// whole; a longer one is wrapped between its words.
    fn comment(&mut self, text: &str) {
        let text = if text.contains(['{', '}']) {
            Cow::Owned(text.replace('{', "(").replace('}', ")"))
        } else {
            Cow::Borrowed(text)
        };
        let words: Vec<&str> = text.split_whitespace().collect();
        let whole = format!("{{{}}}", words.join(" "));
        if whole.chars().count() <= LINE_WIDTH {
            self.token(&whole);
            return;
        }
        match words.as_slice() {
            [] => self.token("{}"),
            [only] => self.token(&format!("{{{only}}}")),
            [first, middle @ .., last] => {
                self.token(&format!("{{{first}"));
                for word in middle {
                    self.token(word);
                }
                self.token(&format!("{last}}}"));
            }
        }
    }

    /// `(`, glued to the token that follows.
    fn open(&mut self) {
        self.token("(");
        self.glue = true;
    }

    /// `)`, glued to the token before.
    fn close(&mut self) {
        if self.line + 1 > LINE_WIDTH {
            self.out.push('\n');
            self.line = 0;
        }
        self.out.push(')');
        self.line += 1;
    }

    fn finish(self) {
        self.out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(sans: &str) -> Vec<ExportMove> {
        sans.split_whitespace()
            .map(|san| ExportMove {
                san: san.to_owned(),
                ..ExportMove::default()
            })
            .collect()
    }

    #[test]
    fn roster_first_escaped_values_and_wrapped_movetext() {
        let mut game = ExportGame {
            tags: vec![
                ("ECO".into(), "C20".into()),
                ("White".into(), "O\"Kelly \\ de Galway".into()),
                ("Event".into(), "Test".into()),
                ("Annotator".into(), "me".into()),
                ("White".into(), "second".into()),
            ],
            moves: moves(
                "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7 c4 c6",
            ),
            first_move_number: 1,
            white_first: true,
            result: "1/2-1/2".into(),
            ..ExportGame::default()
        };
        game.moves[1].nags = vec![2];
        game.moves[1].comments = vec!["a  dubious\nreply".into()];
        let mut out = String::new();
        write_game(&game, &mut out);
        let expected = r#"[Event "Test"]
[Site "?"]
[Date "????.??.??"]
[Round "?"]
[White "O\"Kelly \\ de Galway"]
[Black "?"]
[Result "1/2-1/2"]
[ECO "C20"]
[Annotator "me"]
[White "second"]

1. e4 e5 $2 {a dubious reply} 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1
b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7 11. c4 c6 1/2-1/2

"#;
        assert_eq!(out, expected);
        assert!(out.lines().all(|l| l.chars().count() <= LINE_WIDTH));
    }

    #[test]
    fn black_to_move_and_moves_after_comments_get_dots() {
        let mut game = ExportGame {
            moves: moves("Kh7 Qh4+ Kg8"),
            first_move_number: 12,
            white_first: false,
            result: "*".into(),
            leading_comments: vec!["from a set-up".into()],
            ..ExportGame::default()
        };
        game.moves[1].comments = vec!["check".into()];
        let mut out = String::new();
        write_game(&game, &mut out);
        let movetext = out.split("\n\n").nth(1).unwrap_or_else(|| panic!("{out}"));
        assert_eq!(
            movetext,
            "{from a set-up} 12... Kh7 13. Qh4+ {check} 13... Kg8 *"
        );
    }

    #[test]
    fn variations_in_parentheses_with_their_move_numbers() {
        let mut game = ExportGame {
            moves: moves("e4 e5 Nf3 Nc6"),
            first_move_number: 1,
            white_first: true,
            result: "*".into(),
            ..ExportGame::default()
        };
        let mut sicilian = ExportLine {
            moves: moves("c5 Nf3"),
            ..ExportLine::default()
        };
        sicilian.moves[0].variations = vec![ExportLine {
            leading_comments: vec!["or".into()],
            moves: moves("e6"),
        }];
        game.moves[1].variations = vec![sicilian];
        game.moves[2].variations = vec![ExportLine {
            moves: moves("f4"),
            ..ExportLine::default()
        }];
        let mut out = String::new();
        write_game(&game, &mut out);
        assert_eq!(
            out.split("\n\n").nth(1).unwrap_or_else(|| panic!("{out}")),
            "1. e4 e5 (1... c5 ({or} 1... e6) 2. Nf3) 2. Nf3 (2. f4) 2... Nc6 *"
        );
    }

    /// `1. e4 {comment} *`, written.
    fn written_with_comment(comment: String) -> String {
        let game = ExportGame {
            moves: vec![ExportMove {
                san: "e4".into(),
                comments: vec![comment],
                ..ExportMove::default()
            }],
            first_move_number: 1,
            white_first: true,
            result: "*".into(),
            ..ExportGame::default()
        };
        let mut out = String::new();
        write_game(&game, &mut out);
        out
    }

    #[test]
    fn a_long_comment_wraps_between_words() {
        let out = written_with_comment("word ".repeat(40));
        assert!(
            out.lines().all(|l| l.chars().count() <= LINE_WIDTH),
            "{out}"
        );
        assert!(out.contains("1. e4 {word word"));
        assert!(out.contains("word} *\n"));
    }

    /// Regression: text kept from a broken movetext (after its result)
    /// held a `{…}` comment, and the `}` ended the written comment early.
    #[test]
    fn braces_inside_a_comment_become_parentheses() {
        let out = written_with_comment("Bc4 { Match game 1 } *".into());
        assert!(
            out.contains("\n1. e4 {Bc4 ( Match game 1 ) *} *\n"),
            "{out}"
        );
    }
}
