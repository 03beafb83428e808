//! Sink stage, rows: one struct per table row, filled by the workers and
//! turned into Parquet columns by the writer.

use std::borrow::Cow;

use crate::model::TimeClass;
use crate::pgn::Span;
use crate::pgn::annotations::GameClocks;
use crate::pgn::result::GameResult;
use crate::replay::Replayed;
use crate::replay::audit::ResultCheck;
use crate::replay::draw::DrawReason;
use crate::replay::material::MaterialFacts;
use crate::replay::moves::MoveFacts;
use crate::replay::openings::OpeningMatch;
use crate::replay::reject::RejectReason;
use crate::replay::variant::VariantName;

/// Where a game is: the identity columns both tables share.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Place {
    pub game_id: u64,
    pub source: u32,
    pub game_index: u64,
    pub offset: u64,
    pub line: u64,
}

/// One accepted game (`games.parquet`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameRow {
    pub place: Place,
    /// [`crate::pgn::bytes::raw_hash`] of the game's bytes as read.
    pub raw_hash: u64,
    /// The decoded tag values, back to back; the tag fields point into it,
    /// so that a game costs one allocation for all its tags.
    pub text: String,
    pub event: Option<Span>,
    pub site: Option<Span>,
    pub date: Option<Span>,
    pub year: Option<i32>,
    pub round: Option<Span>,
    pub white: Option<Span>,
    pub black: Option<Span>,
    pub white_elo: Option<i32>,
    pub black_elo: Option<i32>,
    /// `WhiteRatingDiff` / `BlackRatingDiff` (lichess), when readable.
    pub white_rating_diff: Option<i32>,
    pub black_rating_diff: Option<i32>,
    pub white_title: Option<Span>,
    pub black_title: Option<Span>,
    pub time_control: Option<Span>,
    pub termination: Option<Span>,
    pub eco_tag: Option<Span>,
    pub opening_tag: Option<Span>,
    /// The deepest named position of the mainline (standard start only).
    pub opening: Option<OpeningMatch>,
    /// The search pre-filter's six columns
    /// ([`crate::replay::scout::Prefilter::columns`]).
    pub search_filter: [i64; 6],
    pub variant: Option<Span>,
    /// The rules the game was replayed by (the `Variant` tag normalised).
    pub variant_name: VariantName,
    pub chess960: bool,
    pub start_fen: Option<String>,
    /// The FEN tag's impossible castling rights or en-passant square were
    /// dropped to read it.
    pub fen_repaired: bool,
    pub result_tag: Option<Span>,
    pub result_marker: Option<&'static str>,
    pub declared_result: Option<GameResult>,
    pub result_check: ResultCheck,
    /// Moves, end state and draw claims, as replay found them.
    pub replayed: Replayed,
    pub material: MaterialFacts,
    pub time_class: TimeClass,
    /// Base and increment of `TimeControl` in seconds, when it has them.
    pub base_increment: Option<(u64, u64)>,
    pub draw_reason: Option<DrawReason>,
    pub encoding_repaired: bool,
    /// What `--repair` mended to read the game (`kind:count, …`); None
    /// when it was read as written.
    pub repairs: Option<String>,
    pub extra_tags: Vec<(Cow<'static, str>, Span)>,
    /// `UTCDate` + `UTCTime` as milliseconds since the epoch (UTC).
    pub utc_timestamp_ms: Option<i64>,
    /// The year and, when known, the month of `UTCDate`, else of `Date`:
    /// what the opening statistics' `month` is made of.
    pub year_month: Option<(i64, Option<i64>)>,
    /// What the move comments say about clocks and evaluations.
    pub clocks: GameClocks,
}

impl GameRow {
    /// The text of a tag field.
    pub(crate) fn tag(&self, span: Option<Span>) -> Option<&str> {
        span.map(|s| s.of(&self.text))
    }

    /// The `month` column: days since 1970-01-01 of the first day of the
    /// game's month.
    pub(crate) fn month(&self) -> Option<i32> {
        let (year, month) = self.year_month?;
        i32::try_from(crate::model::calendar::first_day_of_month(year, month?)).ok()
    }
}

/// One rejected game (`rejects.parquet`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RejectRow {
    pub place: Place,
    pub reason: RejectReason,
    pub message: String,
    pub ply: Option<u32>,
    pub token: Option<String>,
    pub token_line: Option<u64>,
    pub white: Option<String>,
    pub black: Option<String>,
    pub event: Option<String>,
    pub date: Option<String>,
    pub encoding_repaired: bool,
    pub raw_pgn: String,
}

/// One mainline ply of an accepted game (`moves.parquet`, `--moves`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveRow {
    pub game_id: u64,
    /// The ply and the facts of the move, as replay found them.
    pub facts: MoveFacts,
    /// The opening tree's key of the position before the move.
    pub position_key: u64,
    pub clock_ms: Option<i64>,
    pub move_time_ms: Option<i64>,
    pub eval_cp: Option<i32>,
    pub eval_mate: Option<i32>,
    pub eval_depth: Option<i32>,
    /// Numeric annotation glyphs (`$1` = `!`), in the order written.
    pub nags: Vec<u8>,
}
