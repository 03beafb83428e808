//! The per-game path, accepted games in `import`: the games row (tags in
//! their columns, the result audit, material, speed, draw reason, opening)
//! and the game added to the worker's aggregates.

use std::borrow::Cow;

use shakmaty::Position;

use crate::check::moves::GameMoves;
use crate::check::reread::{as_read_text, rejected_as_ambiguous, repairable, repairs_text, reread};
use crate::check::{CheckedGame, check_game, for_each_game, game_place};
use crate::model::TimeClass;
use crate::pgn::Span;
use crate::pgn::annotations::{AnnotationCounts, GameClocks};
use crate::pgn::bytes::raw_hash;
use crate::pgn::framer::{Batch, RawGame, SEPARATOR};
use crate::pgn::result::GameResult;
use crate::pgn::tags;
use crate::pgn::time_control;
use crate::pgn::visitor::{BatchParser, Comments, FeedHolder};
use crate::profile::{self, Stage, Timer};
use crate::replay::Replayer;
use crate::replay::audit::{self, Declared, ResultCheck};
use crate::replay::draw::draw_reason;
use crate::replay::material::{PieceValues, material_facts, material_facts_of};
use crate::replay::openings;
use crate::replay::scout::Prefilter;
use crate::replay::variant::VariantName;
use crate::sink::rows::{GameRow, MoveRow, RejectRow};
use crate::stats::dimensions::Dimensions;
use crate::stats::outcomes::OutcomeFacts;
use crate::stats::tree::GameFacts;
use crate::stats::{Aggregates, RunCounts};

/// What a batch of games turned into.
#[derive(Debug, Default)]
pub struct BatchOutput {
    pub games: Vec<GameRow>,
    pub rejects: Vec<RejectRow>,
    /// Every mainline ply of the accepted games (with `--moves` only).
    pub moves: Vec<MoveRow>,
    pub counts: RunCounts,
}

/// What an import does with a batch besides checking its games.
#[derive(Debug, Clone, Copy, Default)]
pub struct BatchModes {
    /// One moves row per mainline ply of each accepted game (`--moves`).
    pub moves: bool,
    /// Each game rejected for its notation or tags read again through
    /// repair (`--repair`).
    pub repair: bool,
}

/// Parses, audits and replays every game of a batch, in order, and adds
/// the accepted games to the worker's aggregates; with `modes.moves`, one
/// row per mainline ply of each accepted game too.
pub fn process_batch(
    batch: &Batch,
    aggregates: &mut Aggregates<'_>,
    modes: BatchModes,
) -> BatchOutput {
    let mut out = BatchOutput::default();
    let piece_values = aggregates.options.piece_values;
    let comments = if modes.moves {
        Comments::PerMove
    } else {
        Comments::Logged
    };
    for_each_game(
        batch,
        comments,
        aggregates.options.unwinnable_nodes,
        |raw, next, parser, replayer| {
            let checked = process_game(
                batch,
                raw,
                next,
                parser,
                replayer,
                &mut out.counts.annotations,
                modes.moves.then_some((&mut out.moves, &piece_values)),
            );
            let checked = match checked {
                Err(row) if modes.repair && repairable(row.reason) => {
                    let move_rows = modes.moves.then_some((&mut out.moves, &piece_values));
                    let game = RejectedGame { batch, raw, row };
                    repaired_row(game, replayer, comments, &mut out.counts, move_rows)
                }
                other => other,
            };
            match checked {
                Ok(mut row) => {
                    let mut timer = Timer::start();
                    add_to_aggregates(&mut row, replayer, aggregates);
                    profile::lap(&mut timer, Stage::Statistics);
                    out.counts
                        .count_accepted(row.replayed.end_state, row.result_check);
                    if row.variant_name.is_standard_rules() {
                        out.counts
                            .unwinnable
                            .add(row.replayed.can_mate, row.replayed.can_mate_asked);
                    }
                    out.games.push(row);
                }
                Err(row) => {
                    out.counts.count_rejected(row.reason);
                    out.rejects.push(*row);
                }
            }
        },
    );
    out
}

/// A game the strict path rejected: where it is, and its reject row.
struct RejectedGame<'a> {
    batch: &'a Batch,
    raw: &'a RawGame,
    row: Box<RejectRow>,
}

/// `--repair`: a rejected game read again by `clean --repair`'s rules,
/// written as it was read in standard notation, and that text checked by
/// the strict path like any game, so that every column means what it means
/// for a game read as written. The row keeps the game's place and the
/// hash of its bytes as read, and names what was mended (`repairs`, and
/// the run's counts). A game repair cannot read keeps its first reject
/// row, unless a token fits several legal moves (`ambiguous_move`).
fn repaired_row(
    game: RejectedGame<'_>,
    replayer: &mut Replayer,
    comments: Comments,
    counts: &mut RunCounts,
    move_rows: Option<(&mut Vec<MoveRow>, &PieceValues)>,
) -> Result<GameRow, Box<RejectRow>> {
    let RejectedGame { batch, raw, row } = game;
    let bytes = batch.game_bytes(raw);
    let Some(reread) = reread(bytes) else {
        return Err(row);
    };
    let repaired = match reread.moves() {
        Some(Ok(repaired)) => repaired,
        Some(Err(error)) if error.ambiguous => {
            return Err(Box::new(rejected_as_ambiguous(
                *row,
                error.token,
                error.ply,
            )));
        }
        Some(Err(_)) | None => return Err(row),
    };
    let text = as_read_text(&reread, &repaired);
    // Framed as the framer frames a game: its bytes up to its last token,
    // then the separator.
    let end = text.trim_end().len();
    let mut data = text.into_bytes();
    data.truncate(end);
    data.extend_from_slice(SEPARATOR);
    let raw_as_read = RawGame {
        start: 0,
        end,
        // Alone in its batch, a header that runs to its end is all of it
        // (pgn-reader reads no further game).
        tags_only: true,
        ..*raw
    };
    let as_read = Batch {
        source: batch.source,
        games: Vec::new(),
        data,
    };
    let holder = FeedHolder::new(&as_read.data);
    let mut parser = BatchParser::new(&holder, comments);
    let checked = process_game(
        &as_read,
        &raw_as_read,
        as_read.data.len(),
        &mut parser,
        replayer,
        &mut counts.annotations,
        move_rows,
    );
    let Ok(mut checked) = checked else {
        // Repair's reading did not replay as the strict path reads it:
        // the game stays as first rejected.
        return Err(row);
    };
    let mut repairs = reread.repairs;
    repairs.extend(repaired.repairs);
    checked.raw_hash = raw_hash(bytes);
    checked.encoding_repaired |= reread.encoding_repaired;
    checked.repairs = repairs_text(&repairs);
    counts.repaired += 1;
    for repair in &repairs {
        *counts.repairs.entry(repair.class.as_str()).or_default() += 1;
    }
    Ok(checked)
}

/// Derives the per-game statistics columns (material, speed, draw reason,
/// opening) and adds the game to the worker's aggregates. Games from a
/// set-up position, Chess960 and the other variants have no opening and
/// stay out of the tree.
fn add_to_aggregates(row: &mut GameRow, replayer: &Replayer, aggregates: &mut Aggregates<'_>) {
    let declared = row.declared_result;
    let counted = counted_result(row.result_check, declared, row.replayed.result_by_rule);
    let values = &aggregates.options.piece_values;
    let (start, turn) = replayer.start();
    let walked = replayer.variant_materials().is_none();
    row.search_filter = Prefilter::of_game(start, turn, replayer.moves(), walked).columns();
    row.material = match replayer.variant_materials() {
        Some(materials) => material_facts_of(materials, replayer.final_board(), values),
        None => material_facts(
            start,
            turn,
            replayer.moves(),
            replayer.final_board(),
            values,
        ),
    };
    if !row.variant_name.has_endgames() {
        row.material.endgame_ply = None;
        row.material.endgame_material = None;
    }
    row.time_class = TimeClass::of_tag(row.tag(row.time_control));
    row.draw_reason = draw_reason(counted, &row.replayed);
    let outcome = OutcomeFacts {
        variant: row.variant_name,
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
    if row.start_fen.is_some() || row.variant_name != VariantName::Standard {
        return;
    }
    let keys = replayer.keys();
    row.opening = openings::index().classify(keys);
    let facts = GameFacts {
        game_id: row.place.game_id,
        result: counted,
        white_elo: row.white_elo.and_then(|e| u32::try_from(e).ok()),
        black_elo: row.black_elo.and_then(|e| u32::try_from(e).ok()),
        year: row.year.and_then(|y| u16::try_from(y).ok()),
        dims: Dimensions::of(
            row.time_class,
            row.white_elo,
            row.black_elo,
            row.year_month,
            aggregates.options.opening_period,
        ),
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

fn process_game(
    batch: &Batch,
    raw: &RawGame,
    next: usize,
    parser: &mut BatchParser<'_>,
    replayer: &mut Replayer,
    annotation_counts: &mut AnnotationCounts,
    // Where the game's moves rows go (`--moves`), and the piece values.
    move_rows: Option<(&mut Vec<MoveRow>, &PieceValues)>,
) -> Result<GameRow, Box<RejectRow>> {
    let CheckedGame {
        mut game,
        report,
        start,
        start_fen,
        chess960,
        variant,
        fen_repaired,
        replayed,
    } = check_game(batch, raw, next, parser, replayer)?;
    let mut timer = Timer::start();
    let declared = Declared {
        tag: game.text(game.result),
        marker: report.marker,
    };
    let check = audit::check(declared, &replayed);
    let declared_result = declared.result();
    let mut row = GameRow {
        place: game_place(raw),
        raw_hash: raw_hash(batch.game_bytes(raw)),
        variant_name: variant,
        chess960,
        start_fen,
        fen_repaired: fen_repaired.is_some(),
        result_marker: report.marker.map(|m| m.as_str()),
        declared_result,
        result_check: check,
        replayed,
        encoding_repaired: game.encoding_repaired,
        ..GameRow::default()
    };
    fill_tags(&mut row, &mut game.tags, &game.tag_text);
    if move_rows.is_some() {
        row.clocks = GameClocks::of(&game.annotations, start.turn());
        annotation_counts.add_game(&game.annotations);
    } else {
        row.clocks = GameClocks::of_log(parser.comment_log(), start.turn());
    }
    row.base_increment = row
        .time_control
        .and_then(|tag| time_control::base_and_increment(tag.of(&game.tag_text)));
    row.text = std::mem::take(&mut game.tag_text);
    if let Some((rows, piece_values)) = move_rows {
        let game_moves = GameMoves {
            game_id: raw.game_id,
            start: &start,
            chess960,
            increment_ms: row
                .base_increment
                .and_then(|(_, increment)| i64::try_from(increment).ok())
                .map(|seconds| seconds * 1000),
            annotations: &game.annotations,
            nags: &game.nags,
        };
        game_moves.push_rows(replayer, piece_values, rows);
    }
    parser.recycle(game);
    profile::lap(&mut timer, Stage::Statistics);
    Ok(row)
}

/// `?`, empty and non-numbers give null. The raw text of an unreadable
/// rating (or rating change) stays in `extra_tags`.
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
    let (mut utc_date, mut utc_time) = (None, None);
    for (name, span) in tags.drain(..) {
        // Kept in `extra_tags` as written too: `utc_timestamp` is derived
        // from them, as `year` is from `date`.
        match name.as_ref() {
            "UTCDate" => utc_date = utc_date.or(Some(span)),
            "UTCTime" => utc_time = utc_time.or(Some(span)),
            _ => {}
        }
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
            "WhiteElo" | "BlackElo" | "WhiteRatingDiff" | "BlackRatingDiff" => {
                let value = span.of(text);
                let (slot, parsed) = match name.as_ref() {
                    "WhiteElo" => (&mut row.white_elo, parse_elo(value)),
                    "BlackElo" => (&mut row.black_elo, parse_elo(value)),
                    "WhiteRatingDiff" => (&mut row.white_rating_diff, tags::rating_diff(value)),
                    _ => (&mut row.black_rating_diff, tags::rating_diff(value)),
                };
                let blank = matches!(value.trim(), "" | "?" | "-");
                if slot.is_none() && (parsed.is_some() || blank) {
                    *slot = parsed;
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
    row.utc_timestamp_ms = utc_date
        .zip(utc_time)
        .and_then(|(date, time)| tags::utc_timestamp_ms(date.of(text), time.of(text)));
    row.year_month =
        tags::date_year_and_month(utc_date.map(|d| d.of(text)), row.date.map(|d| d.of(text)));
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
            ("UTCDate", "2001.01.02"),
            ("UTCTime", "00:00:01"),
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
        assert_eq!(row.utc_timestamp_ms, Some(978_393_601_000));
        let extras: Vec<(&str, &str)> = row
            .extra_tags
            .iter()
            .map(|(n, v)| (n.as_ref(), v.of(&row.text)))
            .collect();
        assert_eq!(
            extras,
            vec![
                ("BlackElo", "x"),
                ("Foo", "bar"),
                ("White", "B"),
                ("UTCDate", "2001.01.02"),
                ("UTCTime", "00:00:01")
            ]
        );
    }
}
