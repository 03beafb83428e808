//! Command line: the subcommands and their options (clap derive).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "pgnlake",
    version,
    about = "Verified chess archives as Parquet tables",
    after_help = "Guide: docs/guide.md (every command and option). Tables: docs/tables.md. \
                  Rules: docs/rules.md. FAQ: docs/faq.md."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Replay every game of PGN archives; write games, rejects, opening statistics and a summary.
    #[command(after_help = "More: docs/guide.md#import")]
    Import(ImportArgs),
    /// Show the moves played from one position, from an import's opening tree.
    #[command(after_help = "More: docs/guide.md#explore")]
    Explore(ExploreArgs),
    /// Find the games that reach a position, material or move pattern at any ply (scoutfish's JSON queries, or a FEN).
    #[command(after_help = "More: docs/search.md")]
    Search(SearchArgs),
    /// Walk one game through the opening tree: the games that reached each position, and where it left the archive.
    #[command(after_help = "More: docs/guide.md#novelty")]
    Novelty(NoveltyArgs),
    /// Serve the lichess opening explorer's HTTP API and an explorer page over an import or a lake.
    #[command(after_help = "More: docs/guide.md#serve, docs/serve.md")]
    Serve(ServeArgs),
    /// Print a position's key as the opening tree stores it (position_key), from a FEN or EPD.
    #[command(after_help = "More: docs/guide.md#key")]
    Key(KeyArgs),
    /// Write every accepted game back as standard PGN and set the rejected ones aside.
    #[command(after_help = "More: docs/guide.md#clean")]
    Clean(CleanArgs),
    /// Write the games an SQL query selects as PGN, re-read from their sources.
    #[command(after_help = "More: docs/guide.md#export")]
    Export(ExportArgs),
    /// Run SQL over the tables of an import (polars SQL; every NAME.parquet is table NAME).
    #[command(after_help = "More: docs/guide.md#query")]
    Query(QueryArgs),
    /// Put the tables of an import's shards (import --shard K/N) together as one import's.
    #[command(after_help = "More: docs/guide.md#merge")]
    Merge(MergeArgs),
    /// Draw an import's statistics as charts in one self-contained HTML file.
    #[command(after_help = "More: docs/guide.md#report")]
    Report(ReportArgs),
    /// Say for each FEN (one per line) whether each side can still checkmate.
    #[command(after_help = "More: docs/guide.md#unwinnable")]
    Unwinnable(UnwinnableArgs),
    /// Print the tables' columns: name, type, nulls, how shards add up, meaning.
    #[command(after_help = "More: docs/guide.md#schema")]
    Schema(SchemaArgs),
    /// List the imports of a lake (import --into), add, remove or compact them.
    #[command(after_help = "More: docs/guide.md#lake")]
    Lake(LakeArgs),
}

/// `pgnlake lake LAKE [--remove NAME | --compact | --add DIR --name NAME]`.
#[derive(Debug, Args)]
pub struct LakeArgs {
    /// The lake (a folder written by import --into).
    pub lake: PathBuf,
    /// Remove this import from the lake.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["compact", "add"])]
    pub remove: Option<String>,
    /// Add a finished import's folder (import --out, merge --out, or the
    /// Spark job's output) to the lake as the import --name; the folder is
    /// left as it is.
    #[arg(
        long,
        value_name = "DIR",
        requires = "name",
        conflicts_with = "compact"
    )]
    pub add: Option<PathBuf>,
    /// The name of the import --add adds.
    #[arg(long, value_name = "NAME", requires = "add")]
    pub name: Option<String>,
    /// Replace the lake's import of the same name (--add).
    #[arg(long, requires = "add")]
    pub replace: bool,
    /// Sum the statistics tables of all imports into one partition
    /// (`import=_compacted`), so that reading stays fast; games, rejects
    /// and moves stay per import.
    #[arg(long)]
    pub compact: bool,
    /// The codec of the compacted tables' pages (--compact): `zstd`
    /// (level 1), `zstd:LEVEL` (1-22), `lz4` (LZ4_RAW) or `none`.
    #[arg(
        long,
        value_name = "CODEC",
        default_value = "zstd:1",
        requires = "compact"
    )]
    pub compression: crate::sink::compression::Compression,
}

/// `pgnlake schema [TABLE] [--format table|markdown|json]`.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// One table (`games`, `rejects`, `openings`, `opening_lines`,
    /// `results`, `material`, `endgames`, `moves`); all when absent.
    pub table: Option<String>,
    /// `table`: aligned text; `markdown`: the tables of docs/tables.md;
    /// `json`: one object per table (what the Spark job reads).
    #[arg(long, value_enum, default_value_t = SchemaFormat::Table)]
    pub format: SchemaFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SchemaFormat {
    Table,
    Markdown,
    Json,
}

/// `pgnlake unwinnable [FILE|-] [--nodes N]`.
#[derive(Debug, Args)]
pub struct UnwinnableArgs {
    /// One FEN per line, with or without its move counters; what follows
    /// it (an id, a label) is ignored. `-` reads stdin.
    #[arg(default_value = "-")]
    pub input: PathBuf,
    /// Positions the search may visit per side before it answers
    /// `undetermined` (0: the static analysis alone, no search). The
    /// default settles 98.5 % of the answers on CHA's hard test vectors, in
    /// about 40 ms per side.
    #[arg(long, default_value_t = 700_000)]
    pub nodes: u64,
}

/// `pgnlake report --data DIR -o report.html`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The folder an import (or a merge) wrote.
    #[arg(long, default_value = "out")]
    pub data: PathBuf,
    /// The HTML file to write (`-` for stdout).
    #[arg(long, short, default_value = "report.html")]
    pub output: PathBuf,
}

/// Where `import` or `merge` puts its tables in a lake instead of a folder.
#[derive(Debug, Args)]
pub struct LakeTarget {
    /// Add the tables to the lake LAKE as one import
    /// (`LAKE/<table>/import=NAME/`), instead of a folder of their own.
    #[arg(long, value_name = "LAKE")]
    pub into: Option<PathBuf>,
    /// The import's name in the lake (import: by default the first input's
    /// file name without extensions; merge: required).
    #[arg(long, requires = "into")]
    pub name: Option<String>,
    /// Replace the lake's import of the same name (swapped in at the end).
    #[arg(long, requires = "into")]
    pub replace: bool,
}

/// Merge the output folders of `import --shard K/N`, K = 1..N.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The shards' output folders (all N of them, in any order).
    #[arg(required = true)]
    pub shards: Vec<PathBuf>,
    /// Folder for the merged tables and summary.json.
    #[arg(long, short, required_unless_present = "into", conflicts_with = "into")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub lake: LakeTarget,
    /// Leave out of openings.parquet the positions-and-moves played in fewer
    /// than N games, counted over all shards (1 keeps every row).
    #[arg(long, value_name = "N", default_value_t = crate::import::DEFAULT_OPENING_MIN_GAMES)]
    pub opening_min_games: u32,
    /// The codec of every table's Parquet pages: `zstd` (level 1),
    /// `zstd:LEVEL` (1-22), `lz4` (LZ4_RAW) or `none`.
    #[arg(long, value_name = "CODEC", default_value = "zstd:1")]
    pub compression: crate::sink::compression::Compression,
    /// No summary on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

/// The SQL of `query` and `export`: a file, or `-e SQL`.
#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
pub struct ScriptArgs {
    /// A file of SQL statements separated by `;` (- for stdin); `export`
    /// takes one, that selects the games.
    pub file: Option<PathBuf>,
    /// SQL given on the command line instead of a file.
    #[arg(long, short = 'e', value_name = "SQL", allow_hyphen_values = true)]
    pub execute: Option<String>,
}

#[derive(Debug, Args)]
pub struct QueryArgs {
    #[command(flatten)]
    pub script: ScriptArgs,
    /// The folder an import wrote.
    #[arg(long, default_value = "out")]
    pub data: PathBuf,
    /// Output format: an aligned table for people, or the whole result as
    /// CSV, JSON (one array of objects) or Parquet.
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
    /// Write the result here instead of stdout.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Rows shown per result in the table format.
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum QueryFormat {
    Table,
    Csv,
    Json,
    Parquet,
}

/// `pgnlake export --data DIR (FILE.sql | -e SQL) -o OUT`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Any query that returns `game_id` (and, on a lake, `import`).
    #[command(flatten)]
    pub script: ScriptArgs,
    /// Instead of SQL, the games a search matches (a scoutfish JSON query
    /// or a FEN, as `pgnlake search` takes it; @FILE for one in a file).
    #[arg(long, value_name = "QUERY", group = "ScriptArgs")]
    pub search: Option<String>,
    /// The folder an import wrote, or a lake.
    #[arg(long, default_value = "out")]
    pub data: PathBuf,
    /// Where the PGN goes (- for stdout; .zst and .gz are compressed).
    #[arg(long, short)]
    pub output: PathBuf,
    /// Write the result the board proves, as `clean --fix-results`.
    #[arg(long)]
    pub fix_results: bool,
    /// Read the notations `clean --repair` reads.
    #[arg(long)]
    pub repair: bool,
    /// Worker threads (0: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// No progress and no summary on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct CleanArgs {
    /// PGN files (plain, .zst, .gz, .bz2), folders (searched recursively), or - for stdin.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// The clean PGN (- for stdout); .zst and .gz compress.
    #[arg(long, short)]
    pub output: PathBuf,
    /// Where rejected games go, byte for byte as they were read.
    #[arg(long)]
    pub rejects: Option<PathBuf>,
    /// Set Result to what the board proves (checkmate, stalemate, dead
    /// position, fivefold, 75 moves), keeping the old value in OriginalResult.
    #[arg(long)]
    pub fix_results: bool,
    /// A Parquet table with one row per action (reject, result_fixed, …).
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Before rejecting a game, mend what a person would: moves in other
    /// notations (long algebraic, UCI, 0-0, figurines, localized or Chinese
    /// piece names), reduced pawn captures (cd4), captures without x, e.p.
    /// marks, a move glued to the result (gxf41-0), text after the result,
    /// words for mate or resigns (mat, resigns), unescaped quotes in tags,
    /// an empty FEN, FEN castling / en-passant rights the position cannot
    /// have.
    #[arg(long)]
    pub repair: bool,
    /// Keep the legal moves before an illegal one: the game ends there with
    /// Result "*" and OriginalResult, the rest kept in a comment (implies
    /// --repair).
    #[arg(long)]
    pub salvage: bool,
    /// Which games are duplicates (exact, moves or contained); the richest
    /// copy of each group is kept.
    #[arg(long, value_enum, default_value_t = crate::clean::dedupe::DedupeMode::None)]
    pub dedupe: crate::clean::dedupe::DedupeMode,
    /// Add tags of what pgnlake knows of each game, comma-separated: eco,
    /// opening, variation (as pgn-extract splits the name), plycount,
    /// final-fen, result-by-rule, time-class, lichess-id. A game's own tag
    /// of that name is kept, and a disagreement reported.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "LIST")]
    pub add_tags: Vec<crate::clean::enrich::TagToAdd>,
    /// With --add-tags: replace a game's own tag that disagrees (reported).
    #[arg(long, requires = "add_tags")]
    pub overwrite_tags: bool,
    /// Leave out of the games written, comma-separated: comments,
    /// variations, nags, clocks ([%clk], [%emt] and [%eval] in comments).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "LIST")]
    pub strip: Vec<crate::clean::enrich::StripPart>,
    /// Write the clean games into one file per key, named after -o OUT
    /// (`OUT-B90.pgn`, `OUT-2024.pgn`, `OUT-1.pgn`): eco, year, event, or N
    /// games a file.
    #[arg(long, value_name = "eco|year|event|N", value_parser = crate::clean::enrich::SplitBy::parse)]
    pub split_by: Option<crate::clean::enrich::SplitBy>,
    /// Where duplicates go, each with a DuplicateOf tag naming the kept game.
    #[arg(long)]
    pub duplicates: Option<PathBuf>,
    /// Memory for the duplicate search before it spills to disk.
    #[arg(long, default_value = "1GiB", value_parser = parse_size)]
    pub memory_limit: u64,
    /// Worker threads (default: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// No progress bar and no summary on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// PGN files (plain, .zst, .gz, .bz2), folders (searched recursively), or - for stdin.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Folder for the tables (games, rejects, openings, opening_lines, results,
    /// material, endgames; moves with --moves) and summary.json.
    #[arg(long, short, required_unless_present = "into", conflicts_with = "into")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub lake: LakeTarget,
    /// Worker threads (default: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// No progress bar and no summary on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// Exit with code 1 when any game was rejected.
    #[arg(long)]
    pub strict: bool,
    /// Plies of each game that enter the opening tree (openings.parquet).
    #[arg(long, default_value_t = crate::import::DEFAULT_OPENING_PLIES)]
    pub opening_plies: usize,
    /// How finely the opening statistics (openings, opening_lines) are split
    /// by date: `month`, `year` (January 1st) or `none` (month null).
    #[arg(long, value_enum, value_name = "PERIOD", default_value_t = crate::stats::dimensions::OpeningPeriod::Month)]
    pub opening_period: crate::stats::dimensions::OpeningPeriod,
    /// Leave out of openings.parquet the positions-and-moves played in fewer
    /// than N games (counted over the whole run; 1 keeps every row).
    #[arg(long, value_name = "N", default_value_t = crate::import::DEFAULT_OPENING_MIN_GAMES)]
    pub opening_min_games: u32,
    /// Memory for the aggregates before they spill to disk: bytes, or with
    /// a unit (512M, 1G, 2GiB).
    #[arg(long, default_value = "1GiB", value_parser = parse_size)]
    pub memory_limit: u64,
    /// Values of pawn, knight, bishop, rook and queen for the material columns.
    #[arg(long, default_value = "1,3,3,5,9", value_parser = crate::replay::material::PieceValues::parse)]
    pub piece_values: crate::replay::material::PieceValues,
    /// Import shard K of N only (1 <= K <= N): the inputs are split by size,
    /// plain files at game starts; `pgnlake merge` puts the shards together.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<crate::input::shard::Shard>,
    /// Also write moves.parquet: one row per mainline ply of every accepted
    /// game (SAN, UCI, position key, material, clock, move time, evaluation, NAGs).
    #[arg(long)]
    pub moves: bool,
    /// Search budget (positions) per side of a final position the cheap
    /// dead-position test flags (locked pawns, no queen), after the static
    /// analysis: finds helpmates it cannot see (about 1 µs a position).
    /// Default 0: the static analysis alone.
    #[arg(long, value_name = "N", default_value_t = crate::replay::dead::DEFAULT_NODES)]
    pub unwinnable_nodes: u64,
    /// Read again, by `clean --repair`'s rules, each game the import rejects
    /// for its notation or tags (captures without x, promotions without =,
    /// long algebraic, doubled quotes in a tag, an empty FEN, ...): accepted
    /// when exactly one legal move fits every token, with what was mended
    /// in the games column `repairs`.
    #[arg(long)]
    pub repair: bool,
    /// The codec of every table's Parquet pages: `zstd` (level 1),
    /// `zstd:LEVEL` (1-22), `lz4` (LZ4_RAW) or `none`.
    #[arg(long, value_name = "CODEC", default_value = "zstd:1")]
    pub compression: crate::sink::compression::Compression,
}

/// `pgnlake serve --data DIR`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The import's folder or lake that `/lichess`, `/player` and the page read.
    #[arg(long, default_value = "out")]
    pub data: PathBuf,
    /// The import's folder or lake that `/masters` reads (default: --data).
    #[arg(long, value_name = "DIR")]
    pub masters: Option<PathBuf>,
    /// Address and port to listen on (port 0: any free port, printed at start).
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:9002")]
    pub listen: std::net::SocketAddr,
    /// Send Access-Control-Allow-Origin: * (for web pages of other origins).
    #[arg(long)]
    pub cors: bool,
    /// Threads answering connections (default: one per core).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
    /// Readers of the tables at once; more answers wait their turn
    /// (default: four per thread).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub readers: Option<u16>,
    /// Connections open at once; one more is answered 503 and closed
    /// (default: what the open-file limit leaves, at most 4096).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: Option<u32>,
    /// Seconds a client has to send a request's head; an idle keep-alive
    /// connection is closed after as long.
    #[arg(long, value_name = "SECS", default_value_t = 10, value_parser = clap::value_parser!(u16).range(1..))]
    pub header_timeout: u16,
    /// No line on stderr per request (method, path, status, latency);
    /// errors are still said.
    #[arg(long)]
    pub no_request_log: bool,
}

/// `pgnlake key FEN`.
#[derive(Debug, Args)]
pub struct KeyArgs {
    /// The position as FEN or EPD (its fields as one argument, or as
    /// several: they are joined by spaces).
    #[arg(required = true, value_name = "FEN", allow_hyphen_values = true)]
    pub fen: Vec<String>,
}

/// Explore one position of the opening tree of an import.
#[derive(Debug, Args)]
pub struct ExploreArgs {
    /// The folder an import wrote (with openings.parquet).
    #[arg(long, default_value = "out")]
    pub data: PathBuf,
    /// Moves from the start position, in SAN (e4 c5 Nf3); move numbers are allowed.
    #[arg(conflicts_with = "fen")]
    pub moves: Vec<String>,
    /// The position as FEN (or EPD) instead of moves.
    #[arg(long)]
    pub fen: Option<String>,
    #[command(flatten)]
    pub filters: FilterArgs,
    /// List up to N games of each move, highest average rating first (the
    /// best-rated game of each tree row kept, the best of those).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub games: usize,
    /// List the N latest games of the position (in the order games were
    /// read: the archive's, by date in lichess's), with their moves.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub recent: usize,
    /// Each move's history: its games month by month (white / draws /
    /// black) and share of the position's, its first and last month.
    #[arg(long)]
    pub history: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ExploreFormat::Table)]
    pub format: ExploreFormat,
}

#[derive(Debug, Args)]
pub struct NoveltyArgs {
    /// The folder an import wrote, or a lake.
    #[arg(long, default_value = "out")]
    pub data: PathBuf,
    /// The game, by its id (`17` in an import's folder, `IMPORT:17` in a lake).
    #[arg(
        long,
        value_name = "ID",
        required_unless_present = "pgn",
        conflicts_with = "pgn"
    )]
    pub game: Option<String>,
    /// The game as PGN, from FILE (`-`: standard input); one game.
    #[arg(long, value_name = "FILE")]
    pub pgn: Option<PathBuf>,
    #[command(flatten)]
    pub filters: FilterArgs,
    /// Earlier games are those of months before this one (YYYY-MM); by
    /// default the game's month (its UTCDate, else its Date), and every
    /// game kept when it has none.
    #[arg(long, value_name = "YYYY-MM")]
    pub before: Option<String>,
    /// A position fewer than N earlier games reached is rare: the first
    /// such ply is reported beside the novelty.
    #[arg(long, value_name = "N", default_value_t = crate::read::novelty::DEFAULT_RARE)]
    pub rare: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ExploreFormat::Table)]
    pub format: ExploreFormat,
}

/// `explore --rating`'s help, spelled from [`RatingBand::LOWER_BOUNDS`]
/// (the one list of bands), so that it cannot name other bands than the
/// ones `--rating` takes.
///
/// [`RatingBand::LOWER_BOUNDS`]: crate::model::RatingBand::LOWER_BOUNDS
pub fn rating_help() -> String {
    let bounds = crate::model::RatingBand::LOWER_BOUNDS;
    let (first, second, last) = (
        bounds.first().copied().unwrap_or_default(),
        bounds.get(1).copied().unwrap_or_default(),
        bounds.last().copied().unwrap_or_default(),
    );
    format!(
        "Only games whose average-rating band is in FROM..TO, both inclusive, each a band's \
         lower bound: {} ({first} stands for every average below {second}, {last} for \
         {last} and above); FROM.. and ..TO leave an end open, one bound is one band",
        crate::model::RatingBand::names()
    )
}

/// `explore`'s and `search`'s filters: the games of these speeds, rating
/// bands and months.
#[derive(Debug, Args)]
pub struct FilterArgs {
    /// Only games of these time classes, separated by commas
    /// (ultrabullet, bullet, blitz, rapid, classical, correspondence, unknown).
    #[arg(long, value_name = "LIST")]
    pub speed: Option<String>,
    // The help is written from the bands' type (`rating_help`), not in
    // this comment: the bands changed once and the text stayed behind.
    #[arg(long, value_name = "FROM..TO", help = rating_help())]
    pub rating: Option<String>,
    /// Only games of this month or later (YYYY-MM).
    #[arg(long, value_name = "YYYY-MM")]
    pub since: Option<String>,
    /// Only games of this month or earlier (YYYY-MM).
    #[arg(long, value_name = "YYYY-MM")]
    pub until: Option<String>,
}

/// `pgnlake search --data DIR QUERY`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// scoutfish's JSON query (`{"material": "KRPKR"}`), a FEN for one
    /// exact position, or @FILE holding either.
    pub query: String,
    /// The folder an import wrote, or a lake.
    #[arg(long, default_value = "out")]
    pub data: PathBuf,
    /// How the matches are written: one line per game.
    #[arg(long, value_enum, default_value_t = SearchFormat::Text)]
    pub format: SearchFormat,
    /// Where the matches go (- for stdout).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Where the statistics of the games listed go, as JSON (- for stdout);
    /// without it they are printed on stderr as a table (not with --quiet).
    #[arg(long, value_name = "FILE")]
    pub stats: Option<PathBuf>,
    #[command(flatten)]
    pub filters: FilterArgs,
    /// Worker threads (0: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// No progress and no statistics on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SearchFormat {
    Text,
    Ndjson,
    Csv,
    Parquet,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExploreFormat {
    Table,
    Json,
}

/// `1073741824`, `512M`, `1G`, `2GiB`, `64k` (units are powers of 1024).
pub(crate) fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let number: u64 = digits
        .parse()
        .map_err(|_| format!("not a size: {text:?} (try 512M or 2GiB)"))?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        other => return Err(format!("unknown size unit {other:?} (use K, M, G or T)")),
    };
    number
        .checked_mul(1 << shift)
        .ok_or_else(|| format!("size too large: {text:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("64k"), Ok(64 << 10));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("5X").is_err());
        assert!(parse_size("99999999999T").is_err());
    }

    /// `explore --help` names every band `--rating` takes, as the type
    /// lists them, and each bound it names parses as a band.
    #[test]
    fn the_rating_help_is_the_bands_of_the_type() {
        use clap::CommandFactory;
        let mut command = Cli::command();
        let explore = command
            .find_subcommand_mut("explore")
            .unwrap_or_else(|| panic!("no explore subcommand"));
        let help = explore.render_help().to_string();
        let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
        let listed = crate::model::RatingBand::names();
        assert!(flat.contains(&listed), "{listed} not in:\n{help}");
        assert!(!flat.contains("steps of 200"), "{help}");
        let wanted = rating_help();
        assert!(flat.contains(&wanted), "{wanted} not in:\n{help}");
        for bound in crate::model::RatingBand::LOWER_BOUNDS {
            let range: crate::model::BandRange = format!("{bound}..{bound}")
                .parse()
                .unwrap_or_else(|e| panic!("{bound}: {e}"));
            assert_eq!(range.from.map(|b| b.lower_bound()), Some(bound));
        }
    }
}
