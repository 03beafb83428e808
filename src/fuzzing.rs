//! Fuzzing harnesses: the per-game paths the `fuzz/` targets drive, kept in
//! the library so that each crash the fuzzer finds becomes a regression test
//! that runs the very same code (`tests/fuzz_regressions.rs`). Each harness
//! panics only on a broken invariant, never on bad input.

use std::io::Cursor;

use shakmaty::san::SanPlus;
use shakmaty::variant::VariantPosition;
use shakmaty::{Chess, Position};

use crate::check::{BatchModes, process_batch};
use crate::pgn::framer::{Batch, Framer};
use crate::replay::material::{PieceValues, material_facts, material_facts_of};
use crate::replay::{Replayer, Start, openings, setup};
use crate::stats::{AggregateOptions, Aggregates, SpillDirs};

/// Per-worker budget for the aggregates: large enough that a fuzz input
/// never spills (spilling is tested on its own), small enough to notice a
/// runaway.
const BUDGET: usize = 64 << 20;

/// Frames `data` as a PGN stream and runs every game through the import's
/// per-game path. Asserts that every framed game is accounted for once.
/// Returns (games framed, accepted, rejected).
pub fn import_bytes(data: &[u8]) -> (u64, u64, u64) {
    let spill = SpillDirs::new(&std::env::temp_dir(), 20);
    let options = AggregateOptions {
        opening_plies: 20,
        opening_period: crate::stats::dimensions::OpeningPeriod::Month,
        budget: BUDGET,
        piece_values: PieceValues::default(),
        unwinnable_nodes: crate::replay::dead::DEFAULT_NODES,
    };
    let mut aggregates = Aggregates::new(options, &spill);
    chunked_framing_agrees(data);
    let mut framer = Framer::new(Cursor::new(data));
    let mut next_game_id = 0;
    let (mut accepted, mut rejected) = (0, 0);
    loop {
        let mut batch = Batch::default();
        match framer.fill_batch(&mut batch, &mut next_game_id, 1 << 16, 64) {
            Ok(true) => {}
            // A Cursor never fails to read.
            Ok(false) | Err(_) => break,
        }
        let strict = BatchModes {
            moves: true,
            repair: false,
        };
        let output = process_batch(&batch, &mut aggregates, strict);
        // `--repair` reads every game the strict import reads, and more.
        let repaired = process_batch(
            &batch,
            &mut aggregates,
            BatchModes {
                repair: true,
                ..strict
            },
        );
        assert!(repaired.games.len() >= output.games.len());
        assert_eq!(
            repaired.games.len() + repaired.rejects.len(),
            batch.games.len()
        );
        assert_eq!(
            output.games.len() + output.rejects.len(),
            batch.games.len(),
            "a framed game was lost or doubled"
        );
        accepted += output.games.len() as u64;
        rejected += output.rejects.len() as u64;
    }
    assert_eq!(accepted + rejected, next_game_id);
    assert_eq!(one_pass_agrees(data), next_game_id);
    assert_eq!(tag_readers_agree(data), next_game_id);
    (next_game_id, accepted, rejected)
}

/// Frames `data` on the workers' path, in chunks of a few bytes (their size
/// drawn from its first byte), and in one go; panics where the games, their
/// places and ordinals, or the input's end differ.
pub fn chunked_framing_agrees(data: &[u8]) {
    use crate::pgn::chunked::{ChunkSizes, Framing, Workers};

    // Empty input: the smallest chunks.
    let small = 1 + usize::from(data.first().copied().unwrap_or(0) % 64);
    let sizes = ChunkSizes {
        chunk_bytes: small,
        max_chunk_bytes: small * 4,
        batch_bytes: 1 << 16,
        batch_games: 64,
    };
    assert_eq!(
        Framing::in_chunks(data, sizes, Workers::on_this_thread(2)),
        Framing::whole(data, 64),
        "games framed in chunks"
    );
}

/// Frames `data` and reads every game both ways, in both comment modes of
/// the import: the one-pass parse, and pgn-reader's parse beside the token
/// audit's own walk (what the import did before, and `clean` still does).
/// Panics where they disagree on anything a row is made of: the audit's
/// findings, whether and how the game parses, and for a game the audit
/// accepts its tags, moves, NAGs and comments. Returns the games compared.
pub fn one_pass_agrees(data: &[u8]) -> u64 {
    use crate::pgn::movetext;
    use crate::pgn::visitor::{BatchParser, Comments, FeedHolder, ParseOutcome};

    let mut framer = Framer::new(Cursor::new(data));
    let mut next_game_id = 0;
    let mut batch = Batch::default();
    while let Ok(true) = framer.fill_batch(&mut batch, &mut next_game_id, 1 << 16, 64) {
        for comments in [Comments::Logged, Comments::PerMove] {
            let holder = FeedHolder::new(&batch.data);
            let mut reader = BatchParser::new(&holder, comments);
            let mut one_pass = BatchParser::new(&holder, comments);
            for (index, raw) in batch.games.iter().enumerate() {
                let next = batch
                    .games
                    .get(index + 1)
                    .map_or(batch.data.len(), |g| g.start);
                let bytes = batch.game_bytes(raw);
                let place = format!("game at line {}", raw.line);
                let report = movetext::scan(bytes, raw.line);
                let (outcome, one_pass_report) =
                    one_pass.parse_in_one_pass(bytes, raw.line, raw.tags_only);
                assert_eq!(report, one_pass_report, "{place}: audit");
                let unterminated = report
                    .problem
                    .as_ref()
                    .is_some_and(|p| p.kind == movetext::TokenProblemKind::UnterminatedComment);
                if unterminated {
                    continue;
                }
                // After a problem, a comment that does not close in the
                // frame makes pgn-reader read on into the frames after it,
                // and its outcome depends on them (the last frame of a batch
                // parses); the one pass rejects such a game for its first
                // problem, whatever follows it.
                let runs_off = report.problem.is_some()
                    && crate::pgn::lexer::Lexer::game(bytes, raw.line)
                        .any(|t| t.kind == crate::pgn::lexer::TokenKind::UnterminatedComment);
                // A frame that ends in a backslash (an input that stops in
                // a tag value's escape): pgn-reader's escape takes the
                // separator's newline and reads the separator into the
                // value; the one pass stops at the frame. Either way the
                // game is truncated and rejected as such.
                let escape_runs_off = bytes.ends_with(b"\\");
                let old = reader.parse(raw.start, raw.end, next);
                if runs_off || escape_runs_off {
                    continue;
                }
                match (old, outcome) {
                    (ParseOutcome::Game(old), ParseOutcome::Game(new)) => {
                        assert_eq!(
                            (&old.tags, &old.tag_text, old.encoding_repaired),
                            (&new.tags, &new.tag_text, new.encoding_repaired),
                            "{place}: tags"
                        );
                        // A game without tags or moves is text between games.
                        // pgn-reader also reads a move out of a word after
                        // a problem (`41e6` is `e6` to it), which the one
                        // pass does not: such a frame without tags is text
                        // between games now, an unknown token before.
                        if old.tags.is_empty() && old.sans.is_empty() {
                            assert!(new.sans.is_empty(), "{place}: moves");
                        }
                        if report.problem.is_none() {
                            assert_eq!(old, new, "{place}: game");
                            assert_eq!(reader.comment_log(), one_pass.comment_log(), "{place}");
                        }
                    }
                    (ParseOutcome::Split, ParseOutcome::Split)
                    | (ParseOutcome::SyntaxError(_), ParseOutcome::SyntaxError(_)) => {}
                    // A header running to the end of a game with movetext
                    // goes on into the next game for pgn-reader, except in
                    // the batch's last game, where it finds the end of the
                    // batch; the one pass splits it wherever it is.
                    (ParseOutcome::Game(_), ParseOutcome::Split)
                        if index + 1 == batch.games.len() => {}
                    (old, new) => panic!("{place}: pgn-reader {old:?}, one pass {new:?}"),
                }
            }
        }
        batch = Batch::default();
    }
    next_game_id
}

/// Frames `data` and reads every game's tag section with each reader of
/// tag lines built on `pgn::tag_line`: the framer (where it ended a game
/// inside its tags), the header reader, the one-pass lexer and the repair
/// reader. Panics where they disagree beyond their stated differences:
/// - the lexer stops at an escape line (`%`) the header reader steps
///   over, and at the `]` of a line after a pair without value, which
///   pgn-reader reads as that pair's closing;
/// - the framer reads a value with unescaped quotes to the last `"]` of its
///   line, a `%` after a tag on its line as an escape, a line at a time (a
///   backslash before a line break escapes nothing), and the input's last
///   line, without a line break, whole as tags, where the header reader
///   ends the value at its first quote, reads such a `%` and what follows
///   a tag on that last line as movetext, and lets the backslash take the
///   line break;
/// - the repair reader takes only names of letters, digits and `_`, undoes
///   every backslash escape (pgn-reader only `\\` and `\"`) and trims lines
///   of any whitespace (pgn-reader only of spaces, tabs and line breaks).
///
/// Returns the games compared.
pub fn tag_readers_agree(data: &[u8]) -> u64 {
    use crate::pgn::{header, visitor::SUPPORTED_TAG_LINE};

    let mut framer = Framer::new(Cursor::new(data));
    let mut next_game_id = 0;
    let mut batch = Batch::default();
    while let Ok(true) = framer.fill_batch(&mut batch, &mut next_game_id, 1 << 16, 64) {
        for raw in &batch.games {
            let bytes = batch.game_bytes(raw);
            let head = String::from_utf8_lossy(&bytes[..bytes.len().min(200)]);
            let place = format!("game at line {} ({head:?})", raw.line);
            let mut tags = Vec::new();
            let header = header::read_header(bytes, SUPPORTED_TAG_LINE, |name, value| {
                tags.push((name.to_vec(), value.0.to_vec()));
            });
            let Ok(header) = header else {
                // A tag line pgn-reader cannot hold: a syntax error.
                continue;
            };
            let lexer = crate::pgn::lexer::Lexer::game(bytes, raw.line).position();
            let header_end = header.unwrap_or(bytes.len());
            let at_lexer = bytes.get(lexer).copied();
            assert!(
                lexer == header_end
                    || (lexer < header_end && matches!(at_lexer, Some(b'%' | b']'))),
                "{place}: the lexer's tag section ends at {lexer}, the header reader's at {header_end}"
            );
            if raw.tags_only && header_end < bytes.len() {
                let line_end = crate::pgn::tag_line::line_end(bytes, header_end);
                // The framer's value ran on to a later `"]` of the line.
                let framer_repair =
                    memchr::memmem::find(&bytes[header_end..line_end], b"\"]").is_some();
                let escape_after_tag = bytes[header_end] == b'%';
                let escaped_break = memchr::memmem::find(bytes, b"\\\n").is_some();
                let last_line_unbroken = line_end == bytes.len();
                assert!(
                    framer_repair || escape_after_tag || escaped_break || last_line_unbroken,
                    "{place}: the framer ended the game in its tags, the header reader finds movetext at {header_end}"
                );
            }
            repair_reader_agrees(bytes, &tags, header_end, &place);
        }
        batch = Batch::default();
    }
    next_game_id
}

/// The repair reader reads a header the header reader reads whole the same
/// way: same names, same values (those without escapes), movetext after
/// the same tags. Only games in UTF-8 without a byte-order mark: the repair
/// reader reads decoded text.
fn repair_reader_agrees(bytes: &[u8], tags: &[(Vec<u8>, Vec<u8>)], header_end: usize, place: &str) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    // Whitespace pgn-reader does not know as such (a form feed, a no-break
    // space) ends its header where the repair reader reads on.
    let odd_space = |c: char| c.is_whitespace() && !matches!(c, ' ' | '\t' | '\r' | '\n');
    if text.starts_with('\u{feff}') || text.contains(odd_space) {
        return;
    }
    let Some(section) = crate::check::tag_section::read_tag_section(text) else {
        return;
    };
    if !section.repairs.is_empty() {
        return;
    }
    let names: Vec<&str> = section.tags.iter().map(|(n, _)| n.as_str()).collect();
    let header_names: Vec<String> = tags
        .iter()
        .map(|(n, _)| String::from_utf8_lossy(n).trim().to_owned())
        .collect();
    assert_eq!(names, header_names, "{place}: tag names");
    for ((_, value), (_, raw)) in section.tags.iter().zip(tags) {
        if !raw.contains(&b'\\') {
            assert_eq!(value.as_bytes(), raw.as_slice(), "{place}: tag value");
        }
    }
    // The repair reader trims lines of any whitespace (a form feed, a
    // no-break space), pgn-reader only of spaces, tabs and line breaks.
    let (lo, hi) = if section.movetext <= header_end {
        (section.movetext, header_end)
    } else {
        (header_end, section.movetext)
    };
    let between = text.get(lo..hi);
    assert!(
        between.is_some_and(|b| b.trim().is_empty()),
        "{place}: the repair reader's movetext at {}, the header reader's at {header_end}",
        section.movetext
    );
}

/// The start of a structured replay input.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
pub enum StartInput {
    Standard,
    /// One of a few fixed set-ups ([`SETUPS`]), standard or Chess960.
    Setup {
        index: u8,
        chess960: bool,
    },
    /// Any text as the FEN tag.
    Fen {
        text: String,
        chess960: bool,
    },
    /// One of the lichess variants ([`VARIANTS`]), from its start or any
    /// text as the FEN tag.
    Variant {
        index: u8,
        fen: Option<String>,
    },
}

/// `Variant` tags of the variants pgnlake replays.
pub const VARIANTS: &[&str] = &[
    "Crazyhouse",
    "Atomic",
    "Antichess",
    "King of the Hill",
    "Three-check",
    "Horde",
    "Racing Kings",
];

/// A move token of a structured replay input.
#[derive(Debug, Clone)]
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
pub enum TokenInput {
    /// Text, read as SAN.
    San(String),
    /// The n-th legal move (modulo their number), written as SAN.
    Legal(u16),
}

#[derive(Debug, Clone)]
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
pub struct ReplayInput {
    pub start: StartInput,
    pub tokens: Vec<TokenInput>,
}

/// Set-ups worth starting from: castling both ways, en passant, promotion,
/// a Chess960 array, a near-stalemate, a bare-kings ending.
pub const SETUPS: &[&str] = &[
    "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "8/P6k/8/8/8/8/6Kp/8 w - - 0 1",
    "bqnrkrnb/pppppppp/8/8/8/8/PPPPPPPP/BQNRKRNB w FDfd - 0 1",
    "7k/5Q2/6K1/8/8/8/8/8 w - - 0 1",
    "8/8/4k3/8/8/3K4/8/8 w - - 98 120",
];

/// Sets up `input.start`, turns the tokens into SAN (legal-move indices are
/// resolved on a shadow board) and replays them, then derives the material
/// and opening facts as the import does.
pub fn replay_tokens(input: &ReplayInput) {
    let (variant, fen) = match &input.start {
        StartInput::Standard => (None, None),
        StartInput::Setup { index, chess960 } => (
            chess960.then_some("Chess960"),
            SETUPS.get(usize::from(*index) % SETUPS.len()).copied(),
        ),
        StartInput::Fen { text, chess960 } => (chess960.then_some("Chess960"), Some(text.as_str())),
        StartInput::Variant { index, fen } => (
            VARIANTS.get(usize::from(*index) % VARIANTS.len()).copied(),
            fen.as_deref(),
        ),
    };
    let Ok(start) = setup(variant, fen) else {
        return;
    };
    let mut shadow: Option<VariantPosition> = Some(start.pos.clone());
    let mut sans = Vec::with_capacity(input.tokens.len());
    for token in &input.tokens {
        let san = match token {
            TokenInput::San(text) => SanPlus::from_ascii(text.as_bytes()).ok(),
            TokenInput::Legal(n) => shadow.as_ref().and_then(|pos| {
                let legal = pos.legal_moves();
                let count = legal.len();
                (count > 0)
                    .then(|| legal.get(usize::from(*n) % count).cloned())
                    .flatten()
                    .map(|m| SanPlus::from_move(pos.clone(), m))
            }),
        };
        let Some(san) = san else { continue };
        shadow = shadow.and_then(|pos| {
            let m = san.san.to_move(&pos).ok()?;
            let mut next = pos;
            next.play_unchecked(m);
            Some(next)
        });
        sans.push(san);
    }
    let mut replayer = Replayer::default();
    if let Ok(replayed) = replayer.replay(start, &sans) {
        assert!(replayed.plies as usize <= sans.len());
        let (board, turn) = replayer.start();
        let values = PieceValues::default();
        let facts = match replayer.variant_materials() {
            Some(materials) => material_facts_of(materials, replayer.final_board(), &values),
            None => material_facts(
                board,
                turn,
                replayer.moves(),
                replayer.final_board(),
                &values,
            ),
        };
        assert!(facts.max_white_lead >= 0 && facts.max_black_lead >= 0);
        let _ = openings::index().classify(replayer.keys());
    }
}

#[derive(Debug, Clone)]
#[cfg_attr(feature = "fuzzing", derive(arbitrary::Arbitrary))]
pub struct RepairInput {
    /// Index into [`SETUPS`] plus one; 0 is the standard start.
    pub start: u8,
    pub movetext: String,
}

/// Repairs `input.movetext` from the chosen start; every repaired move (and
/// every move kept before a failure, for `--salvage`) must be legal in turn
/// and its SAN must read back to the same move.
pub fn repair_movetext(input: &RepairInput) {
    let start = match usize::from(input.start) % (SETUPS.len() + 1) {
        0 => Chess::default(),
        n => match SETUPS
            .get(n - 1)
            .and_then(|fen| setup(None, Some(fen)).ok())
        {
            Some(Start {
                pos: VariantPosition::Chess(pos),
                ..
            }) => pos,
            _ => return,
        },
    };
    // A failed repair's moves before the failure are what `--salvage`
    // keeps: they must be legal too.
    let repaired = match crate::check::repair::repair(&start, &input.movetext) {
        Ok(repaired) => repaired,
        Err(error) => error.before,
    };
    let mut pos = start;
    for m in &repaired.moves {
        assert!(pos.is_legal(m.m), "repair produced an illegal move");
        assert_eq!(
            m.san.san.to_move(&pos).ok(),
            Some(m.m),
            "SAN does not read back"
        );
        pos.play_unchecked(m.m);
    }
}
