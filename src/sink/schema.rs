//! Sink stage, the schema: every table's columns (name, type, nullability,
//! how shards add up, one-line meaning) declared once. The writers build
//! their frames from these columns and are checked against them, `merge`,
//! the report and `explore` read by them, `pgnlake schema` prints them (the
//! Spark job reads that), and `docs/tables.md` is checked against them.

use std::fmt::Write as _;

/// A column's type as the Parquet file holds it (every integer signed:
/// Spark, BigQuery and Trino have no unsigned 64-bit type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    Bool,
    I32,
    I64,
    F64,
    Text,
    /// Milliseconds since the epoch, UTC.
    TimestampMs,
    /// A calendar day (days since 1970-01-01).
    Date,
    /// A list of 32-bit integers (the moves' NAGs).
    ListI32,
    /// A list of `{name, value}` text pairs (the games' extra tags).
    TagList,
}

impl Type {
    /// The type as the docs and `pgnlake schema` spell it (pyarrow's
    /// spelling, shortened).
    pub fn as_str(self) -> &'static str {
        match self {
            Type::Bool => "bool",
            Type::I32 => "i32",
            Type::I64 => "i64",
            Type::F64 => "f64",
            Type::Text => "string",
            Type::TimestampMs => "timestamp<ms, UTC>",
            Type::Date => "date",
            Type::ListI32 => "list<i32>",
            Type::TagList => "list<struct<name: string, value: string>>",
        }
    }
}

/// How the rows of several imports (shards, partitions) add up into one
/// table: what `merge` and the Spark job do with the column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Merge {
    /// A row of its own (games, rejects, moves): copied, `game_id` rebased.
    Row,
    /// Part of the key the aggregate's rows are summed by.
    Key,
    /// Added up.
    Sum,
    /// The least value.
    Min,
    /// The greatest value.
    Max,
    /// The same in every row of a key (the EPD of a position key).
    Same,
    /// Recomputed from the sums after adding up (a ratio).
    Derived,
    /// The game of the least (`ply`, `game_id`) of the rows summed: the
    /// game the row's position is spelled from (`openings.game_id`).
    Witness,
    /// The best-rated game of the rows summed: the greatest
    /// (`top_game_elo_sum`, `top_game_id`), a row of one game offering its
    /// game when both its ratings are known.
    Top,
    /// The least `game_id` of the rows summed, a row of one game (or a
    /// row whose column is null) offering its witness; null when it is
    /// the sum's witness.
    Earliest,
    /// The greatest `game_id` of the rows summed, a row of one game
    /// offering its game.
    Latest,
    /// Spelled from the witness game once the sum holds two games or more;
    /// null on a row of one game.
    Spelled,
}

impl Merge {
    pub fn as_str(self) -> &'static str {
        match self {
            Merge::Row => "row",
            Merge::Key => "key",
            Merge::Sum => "sum",
            Merge::Min => "min",
            Merge::Max => "max",
            Merge::Same => "same",
            Merge::Witness => "witness",
            Merge::Top => "top",
            Merge::Earliest => "earliest",
            Merge::Latest => "latest",
            Merge::Spelled => "spelled",
            Merge::Derived => "derived",
        }
    }
}

/// How a column's values are laid out in its Parquet pages (before
/// compression).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueEncoding {
    /// As polars' writer chooses: a dictionary when it pays, tried first.
    Chosen,
    /// Plain values, no dictionary trial (see `Column::plain`).
    Plain,
    /// `DELTA_BINARY_PACKED` (see `Column::delta`).
    Delta,
}

/// One column of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    pub name: &'static str,
    pub ty: Type,
    /// May hold nulls (a debug build checks that a column declared
    /// otherwise never does).
    pub nullable: bool,
    pub merge: Merge,
    /// What the column means, for people (Markdown).
    pub meaning: &'static str,
    /// How its values are laid out in the pages.
    pub encoding: ValueEncoding,
    /// Never read by key (a column only scanned): written in the writer's
    /// default pages even in a table read by key, whose small pages would
    /// pack it worse (`sink::parquet::KEYED_PAGE_BYTES`).
    pub scanned_only: bool,
}

impl Column {
    const fn required(name: &'static str, ty: Type, meaning: &'static str) -> Column {
        Column {
            name,
            ty,
            nullable: false,
            merge: Merge::Row,
            meaning,
            encoding: ValueEncoding::Chosen,
            scanned_only: false,
        }
    }

    const fn nullable(name: &'static str, ty: Type, meaning: &'static str) -> Column {
        Column {
            nullable: true,
            ..Column::required(name, ty, meaning)
        }
    }

    const fn merged(self, merge: Merge) -> Column {
        Column { merge, ..self }
    }

    const fn key(self) -> Column {
        self.merged(Merge::Key)
    }

    const fn sum(self) -> Column {
        self.merged(Merge::Sum)
    }

    const fn min(self) -> Column {
        self.merged(Merge::Min)
    }

    const fn max(self) -> Column {
        self.merged(Merge::Max)
    }

    const fn same(self) -> Column {
        self.merged(Merge::Same)
    }

    const fn derived(self) -> Column {
        self.merged(Merge::Derived)
    }

    /// Written as plain values, without the dictionary polars tries on
    /// every text and integer column: for values nearly unique within a
    /// row group (position keys, EPDs), and short texts that zstd packs
    /// as well from plain values, the trial (a cardinality estimate, then
    /// hashing every value) costs more than it saves.
    const fn plain(self) -> Column {
        Column {
            encoding: ValueEncoding::Plain,
            ..self
        }
    }

    /// Never read by key: see [`Column::scanned_only`].
    const fn scanned_only(self) -> Column {
        Column {
            scanned_only: true,
            ..self
        }
    }

    /// Written as `DELTA_BINARY_PACKED`: for integers that grow from row
    /// to row (ids, offsets, lines, sorted keys), whose differences take a
    /// few bits where plain values take 64 and a dictionary cannot help.
    const fn delta(self) -> Column {
        Column {
            encoding: ValueEncoding::Delta,
            ..self
        }
    }
}

/// `games`, `white_wins`, `draws`, `black_wins`, `unfinished`: a game
/// count and its counted results, summed across shards; `games` says
/// `games_meaning`, the results `results_meaning`.
const fn result_counts(games_meaning: &'static str, results_meaning: &'static str) -> [Column; 5] {
    [
        summed("games", games_meaning),
        summed("white_wins", results_meaning),
        summed("draws", results_meaning),
        summed("black_wins", results_meaning),
        summed("unfinished", results_meaning),
    ]
}

/// A count summed across shards.
const fn summed(name: &'static str, meaning: &'static str) -> Column {
    Column::required(name, I64, meaning).sum()
}

/// The five result-count columns of an aggregate table, as consts of its
/// module (`GAMES`, `WHITE_WINS`, `DRAWS`, `BLACK_WINS`, `UNFINISHED`).
macro_rules! result_count_columns {
    ($games:expr, $results:expr) => {
        const COUNTS: [Column; 5] = result_counts($games, $results);
        pub(crate) const GAMES: Column = COUNTS[0];
        pub(crate) const WHITE_WINS: Column = COUNTS[1];
        pub(crate) const DRAWS: Column = COUNTS[2];
        pub(crate) const BLACK_WINS: Column = COUNTS[3];
        pub(crate) const UNFINISHED: Column = COUNTS[4];
    };
}

/// `white_elo_sum`, `white_elo_count`, `black_elo_sum`, `black_elo_count`.
const fn rating_sums(meaning: &'static str) -> [Column; 4] {
    [
        summed("white_elo_sum", meaning),
        summed("white_elo_count", meaning),
        summed("black_elo_sum", meaning),
        summed("black_elo_count", meaning),
    ]
}

/// One table: `NAME.parquet`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Table {
    pub name: &'static str,
    /// What a row is.
    pub description: &'static str,
    pub columns: &'static [Column],
}

impl Table {
    /// The table's file name in an output folder.
    pub(crate) fn file_name(&self) -> String {
        format!("{}.parquet", self.name)
    }

    /// Is this an aggregate (rows summed by key when imports are put
    /// together), rather than a table of one row per game or reject?
    pub(crate) fn is_aggregate(&self) -> bool {
        self.columns.iter().any(|c| c.merge == Merge::Key)
    }

    /// The names of the columns that `merge` treats as `merge`.
    #[cfg(test)]
    pub(crate) fn names_merged_as(&self, merge: Merge) -> impl Iterator<Item = &'static str> {
        self.columns
            .iter()
            .filter(move |c| c.merge == merge)
            .map(|c| c.name)
    }

    /// The column table of `docs/tables.md`: consecutive columns with the
    /// same meaning share a row (their types listed once when equal).
    pub fn markdown(&self) -> String {
        let mut out =
            String::from("| column | type | null | meaning |\n| --- | --- | --- | --- |\n");
        let mut rest = self.columns;
        while let Some(first) = rest.first() {
            let same = rest
                .iter()
                .take_while(|c| c.meaning == first.meaning && c.nullable == first.nullable)
                .count();
            let (group, tail) = rest.split_at(same);
            rest = tail;
            let names: Vec<String> = group.iter().map(|c| format!("`{}`", c.name)).collect();
            let types = if group.iter().all(|c| c.ty == first.ty) {
                first.ty.as_str().to_owned()
            } else {
                let types: Vec<&str> = group.iter().map(|c| c.ty.as_str()).collect();
                types.join(", ")
            };
            let null = if first.nullable { "yes" } else { "no" };
            let _ = writeln!(
                out,
                "| {} | {types} | {null} | {} |",
                names.join(", "),
                first.meaning
            );
        }
        out
    }
}

/// Every table pgnlake writes, in the order the docs list them (`moves`
/// only with `import --moves`).
pub const TABLES: [&Table; 8] = [
    &games::TABLE,
    &rejects::TABLE,
    &openings::TABLE,
    &opening_lines::TABLE,
    &results::TABLE,
    &material::TABLE,
    &endgames::TABLE,
    &moves::TABLE,
];

/// The table `clean --report FILE` writes (any file name).
pub(crate) const CLEAN_REPORT: &Table = &clean_report::TABLE;

/// Every table pgnlake writes: an import's, then `clean --report`'s.
pub fn all_tables() -> impl Iterator<Item = &'static Table> {
    TABLES.into_iter().chain([CLEAN_REPORT])
}

/// The table named `name`: an import's, or `clean_report`.
pub fn table(name: &str) -> Option<&'static Table> {
    all_tables().find(|t| t.name == name)
}

use Type::*;

/// `games.parquet`: one row per accepted game.
pub mod games {
    use super::*;

    pub(crate) const GAME_ID: Column = Column::required(
        "game_id",
        I64,
        "Ordinal of the game among all games read in this run (accepted and rejected), from 0. `merge` gives every game the `game_id` of a single run over the same inputs (a shard alone counts its own games from 0).",
    )
    .delta();
    pub(crate) const SOURCE: Column =
        Column::required("source", Text, "Input path as given (`-` for stdin).");
    pub(crate) const GAME_INDEX: Column = Column::required(
        "game_index",
        I64,
        "Ordinal of the game in its source, from 1.",
    )
    .delta();
    pub(crate) const OFFSET: Column = Column::required(
        "offset",
        I64,
        "Byte offset of the game's first byte in the uncompressed stream.",
    )
    .delta();
    pub(crate) const LINE: Column =
        Column::required("line", I64, "Line of the game's first byte, from 1.").delta();
    pub(crate) const RAW_HASH: Column = Column::required(
        "raw_hash",
        I64,
        "A 64-bit hash of the game's bytes as read (before any repair): `export` re-reads the game at `source` and `offset` and checks it against this, so a source changed since the import is found.",
    )
    // Unique per game: no dictionary to try.
    .plain();
    const M_EVENT: &str = "The tags as written; null when absent.";
    pub(crate) const EVENT: Column = Column::nullable("event", Text, M_EVENT);
    pub(crate) const SITE: Column = Column::nullable("site", Text, M_EVENT);
    pub(crate) const DATE: Column = Column::nullable("date", Text, M_EVENT);
    pub(crate) const ROUND: Column = Column::nullable("round", Text, M_EVENT);
    pub(crate) const WHITE: Column = Column::nullable("white", Text, M_EVENT);
    pub(crate) const BLACK: Column = Column::nullable("black", Text, M_EVENT);
    pub(crate) const LICHESS_ID: Column = Column::nullable(
        "lichess_id",
        Text,
        "The 8-character game id of a lichess game URL in `Site` (`https://lichess.org/ENPo6ReH` → `ENPo6ReH`); null otherwise.",
    );
    pub(crate) const YEAR: Column = Column::nullable(
        "year",
        I32,
        "Year from the first four digits of `Date`, null when they are not digits.",
    );
    pub(crate) const MONTH: Column = Column::nullable(
        "month",
        Date,
        "First day of the game's month, from `UTCDate`, else `Date` (`2025.05.14` → 2025-05-01); null when the year or the month is unknown. The opening statistics' `month` (with the default `--opening-period month`).",
    );
    pub(crate) const UTC_TIMESTAMP: Column = Column::nullable(
        "utc_timestamp",
        TimestampMs,
        "When the game started, from `UTCDate` + `UTCTime` only (`2025.05.01` + `00:00:06` → 2025-05-01 00:00:06 UTC); null unless both are there and valid. `Date` and `Time` are local time and stay as written; `UTCDate` and `UTCTime` stay in `extra_tags` too (as `date` stays beside `year`).",
    );
    const M_WHITE_ELO: &str = "Ratings; null when absent, empty, `?`, `-` or not a positive number (an unreadable value is kept in `extra_tags`).";
    pub(crate) const WHITE_ELO: Column = Column::nullable("white_elo", I32, M_WHITE_ELO);
    pub(crate) const BLACK_ELO: Column = Column::nullable("black_elo", I32, M_WHITE_ELO);
    const M_WHITE_RATING_DIFF: &str = "The rating changes lichess writes (`WhiteRatingDiff \"+5\"`); null when absent or unreadable (an unreadable value is kept in `extra_tags`).";
    pub(crate) const WHITE_RATING_DIFF: Column =
        Column::nullable("white_rating_diff", I32, M_WHITE_RATING_DIFF);
    pub(crate) const BLACK_RATING_DIFF: Column =
        Column::nullable("black_rating_diff", I32, M_WHITE_RATING_DIFF);
    const M_WHITE_TITLE: &str = "The tags as written.";
    pub(crate) const WHITE_TITLE: Column = Column::nullable("white_title", Text, M_WHITE_TITLE);
    pub(crate) const BLACK_TITLE: Column = Column::nullable("black_title", Text, M_WHITE_TITLE);
    pub(crate) const TIME_CONTROL: Column = Column::nullable("time_control", Text, M_WHITE_TITLE);
    pub(crate) const TERMINATION: Column = Column::nullable("termination", Text, M_WHITE_TITLE);
    const M_BASE_SECONDS: &str = "Base time and increment of `TimeControl` in whole seconds (`300+3` → 300, 3; `600` → 600, 0); null for `-`, `?`, several periods (`40/7200:3600`) or a sandclock (`*180`).";
    pub(crate) const BASE_SECONDS: Column = Column::nullable("base_seconds", I64, M_BASE_SECONDS);
    pub(crate) const INCREMENT_SECONDS: Column =
        Column::nullable("increment_seconds", I64, M_BASE_SECONDS);
    pub(crate) const TIME_CLASS: Column = Column::required(
        "time_class",
        Text,
        "`ultrabullet`, `bullet`, `blitz`, `rapid`, `classical`, `correspondence` or `unknown` (see Time class).",
    );
    const M_HAS_CLOCKS: &str = "Some mainline move's comment gives a clock (`[%clk]`, `[%clkc]`, TCEC `tl=`) / an evaluation (`[%eval]`, a cutechess score, TCEC `wv=`); see Move comments.";
    pub(crate) const HAS_CLOCKS: Column = Column::required("has_clocks", Bool, M_HAS_CLOCKS);
    pub(crate) const HAS_EVALS: Column = Column::required("has_evals", Bool, M_HAS_CLOCKS);
    const M_CLOCK_WHITE_FINAL_MS: &str = "The clock after each side's last move that gives one, in milliseconds; null when none does.";
    pub(crate) const CLOCK_WHITE_FINAL_MS: Column =
        Column::nullable("clock_white_final_ms", I64, M_CLOCK_WHITE_FINAL_MS);
    pub(crate) const CLOCK_BLACK_FINAL_MS: Column =
        Column::nullable("clock_black_final_ms", I64, M_CLOCK_WHITE_FINAL_MS);
    const M_ECO_TAG: &str = "The `ECO`, `Opening` and `Variant` tags as written.";
    pub(crate) const ECO_TAG: Column = Column::nullable("eco_tag", Text, M_ECO_TAG);
    pub(crate) const OPENING_TAG: Column = Column::nullable("opening_tag", Text, M_ECO_TAG);
    pub(crate) const VARIANT: Column = Column::nullable("variant", Text, M_ECO_TAG);
    const M_ECO: &str = "ECO code and name of the deepest table position of the mainline (see Opening names); null for a set-up position, Chess960, another variant, or a game that reaches no table position.";
    pub(crate) const ECO: Column = Column::nullable("eco", Text, M_ECO);
    pub(crate) const OPENING_NAME: Column = Column::nullable("opening_name", Text, M_ECO);
    pub(crate) const OPENING_FAMILY: Column = Column::nullable(
        "opening_family",
        Text,
        "`opening_name` before the `:` (`Sicilian Defense`).",
    );
    pub(crate) const OPENING_PLY: Column =
        Column::nullable("opening_ply", I32, "The ply of that position.");
    pub(crate) const ECO_MATCHES_TAG: Column = Column::nullable(
        "eco_matches_tag",
        Bool,
        "The `ECO` tag equals `eco` (ignoring case and spaces); null when either is missing.",
    );
    pub(crate) const VARIANT_NAME: Column = Column::required(
        "variant_name",
        Text,
        "The rules the game was replayed by: `standard`, `chess960`, `crazyhouse`, `atomic`, `antichess`, `king_of_the_hill`, `three_check`, `horde` or `racing_kings` (see Variants).",
    );
    pub(crate) const CHESS960: Column =
        Column::required("chess960", Bool, "Replayed with Chess960 castling rules.");
    pub(crate) const START_FEN: Column = Column::nullable(
        "start_fen",
        Text,
        "The `FEN` tag when the start is not the standard position, else null.",
    );
    pub(crate) const FEN_REPAIRED: Column = Column::nullable(
        "fen_repaired",
        Bool,
        "The `FEN` tag gave castling rights or an en-passant square its position cannot have (an odds game's `KQkq` without the a1 rook); they were dropped to read it (`start_fen` keeps the tag as written).",
    );
    pub(crate) const PLIES: Column = Column::required("plies", I32, "Mainline half-moves.");
    pub(crate) const RESULT_TAG: Column =
        Column::nullable("result_tag", Text, "The `Result` tag as written.");
    pub(crate) const RESULT_MARKER: Column = Column::nullable(
        "result_marker",
        Text,
        "The movetext termination marker, normalised; null when absent.",
    );
    pub(crate) const DECLARED_RESULT: Column = Column::nullable(
        "declared_result",
        Text,
        "`1-0`, `0-1`, `1/2-1/2` or `*` (see Result audit); null when neither tag nor marker gives one.",
    );
    pub(crate) const RESULT_BY_RULE: Column = Column::nullable(
        "result_by_rule",
        Text,
        "The result the board proves, or null.",
    );
    pub(crate) const RESULT_CHECK: Column =
        Column::required("result_check", Text, "One value of the result audit table.");
    pub(crate) const END_STATE: Column =
        Column::required("end_state", Text, "One value of the outcome table.");
    pub(crate) const VARIANT_END: Column = Column::nullable(
        "variant_end",
        Text,
        "The variant's rule behind a `variant_*` end state (`king_exploded`, `three_checks`, `king_on_hill`, `horde_destroyed`, `king_reached_goal`, `both_kings_reached_goal`, `all_pieces_lost`, `stalemated`); null otherwise.",
    );
    pub(crate) const DRAW_REASON: Column = Column::nullable(
        "draw_reason",
        Text,
        "Why a drawn game was drawn (see Draw reason); null unless the counted result is a draw.",
    );
    pub(crate) const WINNER_BY_RULE: Column = Column::nullable(
        "winner_by_rule",
        Text,
        "`white` or `black` on checkmate, else null.",
    );
    pub(crate) const THREEFOLD_FIRST_PLY: Column = Column::nullable(
        "threefold_first_ply",
        I32,
        "First ply whose position occurred for the third time (a draw claim was possible), or null.",
    );
    pub(crate) const FIFTY_FIRST_PLY: Column = Column::nullable(
        "fifty_first_ply",
        I32,
        "First ply with halfmove clock ≥ 100 (0 for a FEN start that already has it), or null.",
    );
    pub(crate) const THREEFOLD_FINAL: Column = Column::required(
        "threefold_final",
        Bool,
        "The final position occurred at least three times.",
    );
    pub(crate) const FIFTY_FINAL: Column = Column::required(
        "fifty_final",
        Bool,
        "Halfmove clock ≥ 100 at the end, and not checkmate.",
    );
    pub(crate) const AUTOMATIC_END_PLY: Column = Column::nullable(
        "automatic_end_ply",
        I32,
        "First ply at which a rule ended the game by itself: fivefold repetition, the 75-move rule (not checkmate) or a dead position (`dead_position_ply`), or null.",
    );
    pub(crate) const PLIES_AFTER_END: Column = Column::required(
        "plies_after_end",
        I32,
        "Plies played after `automatic_end_ply` (0 when none).",
    );
    pub(crate) const PERPETUAL_CHECK: Column = Column::required(
        "perpetual_check",
        Bool,
        "The game ends in a threefold repetition and every move of one side, from the first occurrence of the final position to the end, gave check.",
    );
    pub(crate) const DEAD_POSITION_PLY: Column = Column::nullable(
        "dead_position_ply",
        I32,
        "When the final position is dead (`insufficient_material` or `dead_position`): the first ply whose position was (0: the start), found by bisection since every position after a dead one is dead; a position the budget could not settle counts as not dead. Null otherwise.",
    );
    const M_WHITE_CAN_MATE: &str = "Whether the side can still checkmate by some sequence of legal moves from the final position: false by the material rule or proven (sound: never false where a helpmate exists), true on a checkmate it gave or a helpmate found; null when undetermined or not asked (see Dead positions), and for variant games.";
    pub(crate) const WHITE_CAN_MATE: Column =
        Column::nullable("white_can_mate", Bool, M_WHITE_CAN_MATE);
    pub(crate) const BLACK_CAN_MATE: Column =
        Column::nullable("black_can_mate", Bool, M_WHITE_CAN_MATE);
    pub(crate) const FINAL_FEN: Column = Column::required(
        "final_fen",
        Text,
        "FEN of the final position (en-passant square only when a capture is legal; Shredder/X-FEN castling for Chess960).",
    )
    .scanned_only();
    pub(crate) const FINAL_MATERIAL: Column = Column::required(
        "final_material",
        Text,
        "Material signature at the end, white first (`KRPvKR`).",
    );
    const M_WHITE_MATERIAL: &str = "Material in pawn units at the end, and white − black.";
    pub(crate) const WHITE_MATERIAL: Column =
        Column::required("white_material", I32, M_WHITE_MATERIAL);
    pub(crate) const BLACK_MATERIAL: Column =
        Column::required("black_material", I32, M_WHITE_MATERIAL);
    pub(crate) const MATERIAL_DIFF: Column =
        Column::required("material_diff", I32, M_WHITE_MATERIAL);
    const M_MATERIAL_DIFF_AT_20: &str =
        "White − black after that many plies; null when the game is shorter.";
    pub(crate) const MATERIAL_DIFF_AT_20: Column =
        Column::nullable("material_diff_at_20", I32, M_MATERIAL_DIFF_AT_20);
    pub(crate) const MATERIAL_DIFF_AT_40: Column =
        Column::nullable("material_diff_at_40", I32, M_MATERIAL_DIFF_AT_20);
    pub(crate) const MATERIAL_DIFF_AT_60: Column =
        Column::nullable("material_diff_at_60", I32, M_MATERIAL_DIFF_AT_20);
    pub(crate) const MATERIAL_DIFF_AT_80: Column =
        Column::nullable("material_diff_at_80", I32, M_MATERIAL_DIFF_AT_20);
    const M_MAX_WHITE_LEAD: &str = "Largest lead of each side over the game (0 when never ahead).";
    pub(crate) const MAX_WHITE_LEAD: Column =
        Column::required("max_white_lead", I32, M_MAX_WHITE_LEAD);
    pub(crate) const MAX_BLACK_LEAD: Column =
        Column::required("max_black_lead", I32, M_MAX_WHITE_LEAD);
    const M_ENDGAME_PLY: &str =
        "The first endgame position (see Endgame) and its material; null when none.";
    pub(crate) const ENDGAME_PLY: Column = Column::nullable("endgame_ply", I32, M_ENDGAME_PLY);
    pub(crate) const ENDGAME_SIGNATURE: Column =
        Column::nullable("endgame_signature", Text, M_ENDGAME_PLY);
    const M_BISHOP_PAIR_WHITE: &str = "Bishops on both square colours at the end.";
    pub(crate) const BISHOP_PAIR_WHITE: Column =
        Column::required("bishop_pair_white", Bool, M_BISHOP_PAIR_WHITE);
    pub(crate) const BISHOP_PAIR_BLACK: Column =
        Column::required("bishop_pair_black", Bool, M_BISHOP_PAIR_WHITE);
    pub(crate) const MOVES_UCI: Column = Column::required(
        "moves_uci",
        Text,
        "The mainline in UCI, space-separated (Chess960 castling as king takes rook).",
    );
    pub(crate) const SQUARES_PAWNS: Column = Column::required(
        "squares_pawns",
        I64,
        "The search pre-filter (docs/search.md): every square a pawn of either side stood on at some point of the game, as a bitboard: bit 0 is a1, bit 7 h1, bit 63 h8; the 64 bits as the i64 Parquet keeps.",
    )
    .scanned_only();
    const M_ARRIVALS: &str = "The search pre-filter: every square a move of that side went to (castling: the king's and the rook's), as a bitboard (as `squares_pawns`); with the start position's, the squares that side's pieces ever stood on.";
    pub(crate) const ARRIVALS_WHITE: Column =
        Column::required("arrivals_white", I64, M_ARRIVALS).scanned_only();
    pub(crate) const ARRIVALS_BLACK: Column =
        Column::required("arrivals_black", I64, M_ARRIVALS).scanned_only();
    const M_MATERIAL_RANGE: &str = "The search pre-filter, packed: for pawns, knights, bishops, rooks and queens in turn, a byte whose low 4 bits are the least count that side had during the game and high 4 bits the greatest (bits 0-39; 0 and 15 in a variant whose material is not walked from the moves); the kinds it captured, a bit each in that order (bits 40-44); castled king side (bit 45), queen side (bit 46).";
    pub(crate) const MATERIAL_WHITE: Column =
        Column::required("material_white", I64, M_MATERIAL_RANGE).scanned_only();
    pub(crate) const MATERIAL_BLACK: Column =
        Column::required("material_black", I64, M_MATERIAL_RANGE).scanned_only();
    pub(crate) const IMBALANCE_RANGE: Column = Column::required(
        "imbalance_range",
        I64,
        "The search pre-filter, packed: White's minus Black's pawns, least (bits 0-7) and greatest (8-15), as signed bytes; White's minus Black's non-pawn material in Stockfish's middle-game values (N 753, B 826, R 1285, Q 2513, as scoutfish's `imbalance`), least (16-31) and greatest (32-47), as signed 16-bit numbers.",
    )
    .scanned_only();
    pub(crate) const ENCODING_REPAIRED: Column = Column::required(
        "encoding_repaired",
        Bool,
        "Some tag was decoded as Windows-1252.",
    );
    pub(crate) const REPAIRS: Column = Column::nullable(
        "repairs",
        Text,
        "What `import --repair` mended to read the game, as `kind:count` pairs by kind (`capture_without_x:2, unescaped_quotes:1`; the kinds are `clean --repair`'s); null when the game was read as written.",
    );
    pub(crate) const EXTRA_TAGS: Column = Column::required(
        "extra_tags",
        TagList,
        "Every tag without a column, and every repeat of a tag that has one, in file order.",
    );

    /// `material_diff_at_N`, one per checkpoint ply N of
    /// [`CHECKPOINTS`](crate::replay::material::CHECKPOINTS).
    pub(crate) const MATERIAL_DIFF_AT: [Column; crate::replay::material::CHECKPOINTS.len()] = [
        MATERIAL_DIFF_AT_20,
        MATERIAL_DIFF_AT_40,
        MATERIAL_DIFF_AT_60,
        MATERIAL_DIFF_AT_80,
    ];

    pub const TABLE: Table = Table {
        name: "games",
        description: "one row per accepted game",
        columns: &[
            GAME_ID,
            SOURCE,
            GAME_INDEX,
            OFFSET,
            LINE,
            RAW_HASH,
            EVENT,
            SITE,
            LICHESS_ID,
            DATE,
            YEAR,
            MONTH,
            UTC_TIMESTAMP,
            ROUND,
            WHITE,
            BLACK,
            WHITE_ELO,
            BLACK_ELO,
            WHITE_RATING_DIFF,
            BLACK_RATING_DIFF,
            WHITE_TITLE,
            BLACK_TITLE,
            TIME_CONTROL,
            BASE_SECONDS,
            INCREMENT_SECONDS,
            TIME_CLASS,
            HAS_CLOCKS,
            HAS_EVALS,
            CLOCK_WHITE_FINAL_MS,
            CLOCK_BLACK_FINAL_MS,
            TERMINATION,
            ECO_TAG,
            OPENING_TAG,
            ECO,
            OPENING_NAME,
            OPENING_FAMILY,
            OPENING_PLY,
            ECO_MATCHES_TAG,
            VARIANT,
            VARIANT_NAME,
            CHESS960,
            START_FEN,
            FEN_REPAIRED,
            PLIES,
            RESULT_TAG,
            RESULT_MARKER,
            DECLARED_RESULT,
            RESULT_BY_RULE,
            RESULT_CHECK,
            END_STATE,
            VARIANT_END,
            DRAW_REASON,
            WINNER_BY_RULE,
            THREEFOLD_FIRST_PLY,
            FIFTY_FIRST_PLY,
            THREEFOLD_FINAL,
            FIFTY_FINAL,
            AUTOMATIC_END_PLY,
            PLIES_AFTER_END,
            PERPETUAL_CHECK,
            DEAD_POSITION_PLY,
            WHITE_CAN_MATE,
            BLACK_CAN_MATE,
            FINAL_FEN,
            FINAL_MATERIAL,
            WHITE_MATERIAL,
            BLACK_MATERIAL,
            MATERIAL_DIFF,
            MATERIAL_DIFF_AT_20,
            MATERIAL_DIFF_AT_40,
            MATERIAL_DIFF_AT_60,
            MATERIAL_DIFF_AT_80,
            MAX_WHITE_LEAD,
            MAX_BLACK_LEAD,
            ENDGAME_PLY,
            ENDGAME_SIGNATURE,
            BISHOP_PAIR_WHITE,
            BISHOP_PAIR_BLACK,
            MOVES_UCI,
            SQUARES_PAWNS,
            ARRIVALS_WHITE,
            ARRIVALS_BLACK,
            MATERIAL_WHITE,
            MATERIAL_BLACK,
            IMBALANCE_RANGE,
            ENCODING_REPAIRED,
            REPAIRS,
            EXTRA_TAGS,
        ],
    };
}

/// `rejects.parquet`: one row per rejected game.
pub mod rejects {
    use super::*;

    // Where the game is: the place columns of `games`.
    use super::games::{GAME_ID, GAME_INDEX, LINE, OFFSET, SOURCE};
    pub(crate) const REASON: Column =
        Column::required("reason", Text, "One value of the reject reasons table.");
    pub(crate) const MESSAGE: Column =
        Column::required("message", Text, "What is wrong, for people.");
    pub(crate) const PLY: Column = Column::nullable(
        "ply",
        I32,
        "Ply of the offending move (for token problems: the ply the token stands before), or null.",
    );
    pub(crate) const TOKEN: Column =
        Column::nullable("token", Text, "The offending token, or null.");
    pub(crate) const TOKEN_LINE: Column =
        Column::nullable("token_line", I64, "Line of the offending token, or null.");
    const M_WHITE: &str = "Tags, when present.";
    pub(crate) const WHITE: Column = Column::nullable("white", Text, M_WHITE);
    pub(crate) const BLACK: Column = Column::nullable("black", Text, M_WHITE);
    pub(crate) const EVENT: Column = Column::nullable("event", Text, M_WHITE);
    pub(crate) const DATE: Column = Column::nullable("date", Text, M_WHITE);
    pub(crate) const ENCODING_REPAIRED: Column = Column::required(
        "encoding_repaired",
        Bool,
        "Tags or text were decoded as Windows-1252.",
    );
    pub(crate) const RAW_PGN: Column = Column::required(
        "raw_pgn",
        Text,
        "The game's text as read, for quarantine and repair (at most its first 1 MiB).",
    );

    pub const TABLE: Table = Table {
        name: "rejects",
        description: "one row per rejected game",
        columns: &[
            GAME_ID,
            SOURCE,
            GAME_INDEX,
            OFFSET,
            LINE,
            REASON,
            MESSAGE,
            PLY,
            TOKEN,
            TOKEN_LINE,
            WHITE,
            BLACK,
            EVENT,
            DATE,
            ENCODING_REPAIRED,
            RAW_PGN,
        ],
    };
}

/// `openings.parquet`: the opening tree, one row per (position, move).
/// The key columns the opening statistics are split by, as the lichess
/// opening explorer splits its tree (`openings`, `opening_lines`).
pub mod dimensions {
    use super::*;

    pub(crate) const TIME_CLASS: Column = Column::required(
        "time_class",
        Text,
        "The games' `time_class`, as in `games`.",
    )
    .key();
    pub(crate) const RATING_BAND: Column = Column::nullable(
        "rating_band",
        I32,
        "Band of the two players' average rating, as its lower bound: 800 (below 1000), 1000, 1200, …, 2200, 2400, 2500, 2600, 2700, 2800 (2800 and above) ([the bands](#speed-rating-band-and-month-the-opening-statistics-dimensions)); null when either rating is missing.",
    )
    .key();
    pub(crate) const MONTH: Column = Column::nullable(
        "month",
        Date,
        "First day of the games' month (`UTCDate`, else `Date`); January 1st with `--opening-period year`; null when unknown, and always with `--opening-period none`.",
    )
    .key();
}

pub mod openings {
    use super::*;

    pub(crate) const POSITION_KEY: Column = Column::required(
        "position_key",
        I64,
        "Key of the position (see Position key).",
    )
    .key()
    // Sorted: the differences of consecutive keys take fewer bits.
    .delta();
    pub(crate) const EPD: Column = Column::nullable(
        "epd",
        Text,
        "The position as EPD (FEN without the clocks; en-passant square only when legal); null on a row of one game (spell it from `game_id`, or find the position by its key).",
    )
    .merged(Merge::Spelled)
    .plain()
    .scanned_only();
    pub(crate) const PLY: Column = Column::required(
        "ply",
        I32,
        "The earliest ply at which a game of the row reached the position: the moves of `game_id` to replay to reach it.",
    )
    .min()
    .scanned_only();
    pub(crate) const MOVE_SAN: Column = Column::nullable(
        "move_san",
        Text,
        "The move in SAN, with `+` / `#`; null on a row of one game.",
    )
    .merged(Merge::Spelled)
    .plain()
    .scanned_only();
    pub(crate) const MOVE_UCI: Column =
        Column::required("move_uci", Text, "The move in UCI (castling as `e1g1`).")
            .key()
            .plain();
    pub(crate) const TIME_CLASS: Column = dimensions::TIME_CLASS;
    pub(crate) const RATING_BAND: Column = dimensions::RATING_BAND;
    pub(crate) const MONTH: Column = dimensions::MONTH;
    pub(crate) const NEXT_POSITION_KEY: Column = Column::nullable(
        "next_position_key",
        I64,
        "Key of the position after the move; null on a row of one game.",
    )
    .merged(Merge::Spelled)
    .plain()
    .scanned_only();
    result_count_columns!(
        "Games that played the move from the position (each game once).",
        "Their counted results (see Which result counts); they add up to `games`."
    );
    const RATINGS: [Column; 4] =
        rating_sums("Sums and counts of the known ratings; average = sum / count.");
    pub(crate) const WHITE_ELO_SUM: Column = RATINGS[0];
    pub(crate) const WHITE_ELO_COUNT: Column = RATINGS[1];
    pub(crate) const BLACK_ELO_SUM: Column = RATINGS[2];
    pub(crate) const BLACK_ELO_COUNT: Column = RATINGS[3];
    const M_FIRST_YEAR: &str =
        "Earliest and latest `year` of those games; null when none has a year.";
    pub(crate) const FIRST_YEAR: Column = Column::nullable("first_year", I32, M_FIRST_YEAR)
        .min()
        .scanned_only();
    pub(crate) const LAST_YEAR: Column = Column::nullable("last_year", I32, M_FIRST_YEAR).max();
    pub(crate) const GAME_ID: Column = Column::required(
        "game_id",
        I64,
        "The game of the row that reached the position first (least `ply`, then least `game_id`), as `games.game_id`: on a row of one game, its game. Replaying its first `ply` moves (the start of `games.moves_uci`) reaches the position.",
    )
    .merged(Merge::Witness);
    pub(crate) const TOP_GAME_ID: Column = Column::nullable(
        "top_game_id",
        I64,
        "On a row of two games or more: its best-rated game, the greatest `white_elo + black_elo` (`top_game_elo_sum`) among its games with both ratings, the greater `game_id` on a tie; null on a row of one game (its game is `game_id`) and when no game has both ratings.",
    )
    .merged(Merge::Top)
    .plain();
    pub(crate) const TOP_GAME_ELO_SUM: Column = Column::nullable(
        "top_game_elo_sum",
        I64,
        "`white_elo + black_elo` of `top_game_id`: what orders the top games.",
    )
    .merged(Merge::Top);
    pub(crate) const FIRST_GAME_ID: Column = Column::nullable(
        "first_game_id",
        I64,
        "On a row of two games or more: its first game, the least `game_id` (the order games were read in), when it is not the witness `game_id`; null on a row of one game and when the witness is the first game (nearly always: a position is mostly reached at one ply). A move's first game (`explore --history`, `firstGame`) is the least of its first month's rows.",
    )
    .merged(Merge::Earliest)
    .plain();
    pub(crate) const LAST_GAME_ID: Column = Column::nullable(
        "last_game_id",
        I64,
        "On a row of two games or more: its latest game, the greatest `game_id` (the order games were read in: the order of the archive, by date in lichess's); null on a row of one game.",
    )
    .merged(Merge::Latest)
    .plain();

    pub const TABLE: Table = Table {
        name: "openings",
        description: "the opening tree, one row per (position, move, time_class, rating_band, month)",
        columns: &[
            POSITION_KEY,
            EPD,
            PLY,
            MOVE_SAN,
            MOVE_UCI,
            TIME_CLASS,
            RATING_BAND,
            MONTH,
            NEXT_POSITION_KEY,
            GAMES,
            WHITE_WINS,
            DRAWS,
            BLACK_WINS,
            UNFINISHED,
            WHITE_ELO_SUM,
            WHITE_ELO_COUNT,
            BLACK_ELO_SUM,
            BLACK_ELO_COUNT,
            FIRST_YEAR,
            LAST_YEAR,
            GAME_ID,
            TOP_GAME_ID,
            TOP_GAME_ELO_SUM,
            FIRST_GAME_ID,
            LAST_GAME_ID,
        ],
    };
}

/// `opening_lines.parquet`: one row per named opening.
pub mod opening_lines {
    use super::*;

    const M_ECO: &str = "The opening.";
    pub(crate) const ECO: Column = Column::required("eco", Text, M_ECO).key();
    pub(crate) const OPENING_NAME: Column = Column::required("opening_name", Text, M_ECO).key();
    pub(crate) const OPENING_FAMILY: Column =
        Column::required("opening_family", Text, M_ECO).same();
    pub(crate) const TIME_CLASS: Column = dimensions::TIME_CLASS;
    pub(crate) const RATING_BAND: Column = dimensions::RATING_BAND;
    pub(crate) const MONTH: Column = dimensions::MONTH;
    result_count_columns!(
        "Games named so, and their counted results.",
        "Games named so, and their counted results."
    );
    pub(crate) const WHITE_SCORE: Column = Column::nullable(
        "white_score",
        F64,
        "(white wins + draws / 2) / finished games; null when none finished.",
    )
    .derived();
    pub(crate) const DRAW_RATE: Column = Column::nullable(
        "draw_rate",
        F64,
        "Draws / finished games; null when none finished.",
    )
    .derived();
    const RATINGS: [Column; 4] = rating_sums("Rating sums and counts.");
    pub(crate) const WHITE_ELO_SUM: Column = RATINGS[0];
    pub(crate) const WHITE_ELO_COUNT: Column = RATINGS[1];
    pub(crate) const BLACK_ELO_SUM: Column = RATINGS[2];
    pub(crate) const BLACK_ELO_COUNT: Column = RATINGS[3];
    const M_PLIES_SUM: &str = "Total and average game length in plies.";
    pub(crate) const PLIES_SUM: Column = Column::required("plies_sum", I64, M_PLIES_SUM).sum();
    pub(crate) const AVG_PLIES: Column = Column::required("avg_plies", F64, M_PLIES_SUM).derived();
    const M_ELO_DIFF_SUM: &str = "White Elo − black Elo over the games where both are known.";
    pub(crate) const ELO_DIFF_SUM: Column =
        Column::required("elo_diff_sum", I64, M_ELO_DIFF_SUM).sum();
    pub(crate) const ELO_DIFF_COUNT: Column =
        Column::required("elo_diff_count", I64, M_ELO_DIFF_SUM).sum();
    pub(crate) const AVG_ELO_DIFF: Column =
        Column::nullable("avg_elo_diff", F64, M_ELO_DIFF_SUM).derived();

    pub const TABLE: Table = Table {
        name: "opening_lines",
        description: "one row per (named opening, time_class, rating_band, month)",
        columns: &[
            ECO,
            OPENING_NAME,
            OPENING_FAMILY,
            TIME_CLASS,
            RATING_BAND,
            MONTH,
            GAMES,
            WHITE_WINS,
            DRAWS,
            BLACK_WINS,
            UNFINISHED,
            WHITE_SCORE,
            DRAW_RATE,
            WHITE_ELO_SUM,
            WHITE_ELO_COUNT,
            BLACK_ELO_SUM,
            BLACK_ELO_COUNT,
            PLIES_SUM,
            AVG_PLIES,
            ELO_DIFF_SUM,
            ELO_DIFF_COUNT,
            AVG_ELO_DIFF,
        ],
    };
}

/// `results.parquet`: results by kind of game.
pub mod results {
    use super::*;

    pub(crate) const VARIANT_NAME: Column =
        Column::required("variant_name", Text, "As in `games` (`standard` first).").key();
    pub(crate) const YEAR: Column = Column::nullable("year", I32, "As in `games`.").key();
    pub(crate) const TIME_CLASS: Column =
        Column::required("time_class", Text, "See Time class.").key();
    pub(crate) const RATING_DIFF_BUCKET: Column =
        Column::nullable("rating_diff_bucket", I32, "See Rating difference bucket.").key();
    pub(crate) const DECLARED_RESULT: Column =
        Column::nullable("declared_result", Text, "As in `games`.").key();
    pub(crate) const END_STATE: Column =
        Column::required("end_state", Text, "As in `games`.").key();
    pub(crate) const TERMINATION: Column =
        Column::nullable("termination", Text, "The `Termination` tag as written.").key();
    pub(crate) const DRAW_REASON: Column =
        Column::nullable("draw_reason", Text, "As in `games`.").key();
    result_count_columns!(
        "Games and their counted results.",
        "Games and their counted results."
    );

    pub const TABLE: Table = Table {
        name: "results",
        description: "results by kind of game",
        columns: &[
            VARIANT_NAME,
            YEAR,
            TIME_CLASS,
            RATING_DIFF_BUCKET,
            DECLARED_RESULT,
            END_STATE,
            TERMINATION,
            DRAW_REASON,
            GAMES,
            WHITE_WINS,
            DRAWS,
            BLACK_WINS,
            UNFINISHED,
        ],
    };
}

/// `material.parquet`: results by material difference.
pub mod material {
    use super::*;

    pub(crate) const CHECKPOINT_PLY: Column =
        Column::required("checkpoint_ply", I32, "20, 40, 60 or 80.").key();
    pub(crate) const MATERIAL_DIFF: Column = Column::required(
        "material_diff",
        I32,
        "White − black material at that ply, clamped to −9..9.",
    )
    .key();
    result_count_columns!(
        "Games and their counted results.",
        "Games and their counted results."
    );

    pub const TABLE: Table = Table {
        name: "material",
        description: "results by material difference",
        columns: &[
            CHECKPOINT_PLY,
            MATERIAL_DIFF,
            GAMES,
            WHITE_WINS,
            DRAWS,
            BLACK_WINS,
            UNFINISHED,
        ],
    };
}

/// `endgames.parquet`: results by first endgame.
pub mod endgames {
    use super::*;

    pub(crate) const VARIANT_NAME: Column =
        Column::required("variant_name", Text, "As in `games`.").key();
    pub(crate) const ENDGAME_SIGNATURE: Column = Column::required(
        "endgame_signature",
        Text,
        "The first endgame's material, stronger side first (`KRPvKR`).",
    )
    .key();
    const M_GAMES: &str = "Games and their counted results seen from the stronger side.";
    pub(crate) const GAMES: Column = Column::required("games", I64, M_GAMES).sum();
    pub(crate) const STRONGER_SIDE_WINS: Column =
        Column::required("stronger_side_wins", I64, M_GAMES).sum();
    pub(crate) const DRAWS: Column = Column::required("draws", I64, M_GAMES).sum();
    pub(crate) const WEAKER_SIDE_WINS: Column =
        Column::required("weaker_side_wins", I64, M_GAMES).sum();
    pub(crate) const UNFINISHED: Column = Column::required("unfinished", I64, M_GAMES).sum();
    const M_PLIES_TO_END_SUM: &str = "Plies from the first endgame position to the end.";
    pub(crate) const PLIES_TO_END_SUM: Column =
        Column::required("plies_to_end_sum", I64, M_PLIES_TO_END_SUM).sum();
    pub(crate) const AVG_PLIES_TO_END: Column =
        Column::required("avg_plies_to_end", F64, M_PLIES_TO_END_SUM).derived();

    pub const TABLE: Table = Table {
        name: "endgames",
        description: "results by first endgame",
        columns: &[
            VARIANT_NAME,
            ENDGAME_SIGNATURE,
            GAMES,
            STRONGER_SIDE_WINS,
            DRAWS,
            WEAKER_SIDE_WINS,
            UNFINISHED,
            PLIES_TO_END_SUM,
            AVG_PLIES_TO_END,
        ],
    };
}

/// `moves.parquet`: one row per mainline ply (with `--moves`).
pub mod moves {
    use super::*;

    pub(crate) const GAME_ID: Column =
        Column::required("game_id", I64, "The game's `game_id` in `games.parquet`.").delta();
    const M_PLY: &str = "Ply from 1; the move number as PGN writes it (`12` for `12.` and `12...`; from the `FEN` tag's fullmove number for a set-up position).";
    pub(crate) const PLY: Column = Column::required("ply", I32, M_PLY);
    pub(crate) const MOVE_NUMBER: Column = Column::required("move_number", I32, M_PLY);
    pub(crate) const COLOR: Column =
        Column::required("color", Text, "Who moved: `white` or `black`.");
    pub(crate) const SAN: Column = Column::required(
        "san",
        Text,
        "The move in SAN as pgnlake writes it (regenerated: `N1f3` → `Nf3`, check and mate suffixes from the board).",
    );
    pub(crate) const UCI: Column = Column::required(
        "uci",
        Text,
        "The move in UCI (Chess960 castling as king takes rook), as in `games.moves_uci`.",
    );
    pub(crate) const PIECE: Column = Column::required(
        "piece",
        Text,
        "The piece that moved: `P`, `N`, `B`, `R`, `Q`, `K`.",
    );
    const M_IS_CAPTURE: &str =
        "The move captures (en passant included) / gives check / gives mate.";
    pub(crate) const IS_CAPTURE: Column = Column::required("is_capture", Bool, M_IS_CAPTURE);
    pub(crate) const IS_CHECK: Column = Column::required("is_check", Bool, M_IS_CAPTURE);
    pub(crate) const IS_CHECKMATE: Column = Column::required("is_checkmate", Bool, M_IS_CAPTURE);
    pub(crate) const PROMOTION: Column = Column::nullable(
        "promotion",
        Text,
        "`Q`, `R`, `B` or `N` for a promotion, else null.",
    );
    pub(crate) const POSITION_KEY: Column = Column::required(
        "position_key",
        I64,
        "The position before the move, as `openings.position_key` (join on it).",
    );
    pub(crate) const MATERIAL_DIFF: Column = Column::required(
        "material_diff",
        I32,
        "White − black in `--piece-values` after the move.",
    );
    pub(crate) const CLOCK_MS: Column = Column::nullable(
        "clock_ms",
        I64,
        "Time left on the mover's clock after the move, in milliseconds (`[%clk]`, `[%clkc]`, TCEC `tl=`); null when the comment gives none.",
    );
    pub(crate) const MOVE_TIME_MS: Column = Column::nullable(
        "move_time_ms",
        I64,
        "Time the move took: as the comment gives it (`[%emt]`, cutechess `2.1s`, TCEC `mt=`), else the mover's previous clock − this clock + the `TimeControl` increment. Null for each side's first move (sites differ on when the clock starts), when a clock is missing, when the time control has no simple increment (`40/7200:3600`), and when the clock gained more than the increment (time added by the opponent).",
    );
    const M_EVAL_CP: &str = "The evaluation after the move from White's point of view: centipawns, or moves to mate (positive: White mates; `[%eval #-3]` → −3). At most one is set.";
    pub(crate) const EVAL_CP: Column = Column::nullable("eval_cp", I32, M_EVAL_CP);
    pub(crate) const EVAL_MATE: Column = Column::nullable("eval_mate", I32, M_EVAL_CP);
    pub(crate) const EVAL_DEPTH: Column = Column::nullable(
        "eval_depth",
        I32,
        "Search depth of the evaluation, when the comment gives it (`[%eval 0.2,24]`, cutechess `/18`, TCEC `d=`).",
    );
    pub(crate) const NAGS: Column = Column::required(
        "nags",
        ListI32,
        "The move's NAGs in order (`$1` = `!`, `$4` = `??`); empty when none.",
    );

    pub const TABLE: Table = Table {
        name: "moves",
        description: "one row per mainline ply (with `--moves`)",
        columns: &[
            GAME_ID,
            PLY,
            MOVE_NUMBER,
            COLOR,
            SAN,
            UCI,
            PIECE,
            IS_CAPTURE,
            IS_CHECK,
            IS_CHECKMATE,
            PROMOTION,
            POSITION_KEY,
            MATERIAL_DIFF,
            CLOCK_MS,
            MOVE_TIME_MS,
            EVAL_CP,
            EVAL_MATE,
            EVAL_DEPTH,
            NAGS,
        ],
    };
}

/// `clean --report FILE`: one row per action `clean` took on a game.
pub mod clean_report {
    use super::*;

    pub(crate) const ACTION: Column = Column::required(
        "action",
        Text,
        "`reject`, `duplicate`, `result_fixed`, `move_repaired`, `tag_repaired`, `fen_repaired`, `salvaged`, `encoding_repaired`, `variation_dropped` (an illegal variation turned into a comment), `tag_disagrees` (`--add-tags`: the game's own tag says otherwise and is kept) or `tag_replaced` (`--overwrite-tags`).",
    );
    const PLACE: &str = "Where the game is, as in `games`.";
    pub(crate) const SOURCE: Column = Column::required("source", Text, PLACE);
    pub(crate) const GAME_INDEX: Column = Column::required("game_index", I64, PLACE);
    pub(crate) const OFFSET: Column = Column::required("offset", I64, PLACE);
    pub(crate) const LINE: Column = Column::required("line", I64, PLACE);
    pub(crate) const PLY: Column = Column::nullable("ply", I32, "The ply concerned, or null.");
    pub(crate) const DETAIL: Column = Column::required(
        "detail",
        Text,
        "What was done: the reason and message, `1-0 -> 0-1 (checkmate)`, `cd4 -> cxd4`, …",
    );
    pub(crate) const REPAIR: Column = Column::nullable(
        "repair",
        Text,
        "The class of a repair (see `clean --repair`); null for other actions.",
    );

    pub const TABLE: Table = Table {
        name: "clean_report",
        description: "one row per action clean took on a game",
        columns: &[
            ACTION, SOURCE, GAME_INDEX, OFFSET, LINE, PLY, DETAIL, REPAIR,
        ],
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::material::CHECKPOINTS;

    #[test]
    fn the_rating_band_column_names_the_bands_of_the_model() {
        // The meaning abbreviates the middle bands; its ends and every band
        // from 2200 up are spelled out.
        let meaning = dimensions::RATING_BAND.meaning;
        for band in crate::model::RatingBand::all().filter(|b| b.lower_bound() >= 2200) {
            assert!(meaning.contains(&band.to_string()), "{band}: {meaning}");
        }
        assert!(meaning.contains("800 (below 1000)"), "{meaning}");
    }

    #[test]
    fn material_checkpoints_have_their_columns() {
        let names: Vec<&str> = games::MATERIAL_DIFF_AT.iter().map(|c| c.name).collect();
        let expected: Vec<String> = CHECKPOINTS
            .iter()
            .map(|ply| format!("material_diff_at_{ply}"))
            .collect();
        assert_eq!(names, expected);
    }

    #[test]
    fn names_are_unique_within_a_table() {
        for table in all_tables() {
            let mut names: Vec<&str> = table.columns.iter().map(|c| c.name).collect();
            names.sort_unstable();
            let before = names.len();
            names.dedup();
            assert_eq!(names.len(), before, "{}", table.name);
        }
    }

    #[test]
    fn aggregates_have_keys_and_row_tables_do_not() {
        for table in all_tables() {
            let keys = table.names_merged_as(Merge::Key).count();
            let rows = table.names_merged_as(Merge::Row).count();
            match table.name {
                "games" | "rejects" | "moves" | "clean_report" => {
                    assert_eq!(rows, table.columns.len(), "{}", table.name);
                    assert!(!table.is_aggregate(), "{}", table.name);
                }
                _ => assert!(
                    keys > 0 && rows == 0 && table.is_aggregate(),
                    "{}",
                    table.name
                ),
            }
        }
    }

    #[test]
    fn markdown_groups_columns_that_share_a_meaning() {
        let text = endgames::TABLE.markdown();
        assert!(
            text.contains("| `plies_to_end_sum`, `avg_plies_to_end` | i64, f64 | no |"),
            "{text}"
        );
    }
}
