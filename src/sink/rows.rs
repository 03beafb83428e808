//! Sink stage, rows: one struct per table row, filled by the workers and
//! turned into Parquet columns by the writer.

use crate::replay::Replayed;
use crate::replay::audit::ResultCheck;
use crate::replay::reject::RejectReason;

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
    pub event: Option<String>,
    pub site: Option<String>,
    pub date: Option<String>,
    pub year: Option<i32>,
    pub round: Option<String>,
    pub white: Option<String>,
    pub black: Option<String>,
    pub white_elo: Option<i32>,
    pub black_elo: Option<i32>,
    pub white_title: Option<String>,
    pub black_title: Option<String>,
    pub time_control: Option<String>,
    pub termination: Option<String>,
    pub eco_tag: Option<String>,
    pub opening_tag: Option<String>,
    pub variant: Option<String>,
    pub chess960: bool,
    pub start_fen: Option<String>,
    pub result_tag: Option<String>,
    pub result_marker: Option<&'static str>,
    pub declared_result: Option<&'static str>,
    pub result_check: ResultCheck,
    /// Moves, end state and draw claims, as replay found them.
    pub replayed: Replayed,
    pub encoding_repaired: bool,
    pub extra_tags: Vec<(String, String)>,
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
