//! PGN stage, parsing: a pgn-reader visitor that turns one framed game into
//! its tags (decoded, Windows-1252 fallback) and mainline SAN moves. The
//! reader is reused across the games of a batch so its buffer is allocated
//! once per batch, not once per game.

use std::borrow::Cow;
use std::cell::Cell;
use std::io::{self, Read};
use std::ops::ControlFlow;

use pgn_reader::{Nag, RawComment, RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::Color;

use crate::pgn::Span;
use crate::pgn::annotations::{Annotation, CommentLog, mover};
use crate::pgn::movetext::{self, MovetextReport};
use crate::pgn::{encoding, header};

/// Longest tag line and comment pgn-reader keeps whole. Real files (TCEC's
/// 1 KB engine comments, lichess study tags) exceed the 255-byte default. A
/// longer comment still parses (in pieces, which this visitor ignores); a
/// longer tag line is rejected as `malformed_tag`. Larger values cost speed:
/// pgn-reader asks for this much lookahead before every token.
pub(crate) const SUPPORTED_TAG_LINE: usize = 16 << 10;
pub(crate) const SUPPORTED_COMMENT: usize = 8 << 10;
/// The most pgn-reader looks ahead at once with these settings.
pub(crate) const READER_LOOKAHEAD: usize = if SUPPORTED_TAG_LINE > SUPPORTED_COMMENT + 2 {
    SUPPORTED_TAG_LINE
} else {
    SUPPORTED_COMMENT + 2
};

/// The static name of a common tag, so that it need not be allocated.
fn known_tag(name: &[u8]) -> Option<&'static str> {
    Some(match name {
        b"Event" => "Event",
        b"Site" => "Site",
        b"Date" => "Date",
        b"Round" => "Round",
        b"White" => "White",
        b"Black" => "Black",
        b"Result" => "Result",
        b"WhiteElo" => "WhiteElo",
        b"BlackElo" => "BlackElo",
        b"WhiteTitle" => "WhiteTitle",
        b"BlackTitle" => "BlackTitle",
        b"TimeControl" => "TimeControl",
        b"Termination" => "Termination",
        b"ECO" => "ECO",
        b"Opening" => "Opening",
        b"Variant" => "Variant",
        b"FEN" => "FEN",
        b"SetUp" => "SetUp",
        b"EventDate" => "EventDate",
        b"PlyCount" => "PlyCount",
        b"WhiteFideId" => "WhiteFideId",
        b"BlackFideId" => "BlackFideId",
        b"UTCDate" => "UTCDate",
        b"UTCTime" => "UTCTime",
        // On every rated lichess game.
        b"WhiteRatingDiff" => "WhiteRatingDiff",
        b"BlackRatingDiff" => "BlackRatingDiff",
        _ => return None,
    })
}

/// Bytes of tag values a game usually has (lichess: about 250).
const TYPICAL_TAG_TEXT: usize = 320;

/// A game as pgn-reader saw it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct ParsedGame {
    /// The decoded tag values, back to back.
    pub tag_text: String,
    /// Tag pairs in file order: the name (common names are static, not
    /// allocated) and where the value is in `tag_text`.
    pub tags: Vec<(Cow<'static, str>, Span)>,
    /// Mainline moves (variations skipped).
    pub sans: Vec<SanPlus>,
    /// Some tag was not UTF-8 and was decoded as Windows-1252.
    pub encoding_repaired: bool,
    /// The first `Variant`, `FEN` and `Result` tags, which replay and the
    /// audit read for every game.
    pub variant: Option<Span>,
    pub fen: Option<Span>,
    pub result: Option<Span>,
    /// Comments and NAGs of the mainline, when the parser was asked to keep
    /// them (`pgnlake clean`); empty otherwise.
    pub notes: Vec<Note>,
    /// Variations met (counted only when notes are kept).
    pub variations: u32,
    /// Variations of the mainline, when notes are kept.
    pub lines: Vec<VarLine>,
    /// Variations nested deeper than [`MAX_VARIATION_DEPTH`], skipped whole.
    pub too_deep_variations: u32,
    /// What the comments after mainline moves say (clocks, evaluations),
    /// by ply (1-based), in ply order; only plies with a comment. Read
    /// with [`Comments::PerMove`] (`import --moves`).
    pub annotations: Vec<(u32, Annotation)>,
    /// NAGs of mainline moves by ply, in order (when notes are not kept).
    pub nags: Vec<(u32, u8)>,
}

/// Deepest variation nesting kept. Deeper ones are skipped (pgn-reader skips
/// without recursion), so that no nesting in the input can make the
/// recursive parts (building, replaying and writing variations) overflow
/// the stack: 100,000 nested variations was a stack overflow in `clean`.
pub(crate) const MAX_VARIATION_DEPTH: usize = 64;

/// A variation: an alternative to move `replaces` of its parent line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct VarLine {
    pub replaces: u32,
    pub leading_comments: Vec<String>,
    pub moves: Vec<VarMove>,
}

/// A move of a variation with its annotations and sub-variations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct VarMove {
    pub san: SanPlus,
    pub nags: Vec<u8>,
    pub comments: Vec<String>,
    pub variations: Vec<VarLine>,
}

/// A comment or NAG and the number of mainline moves before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Note {
    pub after_plies: u32,
    pub kind: NoteKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NoteKind {
    Comment(String),
    Nag(u8),
}

impl ParsedGame {
    /// First value of a tag.
    pub(crate) fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.of(&self.tag_text))
    }

    /// The text of one of the remembered tags.
    pub(crate) fn text(&self, span: Option<Span>) -> Option<&str> {
        span.map(|s| s.of(&self.tag_text))
    }
}

/// What the parser keeps of a game's comments.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Comments {
    /// Comments and NAGs as written, and variations (`clean`'s export;
    /// they cost an allocation each).
    Notes,
    /// What each mainline move's comments say, read as they come
    /// (`import --moves`).
    PerMove,
    /// The mainline comments' bytes, read later only as far as the games
    /// columns need (`import`).
    #[default]
    Logged,
}

/// Collects one game; keeps the previous game's buffers to fill again.
#[derive(Default)]
struct Collect {
    spare: ParsedGame,
    comments: Comments,
    /// The game's mainline comments as written, with [`Comments::Logged`].
    log: CommentLog,
    /// A comment longer than pgn-reader's buffer, arriving in chunks.
    partial: Vec<u8>,
    /// Variations being read, innermost last.
    open: Vec<VarLine>,
    /// Black moves first (a `FEN` tag says so): tells whose move a
    /// comment follows.
    black_starts: bool,
}

impl Collect {
    fn note(&self, game: &mut ParsedGame, kind: NoteKind) {
        game.notes.push(Note {
            after_plies: game.sans.len() as u32,
            kind,
        });
    }
}

impl Visitor for Collect {
    type Tags = ParsedGame;
    type Movetext = ParsedGame;
    type Output = ParsedGame;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        let mut game = std::mem::take(&mut self.spare);
        game.tags.clear();
        game.tag_text.clear();
        // The text moves into the row; start the next one at a typical size.
        game.tag_text.reserve(TYPICAL_TAG_TEXT);
        game.sans.clear();
        game.encoding_repaired = false;
        game.variant = None;
        game.fen = None;
        game.result = None;
        game.notes.clear();
        game.variations = 0;
        game.too_deep_variations = 0;
        game.lines.clear();
        game.annotations.clear();
        game.nags.clear();
        self.partial.clear();
        self.open.clear();
        self.log.clear();
        ControlFlow::Continue(game)
    }

    fn tag(
        &mut self,
        game: &mut ParsedGame,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        let (name, name_repaired) = match known_tag(name) {
            Some(known) => (Cow::Borrowed(known), false),
            None => {
                let (name, repaired) = encoding::decode(name);
                (Cow::Owned(name), repaired)
            }
        };
        let start = game.tag_text.len() as u32;
        let value_repaired = encoding::decode_into(&value.decode(), &mut game.tag_text);
        let span = Span {
            start,
            end: game.tag_text.len() as u32,
        };
        game.encoding_repaired |= name_repaired | value_repaired;
        let remembered = match name.as_ref() {
            "Variant" => &mut game.variant,
            "FEN" => &mut game.fen,
            "Result" => &mut game.result,
            _ => &mut None,
        };
        remembered.get_or_insert(span);
        game.tags.push((name, span));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, game: ParsedGame) -> ControlFlow<Self::Output, ParsedGame> {
        self.black_starts = start_turn(game.text(game.fen)) == Color::Black;
        ControlFlow::Continue(game)
    }

    fn san(&mut self, game: &mut ParsedGame, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        match self.open.last_mut() {
            Some(line) => line.moves.push(VarMove {
                san: san_plus,
                nags: Vec::new(),
                comments: Vec::new(),
                variations: Vec::new(),
            }),
            None => game.sans.push(san_plus),
        }
        ControlFlow::Continue(())
    }

    fn nag(&mut self, game: &mut ParsedGame, nag: Nag) -> ControlFlow<Self::Output> {
        if self.comments == Comments::Notes {
            if self.open.is_empty() {
                self.note(game, NoteKind::Nag(nag.0));
            } else if let Some(m) = self.open.last_mut().and_then(|line| line.moves.last_mut()) {
                m.nags.push(nag.0);
            }
            // A NAG before a variation's first move annotates nothing.
        } else if let Some(ply) = mainline_ply(game) {
            game.nags.push((ply, nag.0));
        }
        ControlFlow::Continue(())
    }

    fn partial_comment(
        &mut self,
        _game: &mut ParsedGame,
        comment: RawComment<'_>,
    ) -> ControlFlow<Self::Output> {
        // Kept whole in both modes: a piece alone could read as a value.
        self.partial.extend_from_slice(comment.as_bytes());
        ControlFlow::Continue(())
    }

    fn comment(
        &mut self,
        game: &mut ParsedGame,
        comment: RawComment<'_>,
    ) -> ControlFlow<Self::Output> {
        if self.comments == Comments::Notes {
            self.partial.extend_from_slice(comment.as_bytes());
            let text = encoding::decode(&self.partial).0.trim().to_owned();
            self.partial.clear();
            match self.open.last_mut() {
                Some(line) => match line.moves.last_mut() {
                    Some(m) => m.comments.push(text),
                    None => line.leading_comments.push(text),
                },
                None => self.note(game, NoteKind::Comment(text)),
            }
        } else if let Some(ply) = mainline_ply(game) {
            let whole = if self.partial.is_empty() {
                comment.as_bytes()
            } else {
                self.partial.extend_from_slice(comment.as_bytes());
                &self.partial
            };
            let start_turn = Color::from_white(!self.black_starts);
            if self.comments == Comments::PerMove {
                annotate(game, ply, start_turn, whole);
            } else {
                self.log.push(ply, mover(ply, start_turn), whole);
            }
            self.partial.clear();
        } else {
            self.partial.clear();
        }
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, game: &mut ParsedGame) -> ControlFlow<Self::Output, Skip> {
        if self.comments != Comments::Notes {
            return ControlFlow::Continue(Skip(true));
        }
        game.variations += 1;
        if self.open.len() >= MAX_VARIATION_DEPTH {
            game.too_deep_variations += 1;
            return ControlFlow::Continue(Skip(true));
        }
        // The variation is an alternative to the last move of its parent
        // line (u32::MAX when there is none: it cannot be replayed).
        let parent_moves = match self.open.last() {
            Some(line) => line.moves.len(),
            None => game.sans.len(),
        };
        let replaces = parent_moves
            .checked_sub(1)
            .and_then(|i| u32::try_from(i).ok())
            .unwrap_or(u32::MAX);
        self.open.push(VarLine {
            replaces,
            ..VarLine::default()
        });
        ControlFlow::Continue(Skip(false))
    }

    fn end_variation(&mut self, game: &mut ParsedGame) -> ControlFlow<Self::Output> {
        if let Some(line) = self.open.pop() {
            match self.open.last_mut() {
                Some(parent) => match parent.moves.get_mut(line.replaces as usize) {
                    Some(m) => m.variations.push(line),
                    None => {
                        if let Some(m) = parent.moves.last_mut() {
                            m.variations.push(line);
                        }
                    }
                },
                None => game.lines.push(line),
            }
        }
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, mut game: ParsedGame) -> Self::Output {
        // Variations left open at the end of the game are closed here.
        while !self.open.is_empty() {
            let _ = self.end_variation(&mut game);
        }
        game
    }
}

/// The side to move of a `FEN` tag (White without one; a FEN that does not
/// parse rejects the game later).
fn start_turn(fen: Option<&str>) -> Color {
    match fen.and_then(|f| f.split_whitespace().nth(1)) {
        Some("b") => Color::Black,
        _ => Color::White,
    }
}

/// The mainline ply a comment or NAG follows (none before the first move).
fn mainline_ply(game: &ParsedGame) -> Option<u32> {
    u32::try_from(game.sans.len()).ok().filter(|&n| n > 0)
}

/// Reads a comment after mainline ply `ply` into the game's annotations
/// (only plies whose comments say something get an entry).
fn annotate(game: &mut ParsedGame, ply: u32, start_turn: Color, comment: &[u8]) {
    let mover = mover(ply, start_turn);
    match game.annotations.last_mut() {
        Some((last, annotation)) if *last == ply => annotation.read_comment(comment, mover),
        _ => {
            // Read in place: copying the struct after its fields were just
            // written stalls (store forwarding), on every move of a lichess
            // export.
            game.annotations.push((ply, Annotation::default()));
            let said_nothing = game.annotations.last_mut().is_some_and(|(_, annotation)| {
                annotation.read_comment(comment, mover);
                *annotation == Annotation::default()
            });
            if said_nothing {
                game.annotations.pop();
            }
        }
    }
}

/// A batch's bytes, fed to pgn-reader as one stream. `pos` is how far the
/// reader has pulled, so the parser can tell where each game ended.
struct Feed<'a> {
    data: &'a [u8],
    pos: Cell<usize>,
}

impl Read for &Feed<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let start = self.pos.get();
        // Set only to where a game's frame starts, or the batch's end.
        let chunk = &self.data[start..];
        let n = chunk.len().min(out.len());
        out[..n].copy_from_slice(&chunk[..n]);
        self.pos.set(start + n);
        Ok(n)
    }
}

/// How pgn-reader read one framed game.
#[derive(Debug)]
pub(crate) enum ParseOutcome {
    Game(ParsedGame),
    /// pgn-reader reported a syntax error (unterminated comment or tag).
    SyntaxError(String),
    /// pgn-reader ended the game before the framer did: the frame holds
    /// more than one game for it.
    Split,
}

/// Owns a batch's feed so that the reader can borrow it.
pub(crate) struct FeedHolder<'a>(Feed<'a>);

impl<'a> FeedHolder<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        FeedHolder(Feed {
            data,
            pos: Cell::new(0),
        })
    }
}

fn new_reader<'a>(feed: &'a Feed<'a>) -> Reader<&'a Feed<'a>> {
    Reader::build(feed)
        .set_supported_tag_line_length(SUPPORTED_TAG_LINE)
        .set_supported_comment_length(SUPPORTED_COMMENT)
        .finish()
}

/// Parses the framed games of one batch with a single streaming pgn-reader,
/// checking after each game that the reader stopped where the framer did.
pub(crate) struct BatchParser<'a> {
    feed: &'a Feed<'a>,
    reader: Reader<&'a Feed<'a>>,
    collect: Collect,
}

impl<'a> BatchParser<'a> {
    pub fn new(holder: &'a FeedHolder<'a>, comments: Comments) -> Self {
        BatchParser {
            feed: &holder.0,
            reader: new_reader(&holder.0),
            collect: Collect {
                comments,
                ..Collect::default()
            },
        }
    }

    /// The mainline comments of the game parsed last, as written (with
    /// [`Comments::Logged`]; empty otherwise): the games columns read the
    /// last few.
    pub(crate) fn comment_log(&self) -> &CommentLog {
        &self.collect.log
    }

    /// Hands a finished game's buffers back for the next game.
    pub(crate) fn recycle(&mut self, game: ParsedGame) {
        self.collect.spare = game;
    }

    /// Bytes of the batch the reader has consumed.
    fn consumed(&self) -> usize {
        self.feed
            .pos
            .get()
            .saturating_sub(self.reader.buffer().len())
    }

    /// Restarts the reader at `pos` (after an error or a disagreement).
    fn reset_to(&mut self, pos: usize) {
        self.feed.pos.set(pos);
        self.reader = new_reader(self.feed);
    }

    /// Parses the game framed at `start..end`; `next` is where the following
    /// game's frame starts (or the batch's length).
    pub fn parse(&mut self, start: usize, end: usize, next: usize) -> ParseOutcome {
        let at = self.consumed();
        let gap_is_blank = self
            .feed
            .data
            .get(at..start)
            .is_some_and(|gap| gap.iter().all(u8::is_ascii_whitespace));
        if !gap_is_blank {
            self.reset_to(start);
        }
        match self.reader.read_game(&mut self.collect) {
            Ok(Some(game)) => {
                let stopped = self.consumed();
                if (end..=next).contains(&stopped) {
                    ParseOutcome::Game(game)
                } else {
                    self.reset_to(next);
                    ParseOutcome::Split
                }
            }
            Ok(None) => ParseOutcome::Game(ParsedGame::default()),
            Err(e) => {
                self.reset_to(next);
                ParseOutcome::SyntaxError(e.to_string())
            }
        }
    }
}

impl BatchParser<'_> {
    /// Whether [`Self::parse_in_one_pass`] serves this parser's comments
    /// mode: not `clean`'s notes, which keep variations.
    pub(crate) fn reads_in_one_pass(&self) -> bool {
        self.collect.comments != Comments::Notes
    }

    /// Parses and audits one framed game (`bytes`, from line `first_line`)
    /// in one walk over its movetext: the header as pgn-reader reads it
    /// ([`header`]), the movetext with the audit's lexer, which hands the
    /// mainline's moves, NAGs and comments to the same visitor pgn-reader
    /// would call. Same games, tags, moves and comments as [`Self::parse`]
    /// with [`movetext::scan`] (a test compares them on every fixture and
    /// corpus file), without copying the bytes through pgn-reader's buffer.
    /// `tags_only`: the framer ended the game in its header (see
    /// [`RawGame::tags_only`](crate::pgn::framer::RawGame)).
    pub(crate) fn parse_in_one_pass(
        &mut self,
        bytes: &[u8],
        first_line: u64,
        tags_only: bool,
    ) -> (ParseOutcome, MovetextReport) {
        let collect = &mut self.collect;
        let mut game = match collect.begin_tags() {
            ControlFlow::Continue(game) | ControlFlow::Break(game) => game,
        };
        let header = header::read_header(bytes, SUPPORTED_TAG_LINE, |name, value| {
            let _ = collect.tag(&mut game, name, value);
        });
        let movetext_start = match header {
            // A header that runs to the end of a game the framer saw
            // movetext in goes on, for pgn-reader, into the game after it
            // (blank lines do not end a header).
            Ok(Some(start)) if start >= bytes.len() && !tags_only => Err(ParseOutcome::Split),
            Ok(Some(start)) => Ok(start),
            Ok(None) => Err(ParseOutcome::Game(ParsedGame::default())),
            Err(error) => Err(ParseOutcome::SyntaxError(error.to_owned())),
        };
        let movetext_start = match movetext_start {
            Ok(start) => start,
            Err(outcome) => {
                self.recycle(game);
                return (outcome, movetext::scan(bytes, first_line));
            }
        };
        let mut game = match collect.begin_movetext(game) {
            ControlFlow::Continue(game) | ControlFlow::Break(game) => game,
        };
        let mut mainline = MainlineInto {
            collect,
            game: &mut game,
        };
        let scanned = movetext::scan_into(bytes, first_line, &mut mainline);
        // pgn-reader stops at a blank line or a tag line: before the
        // frame's end, it would read more than one game here. (A comment
        // that does not close in the frame is a problem of its own; after
        // another problem, pgn-reader would read on into the games after
        // the frame, which the framer has cut already: the first problem
        // names the reject.)
        let stops_at = if scanned.movetext_start == movetext_start {
            scanned.stops_at
        } else {
            crate::pgn::lexer::movetext_stop(bytes, movetext_start)
        };
        if stops_at.is_some_and(|at| at < bytes.len()) {
            self.recycle(game);
            return (ParseOutcome::Split, scanned.report);
        }
        let game = self.collect.end_game(game);
        (ParseOutcome::Game(game), scanned.report)
    }
}

/// The visitor, fed by the audit's walk over the mainline.
struct MainlineInto<'a> {
    collect: &'a mut Collect,
    game: &'a mut ParsedGame,
}

impl movetext::Mainline for MainlineInto<'_> {
    const NOTES: bool = true;

    fn san(&mut self, text: &[u8]) -> bool {
        match movetext::parse_san(text) {
            Some(san) => {
                let _ = self.collect.san(self.game, san);
                true
            }
            None => false,
        }
    }

    fn nag(&mut self, nag: u8) {
        let _ = self.collect.nag(self.game, Nag(nag));
    }

    fn comment(&mut self, text: &[u8]) {
        let _ = self.collect.comment(self.game, RawComment(text));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_one(text: &[u8]) -> ParseOutcome {
        let mut data = text.to_vec();
        data.extend_from_slice(crate::pgn::framer::SEPARATOR);
        let holder = FeedHolder::new(&data);
        let mut parser = BatchParser::new(&holder, Comments::PerMove);
        parser.parse(0, text.len(), data.len())
    }

    #[test]
    fn keeps_comments_and_nags_only_when_asked() {
        let text = b"[Event \"x\"]\n\n{start} 1. e4 {good   move} e5 $1 (1... c5 {no}) 2. Nf3 !? *";
        let mut data = text.to_vec();
        data.extend_from_slice(crate::pgn::framer::SEPARATOR);
        let holder = FeedHolder::new(&data);
        let mut parser = BatchParser::new(&holder, Comments::Notes);
        let ParseOutcome::Game(game) = parser.parse(0, text.len(), data.len()) else {
            panic!("not a game");
        };
        let notes: Vec<(u32, NoteKind)> = game
            .notes
            .iter()
            .map(|n| (n.after_plies, n.kind.clone()))
            .collect();
        assert_eq!(
            notes,
            vec![
                (0, NoteKind::Comment("start".into())),
                (1, NoteKind::Comment("good   move".into())),
                (2, NoteKind::Nag(1)),
                (3, NoteKind::Nag(5)),
            ]
        );
        assert_eq!(game.variations, 1);
        let ParseOutcome::Game(plain) = parse_one(text) else {
            panic!("not a game");
        };
        assert!(plain.notes.is_empty());
        assert_eq!(plain.variations, 0);
    }

    #[test]
    fn collects_tags_and_mainline() {
        let text = b"[White \"M\xfcller\"]\n[Black \"B\"]\n\n1. e4 (1. d4) e5 {c} 2. Nf3 *\n";
        let ParseOutcome::Game(game) = parse_one(text) else {
            panic!("expected a game");
        };
        assert_eq!(game.tag("White"), Some("Müller"));
        assert!(game.encoding_repaired);
        let sans: Vec<String> = game.sans.iter().map(|s| s.to_string()).collect();
        assert_eq!(sans, vec!["e4", "e5", "Nf3"]);
    }

    #[test]
    fn reuses_the_reader_across_frames() {
        let text = b"1. e4 *\n\n\n1. d4 d5 *\n\n\n";
        let holder = FeedHolder::new(text);
        let mut parser = BatchParser::new(&holder, Comments::PerMove);
        let a = parser.parse(0, 8, 10);
        let b = parser.parse(10, 19, text.len());
        match (a, b) {
            (ParseOutcome::Game(a), ParseOutcome::Game(b)) => {
                assert_eq!(a.sans.len(), 1);
                assert_eq!(b.sans.len(), 2);
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn long_comments_and_tags_survive() {
        let long = "x".repeat(5000);
        let text = format!("[Annotator \"{long}\"]\n\n1. e4 {{{long}}} e5 *\n");
        let ParseOutcome::Game(game) = parse_one(text.as_bytes()) else {
            panic!("expected a game");
        };
        assert_eq!(game.tag("Annotator").map(str::len), Some(5000));
        assert_eq!(game.sans.len(), 2);
    }

    fn one_pass(text: &[u8], comments: Comments) -> (ParseOutcome, MovetextReport) {
        let holder = FeedHolder::new(b"");
        let mut parser = BatchParser::new(&holder, comments);
        parser.parse_in_one_pass(text, 1, false)
    }

    #[test]
    fn one_pass_reads_moves_nags_and_comments_of_the_mainline() {
        let text = b"[Event \"x\"]\n[FEN \"8/8/8/8/8/8/8/K6k b - - 0 1\"]\n\n\
            1... Kh2 $300 {[%clk 0:01:00]} 2. Ka2 !? (2. Kb1 {no} $4) Kh1 $14 {[%eval 0.2]} *";
        let (ParseOutcome::Game(game), report) = one_pass(text, Comments::PerMove) else {
            panic!("not a game");
        };
        assert_eq!(report.problem, None);
        assert_eq!(report.mainline_moves, 3);
        let sans: Vec<String> = game.sans.iter().map(|s| s.to_string()).collect();
        assert_eq!(sans, ["Kh2", "Ka2", "Kh1"]);
        // A NAG over 255 is no NAG (as pgn-reader reads it); the
        // variation's are not the mainline's.
        assert_eq!(game.nags, [(2, 5), (3, 14)]);
        let plies: Vec<u32> = game.annotations.iter().map(|(ply, _)| *ply).collect();
        assert_eq!(plies, [1, 3]);
        let (ParseOutcome::Game(castled), _) = one_pass(
            b"1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. 0-0+ *",
            Comments::Logged,
        ) else {
            panic!("not a game");
        };
        assert_eq!(
            castled.sans.last().map(|s| s.to_string()),
            Some("O-O+".into())
        );
    }

    #[test]
    fn one_pass_reads_moves_after_a_problem_as_pgn_reader_does() {
        // Regression: the tail of a comment cut at 32 MiB has no tags; with
        // the move after it, it is a game with an unknown token, not text
        // between games (which needs no moves for pgn-reader either).
        let (ParseOutcome::Game(game), report) = one_pass(b"aaaa } e5 1-0", Comments::Logged)
        else {
            panic!("not a game");
        };
        assert_eq!(report.problem.map(|p| p.token), Some("aaaa".to_owned()));
        assert_eq!(game.sans.len(), 1);
    }

    #[test]
    fn one_pass_tells_split_frames_and_tag_lines_too_long() {
        // pgn-reader ends this header at the unescaped quote, and the
        // movetext at the next tag line: two games for it.
        let (outcome, _) = one_pass(
            b"[Event \"a\"b\"]\n[Site \"s\"]\n\n1. e4 *",
            Comments::Logged,
        );
        assert!(matches!(outcome, ParseOutcome::Split), "{outcome:?}");
        let (outcome, _) = one_pass(b"1. e4 e5\n\n2. Nf3 *", Comments::Logged);
        assert!(matches!(outcome, ParseOutcome::Split), "{outcome:?}");
        // Regression (fuzzing): a `%` after a tag on its line starts no
        // escape line, so the `{` after it opens a comment across lines.
        let text = b"[Event \"x\"]%c { a\n[Date \"y\"] } *";
        let (outcome, report) = one_pass(text, Comments::Logged);
        assert!(matches!(outcome, ParseOutcome::Game(_)), "{outcome:?}");
        assert_eq!(
            report.problem.map(|p| (p.kind, p.token)),
            Some((movetext::TokenProblemKind::TagLine, "%c".to_owned()))
        );
        // Regression (fuzzing): after a stray `}`, a comment that does not
        // close in the frame leaves the stray `}` the reason.
        let (outcome, report) = one_pass(b"[Event \"x\"]\n[SetU\n} 1. e4 {open", Comments::Logged);
        assert!(matches!(outcome, ParseOutcome::Game(_)), "{outcome:?}");
        assert_eq!(report.problem.map(|p| p.token), Some(String::new()));
        let long = format!(
            "[Annotator \"{}\"]\n\n1. e4 *",
            "x".repeat(SUPPORTED_TAG_LINE)
        );
        let (outcome, _) = one_pass(long.as_bytes(), Comments::Logged);
        assert!(
            matches!(outcome, ParseOutcome::SyntaxError(_)),
            "{outcome:?}"
        );
    }

    #[test]
    fn unterminated_comment_is_a_syntax_error() {
        assert!(matches!(
            parse_one(b"1. e4 { never closed"),
            ParseOutcome::SyntaxError(_)
        ));
    }
}
