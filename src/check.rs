//! Per-game glue between the stages: framed bytes → pgn-reader parse and
//! token audit → replay and result audit → a games row or a rejects row.

use std::borrow::Cow;

use crate::pgn::Span;
use crate::pgn::framer::{Batch, RawGame};
use crate::pgn::movetext::{self, MovetextReport, TokenProblemKind};
use crate::pgn::result::GameResult;
use crate::pgn::time_control::TimeClass;
use crate::pgn::visitor::{BatchParser, FeedHolder, ParseOutcome, ParsedGame};
use crate::pgn::{encoding, framer};
use crate::replay::audit::{self, Declared, ResultCheck};
use crate::replay::draw::draw_reason;
use crate::replay::material::material_facts;
use crate::replay::openings;
use crate::replay::reject::{RejectReason, Rejection};
use crate::replay::{self, Replayed, Replayer};
use crate::sink::rows::{GameRow, Place, RejectRow};
use crate::stats::outcomes::OutcomeFacts;
use crate::stats::tree::GameFacts;
use crate::stats::{Aggregates, RunCounts};
use shakmaty::Chess;

/// What a batch of games turned into.
#[derive(Debug, Default)]
pub struct BatchOutput {
    pub games: Vec<GameRow>,
    pub rejects: Vec<RejectRow>,
    pub counts: RunCounts,
}

/// Parses, audits and replays every game of a batch, in order, and adds
/// the accepted games to the worker's aggregates.
pub fn process_batch(batch: &Batch, aggregates: &mut Aggregates<'_>) -> BatchOutput {
    let holder = FeedHolder::new(&batch.data);
    let mut parser = BatchParser::new(&holder);
    let mut replayer = Replayer::default();
    let mut out = BatchOutput::default();
    for (index, raw) in batch.games.iter().enumerate() {
        let next = batch
            .games
            .get(index + 1)
            .map_or(batch.data.len(), |g| g.start);
        match process_game(batch, raw, next, &mut parser, &mut replayer) {
            Ok(mut row) => {
                add_to_aggregates(&mut row, &replayer, aggregates);
                out.counts
                    .count_accepted(row.replayed.end_state, row.result_check);
                out.games.push(row);
            }
            Err(row) => {
                out.counts.count_rejected(row.reason);
                out.rejects.push(*row);
            }
        }
    }
    out
}

/// Derives the per-game statistics columns (material, speed, draw reason,
/// opening) and adds the game to the worker's aggregates. Games from a
/// set-up position or Chess960 have no opening and stay out of the tree.
fn add_to_aggregates(row: &mut GameRow, replayer: &Replayer, aggregates: &mut Aggregates<'_>) {
    let declared = row.declared_result;
    let counted = counted_result(row.result_check, declared, row.replayed.result_by_rule);
    let (start, turn) = replayer.start();
    row.material = material_facts(
        start,
        turn,
        replayer.moves(),
        replayer.final_board(),
        &aggregates.options.piece_values,
    );
    row.time_class = TimeClass::of_tag(row.tag(row.time_control));
    row.draw_reason = draw_reason(counted, &row.replayed);
    let outcome = OutcomeFacts {
        year: row.year,
        time_class: row.time_class,
        white_elo: row.white_elo,
        black_elo: row.black_elo,
        declared,
        end_state: row.replayed.end_state,
        termination: row.tag(row.termination),
        draw_reason: row.draw_reason,
        counted,
        diff_at: row.material.diff_at,
        endgame: row
            .material
            .endgame_material
            .zip(row.material.endgame_ply)
            .map(|(m, ply)| (m, row.replayed.plies - ply)),
    };
    aggregates.outcomes.add(&outcome);
    if row.start_fen.is_some() || row.chess960 {
        return;
    }
    let keys = replayer.keys();
    row.opening = openings::index().classify(keys);
    let facts = GameFacts {
        result: counted,
        white_elo: row.white_elo.and_then(|e| u32::try_from(e).ok()),
        black_elo: row.black_elo.and_then(|e| u32::try_from(e).ok()),
        year: row.year.and_then(|y| u16::try_from(y).ok()),
    };
    aggregates.add_standard_game(keys, replayer.moves(), row.opening, &facts);
}

/// The result the statistics count: the declared one when the audit found
/// it consistent with the board, otherwise the one the board proves (none
/// when it proves nothing: the game counts as unfinished).
pub fn counted_result(
    check: ResultCheck,
    declared: Option<GameResult>,
    by_rule: Option<GameResult>,
) -> Option<GameResult> {
    match check {
        ResultCheck::Consistent => declared.or(by_rule),
        _ => by_rule,
    }
}

/// A game that parsed, passed the token audit and replayed.
pub(crate) struct CheckedGame {
    pub game: ParsedGame,
    pub report: MovetextReport,
    /// The start position (the replay consumed its own copy); `clean`
    /// reads it.
    #[cfg_attr(not(feature = "tables"), allow(dead_code))]
    pub start: Chess,
    pub start_fen: Option<String>,
    pub chess960: bool,
    pub replayed: Replayed,
}

/// Frames, parses, audits and replays one game: the steps `import` and
/// `clean` share. A failure is the game's reject row.
pub(crate) fn check_game(
    batch: &Batch,
    raw: &RawGame,
    next: usize,
    parser: &mut BatchParser<'_>,
    replayer: &mut Replayer,
) -> Result<CheckedGame, Box<RejectRow>> {
    let bytes = batch.game_bytes(raw);
    let reject = |game: Option<&ParsedGame>, rejection: Rejection| {
        Box::new(reject_row(batch, raw, bytes, game, rejection))
    };
    // A game the framer cut is rejected before any scan of its (possibly
    // 32 MiB) text.
    if let Some(rejection) = frame_rejection(raw) {
        return Err(reject(None, rejection));
    }
    let report = movetext::scan(bytes, raw.line);
    let game = parse_frame(raw, next, &report, parser).map_err(|r| reject(None, r))?;
    audit_tokens(&game, &report, bytes).map_err(|r| reject(Some(&game), r))?;
    let start = replay::setup(game.text(game.variant), game.text(game.fen))
        .map_err(|r| reject(Some(&game), r))?;
    let start_fen = start.start_fen.clone();
    let chess960 = start.chess960;
    let start_pos = start.pos.clone();
    let replayed = replayer
        .replay(start, &game.sans)
        .map_err(|mut rejection| {
            if let Some(ply) = rejection.ply
                && let Some((line, _)) = movetext::locate_mainline_ply(bytes, raw.line, ply)
            {
                rejection.token_line = Some(line);
            }
            reject(Some(&game), rejection)
        })?;
    Ok(CheckedGame {
        game,
        report,
        start: start_pos,
        start_fen,
        chess960,
        replayed,
    })
}

fn process_game(
    batch: &Batch,
    raw: &RawGame,
    next: usize,
    parser: &mut BatchParser<'_>,
    replayer: &mut Replayer,
) -> Result<GameRow, Box<RejectRow>> {
    let CheckedGame {
        mut game,
        report,
        start_fen,
        chess960,
        replayed,
        ..
    } = check_game(batch, raw, next, parser, replayer)?;
    let declared = Declared {
        tag: game.text(game.result),
        marker: report.marker,
    };
    let check = audit::check(declared, &replayed);
    let declared_result = declared.result();
    let mut row = GameRow {
        place: place(batch, raw),
        chess960,
        start_fen,
        result_marker: report.marker.map(|m| m.as_str()),
        declared_result,
        result_check: check,
        replayed,
        encoding_repaired: game.encoding_repaired,
        ..GameRow::default()
    };
    fill_tags(&mut row, &mut game.tags, &game.tag_text);
    row.text = std::mem::take(&mut game.tag_text);
    parser.recycle(game);
    Ok(row)
}

/// Hands the frame to pgn-reader, unless the frame is already known to be
/// unreadable (too long, or a comment that never closes).
/// The reject of a game the framer cut: at the end of a truncated input, or
/// at [`framer::MAX_GAME_BYTES`].
fn frame_rejection(raw: &RawGame) -> Option<Rejection> {
    if raw.truncated {
        let message = "the input ends inside this game (cut off or unreadable after it)";
        return Some(Rejection::new(RejectReason::TruncatedInput, message));
    }
    if raw.oversized {
        let message = format!("game longer than {} bytes", framer::MAX_GAME_BYTES);
        return Some(Rejection::new(RejectReason::OversizedGame, message));
    }
    None
}

fn parse_frame(
    raw: &RawGame,
    next: usize,
    report: &MovetextReport,
    parser: &mut BatchParser<'_>,
) -> Result<ParsedGame, Rejection> {
    if let Some(p) = &report.problem
        && p.kind == TokenProblemKind::UnterminatedComment
    {
        // pgn-reader would read on past the frame; do not hand it over.
        return Err(token_rejection(
            RejectReason::UnterminatedComment,
            "unterminated comment",
            p,
        ));
    }
    match parser.parse(raw.start, raw.end, next) {
        ParseOutcome::Game(game) => Ok(game),
        ParseOutcome::SyntaxError(error) => Err(Rejection::new(
            RejectReason::MalformedTag,
            format!("malformed tag: {error}"),
        )),
        // pgn-reader ended the game early, nearly always at a broken tag
        // line (an unescaped quote, text after the value).
        ParseOutcome::Split => Err(match &report.problem {
            Some(p) => token_rejection(RejectReason::MalformedTag, "malformed tag section near", p),
            None => Rejection::new(
                RejectReason::MalformedTag,
                "malformed tag section: pgn-reader reads more than one game here",
            ),
        }),
    }
}

/// Rejects text that is no game, and games with a token pgn-reader skipped.
fn audit_tokens(game: &ParsedGame, report: &MovetextReport, bytes: &[u8]) -> Result<(), Rejection> {
    if game.tags.is_empty() && game.sans.is_empty() && report.mainline_moves == 0 {
        let text = encoding::decode(bytes).0;
        let preview: String = text.trim().chars().take(60).collect();
        let message = format!("text between games: {preview:?}");
        return Err(Rejection::new(RejectReason::Garbage, message));
    }
    if let Some(problem) = &report.problem {
        let (reason, what) = match problem.kind {
            TokenProblemKind::Unknown => (RejectReason::UnknownToken, "unknown token"),
            TokenProblemKind::AfterResult => (RejectReason::UnknownToken, "text after the result"),
            TokenProblemKind::TagLine => (RejectReason::MalformedTag, "malformed tag line near"),
            TokenProblemKind::UnparsableSan => (RejectReason::UnparsableSan, "unparsable SAN"),
            TokenProblemKind::UnterminatedComment => {
                (RejectReason::UnterminatedComment, "unterminated comment")
            }
        };
        return Err(token_rejection(reason, what, problem));
    }
    if report.mainline_moves as usize != game.sans.len() {
        let message = format!(
            "token audit counts {} mainline moves, pgn-reader {}",
            report.mainline_moves,
            game.sans.len()
        );
        return Err(Rejection::new(RejectReason::UnknownToken, message));
    }
    Ok(())
}

pub(crate) fn place(batch: &Batch, raw: &RawGame) -> Place {
    Place {
        game_id: raw.game_id,
        source: batch.source,
        game_index: raw.game_index,
        offset: raw.offset,
        line: raw.line,
    }
}

fn token_rejection(
    reason: RejectReason,
    what: &str,
    problem: &movetext::TokenProblem,
) -> Rejection {
    let mut rejection = Rejection::new(
        reason,
        format!(
            "{what} {:?} at line {} (before ply {})",
            problem.token, problem.line, problem.ply
        ),
    )
    .at(problem.ply, problem.token.clone());
    rejection.token_line = Some(problem.line);
    rejection
}

fn reject_row(
    batch: &Batch,
    raw: &RawGame,
    bytes: &[u8],
    game: Option<&ParsedGame>,
    rejection: Rejection,
) -> RejectRow {
    // Without pgn-reader's tags, read the header directly.
    let fallback = match game {
        Some(_) => Vec::new(),
        None => movetext::quick_tags(bytes),
    };
    let tag = |name: &str| match game {
        Some(g) => g.tag(name).map(str::to_owned),
        None => fallback
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone()),
    };
    // A huge reject keeps only its head: its text is copied several times
    // on the way into Parquet (row, column, page, statistics), and an 8 MiB
    // garbage "game" cost 200 MiB of memory before these caps.
    let kept = bytes.get(..MAX_RAW_PGN).unwrap_or(bytes);
    let (raw_pgn, raw_repaired) = encoding::decode(kept);
    RejectRow {
        place: place(batch, raw),
        reason: rejection.reason,
        message: cap_chars(rejection.message, MAX_MESSAGE_CHARS),
        ply: rejection.ply,
        token: rejection.token.map(|t| cap_chars(t, MAX_TOKEN_CHARS)),
        token_line: rejection.token_line,
        white: tag("White"),
        black: tag("Black"),
        event: tag("Event"),
        date: tag("Date"),
        encoding_repaired: game.is_some_and(|g| g.encoding_repaired) || raw_repaired,
        raw_pgn,
    }
}

/// Bytes of a rejected game kept in `raw_pgn` (its head; the game's place
/// finds the rest).
pub const MAX_RAW_PGN: usize = 1 << 20;
/// Characters kept of a reject's `token` and `message`.
pub const MAX_TOKEN_CHARS: usize = 200;
pub const MAX_MESSAGE_CHARS: usize = 1000;

/// `text` cut to `max` characters, ending in `…` when cut.
fn cap_chars(text: String, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => {
            let mut cut = text;
            cut.truncate(at);
            cut.push('…');
            cut
        }
        None => text,
    }
}

/// `?`, empty and non-numbers give null. The raw text of an unreadable
/// rating stays in `extra_tags`.
fn parse_elo(value: &str) -> Option<i32> {
    value.trim().parse::<i32>().ok().filter(|&e| e > 0)
}

/// The year of a PGN date (`2025.05.01`, `1999.??.??`), when it has one.
fn parse_year(date: &str) -> Option<i32> {
    let digits = date.get(..4)?;
    if digits.bytes().all(|b| b.is_ascii_digit()) {
        digits.parse().ok()
    } else {
        None
    }
}

/// Moves tag values into their columns; every other tag (and every repeat
/// of a column's tag) goes to `extra_tags`.
fn fill_tags(row: &mut GameRow, tags: &mut Vec<(Cow<'static, str>, Span)>, text: &str) {
    for (name, span) in tags.drain(..) {
        let slot = match name.as_ref() {
            "Event" => &mut row.event,
            "Site" => &mut row.site,
            "Date" => &mut row.date,
            "Round" => &mut row.round,
            "White" => &mut row.white,
            "Black" => &mut row.black,
            "WhiteTitle" => &mut row.white_title,
            "BlackTitle" => &mut row.black_title,
            "TimeControl" => &mut row.time_control,
            "Termination" => &mut row.termination,
            "ECO" => &mut row.eco_tag,
            "Opening" => &mut row.opening_tag,
            "Variant" => &mut row.variant,
            "Result" => &mut row.result_tag,
            "WhiteElo" | "BlackElo" => {
                let elo = if name == "WhiteElo" {
                    &mut row.white_elo
                } else {
                    &mut row.black_elo
                };
                let value = span.of(text);
                let parsed = parse_elo(value);
                let blank = matches!(value.trim(), "" | "?" | "-");
                if elo.is_none() && (parsed.is_some() || blank) {
                    *elo = parsed;
                } else {
                    row.extra_tags.push((name, span));
                }
                continue;
            }
            _ => {
                row.extra_tags.push((name, span));
                continue;
            }
        };
        if slot.is_none() {
            *slot = Some(span);
        } else {
            row.extra_tags.push((name, span));
        }
    }
    row.year = row.date.map(|d| d.of(text)).and_then(parse_year);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn years_and_elos() {
        assert_eq!(parse_year("2025.05.01"), Some(2025));
        assert_eq!(parse_year("1999.??.??"), Some(1999));
        assert_eq!(parse_year("????.??.??"), None);
        assert_eq!(parse_elo(" 2700 "), Some(2700));
        assert_eq!(parse_elo("?"), None);
        assert_eq!(parse_elo(""), None);
    }

    #[test]
    fn tags_fill_columns_and_extras() {
        let mut text = String::new();
        let mut tags = Vec::new();
        for (name, value) in [
            ("White", "A"),
            ("WhiteElo", "2500"),
            ("BlackElo", "x"),
            ("Foo", "bar"),
            ("White", "B"),
            ("Date", "2001.01.01"),
        ] {
            let start = text.len() as u32;
            text.push_str(value);
            let span = Span {
                start,
                end: text.len() as u32,
            };
            tags.push((Cow::Borrowed(name), span));
        }
        let mut row = GameRow::default();
        fill_tags(&mut row, &mut tags, &text);
        row.text = text;
        assert_eq!(row.tag(row.white), Some("A"));
        assert_eq!(row.white_elo, Some(2500));
        assert_eq!(row.black_elo, None);
        assert_eq!(row.year, Some(2001));
        let extras: Vec<(&str, &str)> = row
            .extra_tags
            .iter()
            .map(|(n, v)| (n.as_ref(), v.of(&row.text)))
            .collect();
        assert_eq!(
            extras,
            vec![("BlackElo", "x"), ("Foo", "bar"), ("White", "B")]
        );
    }
}
