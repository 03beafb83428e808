//! Export, `pgnlake export`: the games an SQL query over the tables
//! selects, re-read from their sources (by `source` and `offset`, each
//! checked against the `raw_hash` the import recorded) and written as PGN
//! in the query's order, exactly as `clean` writes them.
//!
//! Each source is read once, front to back, through the import's pipeline
//! (a `.zst` month is decompressed once however many games are selected);
//! the selected games' texts go to a spill file as they are cleaned, and
//! are then copied to the output in the query's order, so memory holds one
//! index entry per selected game, not the games.
//!
//! Every selected game that is not written is said: its source missing or
//! changed in size (one line for the source), or, read, the game no longer
//! at its offset or no longer its bytes (one line for the game; one line
//! with the count for a source most of whose selected games are so).
//!
//! Each game becomes PGN one way (`reread`: its hash checked, then
//! cleaned), whether its source is read whole here or one game is read at
//! its offset (`game`, what `pgnlake serve` answers a game's PGN with).

pub(crate) mod game;
mod reread;

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use polars::prelude::*;

pub(crate) use game::{GameError, GameErrorKind, game_pgn_at};
pub(crate) use reread::Cleaning;
use reread::{Cleaned, Failure, clean_selected, readable_source};

use crate::error::Error;
use crate::input::{self, InputSource};
use crate::pgn::framer::{Batch, Truncation};
use crate::pipeline;
use crate::read::explore::Filters;
use crate::read::query::{Statement, Tables};
use crate::read::search::{SearchOptions, search};
use crate::read::source::Data;
use crate::replay::scout::Query;
use crate::sink::output::{self, FileOutput};
use crate::sink::schema::games;

/// Which games `export` writes.
#[derive(Debug, Clone)]
pub enum Selection {
    /// The games an SQL query returns (`game_id`, and `import` on a lake),
    /// in its order, with where the query came from (for messages).
    Sql { statement: Statement, place: String },
    /// The games a search matches (`export --search`), in input order.
    Search(Query),
}

/// What `pgnlake export` was asked to do.
#[derive(Debug, Clone)]
pub struct ExportOptions {
    /// An import's folder or a lake.
    pub data: PathBuf,
    pub selection: Selection,
    pub output: PathBuf,
    pub fix_results: bool,
    pub repair: bool,
    pub threads: usize,
    pub quiet: bool,
}

/// What an export did.
#[derive(Debug, Default)]
pub struct ExportSummary {
    /// Rows the query selected.
    pub selected: u64,
    /// Games written.
    pub written: u64,
    /// Sources read (each once, whole) and their uncompressed bytes.
    pub sources_read: usize,
    pub bytes_read: u64,
    /// One line per source that could not be read as the import read it
    /// (missing, changed, unreadable) and per selected game not written
    /// (or per source, with their count, when most of its are not).
    pub problems: Vec<String>,
}

/// The import of a lake a selected game belongs to (empty in a folder).
type Import = String;

/// One selected game: where the import found it.
struct Selected {
    source: String,
    offset: u64,
    line: u64,
    raw_hash: u64,
}

/// A source with more than this many selected games not written, and more
/// than half of them, no longer lines up with its import: one line for it.
const GAME_LINES: usize = 10;

/// Runs `export`: nothing is written when the query fails, returns no
/// `game_id`, or names a game the tables do not have.
pub fn run_export(options: &ExportOptions) -> Result<ExportSummary, Error> {
    let data = Data::open(&options.data)?;
    let selection = select(options, &data)?;
    // Opened before the sources are read: an unwritable OUT fails at once.
    let path = &options.output;
    let output = FileOutput::create(path).map_err(Error::write(path))?;
    let mut summary = ExportSummary {
        selected: selection.len() as u64,
        ..ExportSummary::default()
    };
    // The sources, each once, in the order of their first selected game.
    let mut seen = std::collections::HashSet::new();
    let names: Vec<&str> = selection
        .iter()
        .map(|game| game.source.as_str())
        .filter(|name| seen.insert(*name))
        .collect();
    let recorded = recorded_sizes(&data);
    let mut sources = Vec::new();
    let mut source_of: HashMap<&str, u32> = HashMap::new();
    for name in names {
        match readable_source(name, recorded.get(name)) {
            Ok(source) => {
                source_of.insert(name, sources.len() as u32);
                sources.push(source);
            }
            Err(problem) => summary.problems.push(problem),
        }
    }
    let mut wanted: HashMap<(u32, u64), u64> = HashMap::new();
    let mut lines: HashMap<(u32, u64), u64> = HashMap::new();
    for game in &selection {
        if let Some(&source) = source_of.get(game.source.as_str()) {
            wanted.insert((source, game.offset), game.raw_hash);
            lines.insert((source, game.offset), game.line);
        }
    }
    let spill = read_selected(options, &sources, &wanted)?;
    summary.sources_read = sources.len();
    summary.bytes_read = spill.bytes_read;
    summary
        .problems
        .extend(not_written(&sources, &lines, &spill));
    summary.written = write_in_order(options, output, &selection, &source_of, spill)?;
    // Every game not written has had its line above; should one not have,
    // the count is said all the same, never a silent success.
    if summary.written < summary.selected && summary.problems.is_empty() {
        summary.problems.push(format!(
            "{} of the {} selected games were not written",
            summary.selected - summary.written,
            summary.selected
        ));
    }
    Ok(summary)
}

/// The games a search matches, as a query's rows: `game_id` (and
/// `import` on a lake).
fn searched(options: &ExportOptions, query: &Query, lake: bool) -> Result<DataFrame, Error> {
    let (mut ids, mut imports) = (Vec::new(), Vec::new());
    let filters = Filters::default();
    let search_options = SearchOptions {
        data: &options.data,
        query,
        filters: &filters,
        threads: options.threads,
        progress: &|_| {},
    };
    search(&search_options, |found| {
        ids.push(found.game_id);
        imports.push(found.import.clone());
        Ok(())
    })?;
    let mut columns = vec![Column::new(games::GAME_ID.name.into(), ids)];
    if lake {
        columns.push(Column::new(crate::lake::PARTITION_COLUMN.into(), imports));
    }
    let height = columns[0].len();
    DataFrame::new(height, columns).map_err(|e| Error::Usage(format!("--search: {e}")))
}

/// The games the query selects, in its order, with their places.
fn select(options: &ExportOptions, data: &Data) -> Result<Vec<Selected>, Error> {
    let (frame, place) = match &options.selection {
        Selection::Sql { statement, place } => {
            let mut tables = Tables::of_data(data, &options.data)?;
            (tables.run(statement, place)?, place.as_str())
        }
        Selection::Search(query) => (searched(options, query, data.is_lake())?, "--search"),
    };
    let usage = |what: String| Error::Usage(format!("{place}: {what}"));
    let id_name = games::GAME_ID.name;
    let import_name = crate::lake::PARTITION_COLUMN;
    let mut keys = vec![id_name];
    if data.is_lake() {
        keys.push(import_name);
    }
    for key in &keys {
        if frame.column(key).is_err() {
            return Err(usage(format!(
                "the query returns no `{key}` column: select {} of the games to export",
                keys.join(" and ")
            )));
        }
    }
    let order = "_export_order";
    let chosen = frame
        .select(keys.iter().copied())
        .and_then(|f| f.with_row_index(order.into(), None))
        .map_err(|e| usage(e.to_string()))?;
    let Some(games) = data
        .scan(&games::TABLE)
        .map_err(|e| Error::Usage(format!("{}: cannot read: {}", e.path.display(), e.message)))?
    else {
        return Err(usage("the data has no games table".into()));
    };
    let mut columns = vec![
        col(id_name),
        col(games::SOURCE.name),
        col(games::OFFSET.name),
        col(games::LINE.name),
        col(games::RAW_HASH.name),
    ];
    if data.is_lake() {
        columns.push(col(import_name));
    }
    let on: Vec<Expr> = keys.iter().map(|k| col(*k)).collect();
    let chosen = integer_ids(chosen, id_name).map_err(usage)?;
    let table_ids = games
        .clone()
        .select([col(id_name)])
        .collect_schema()
        .map_err(|e| usage(e.to_string()))?;
    if let Some(dtype) = table_ids.get(id_name)
        && !dtype.is_integer()
    {
        return Err(Error::Usage(format!(
            "{}: the games table's `{id_name}` column is {dtype}, not an integer",
            data.table_path(&games::TABLE).display()
        )));
    }
    let cast = |f: LazyFrame| f.with_column(col(id_name).cast(DataType::Int64));
    let joined = cast(chosen.lazy())
        .join(
            cast(games.select(columns)),
            on.clone(),
            on,
            JoinArgs::new(JoinType::Left),
        )
        .sort([order], SortMultipleOptions::default())
        .collect()
        .map_err(|e| usage(e.to_string()))?;
    selected_rows(&joined, data.is_lake()).map_err(usage)
}

/// The query's `game_id` column as 64-bit integers: integers as they are, a
/// float only when every value is a whole number (`1.0`); a fraction
/// (`0.5`), a value out of range or another type is an error naming the
/// column, never truncated to a game.
fn integer_ids(mut frame: DataFrame, name: &str) -> Result<DataFrame, String> {
    let column = frame.column(name).map_err(|e| e.to_string())?;
    let dtype = column.dtype().clone();
    let ids = if dtype.is_integer() || dtype == DataType::Null {
        column.cast(&DataType::Int64).map_err(|e| e.to_string())?
    } else if dtype.is_float() {
        let floats = column.cast(&DataType::Float64).map_err(|e| e.to_string())?;
        let floats = floats.f64().map_err(|e| e.to_string())?;
        // 2^63: the first float past i64's range.
        let limit = 9_223_372_036_854_775_808.0;
        let whole = |value: f64| value.fract() == 0.0 && value >= -limit && value < limit;
        if let Some((row, value)) = floats
            .iter()
            .enumerate()
            .find_map(|(row, value)| value.filter(|&v| !whole(v)).map(|v| (row, v)))
        {
            return Err(format!(
                "the query's `{name}` column holds {value} (row {}), not a game_id: game_ids are whole numbers",
                row + 1
            ));
        }
        Column::new(
            name.into(),
            floats
                .iter()
                .map(|value| value.map(|v| v as i64))
                .collect::<Vec<Option<i64>>>(),
        )
    } else {
        return Err(format!(
            "the query's `{name}` column is {dtype}, not an integer: select the games' game_id"
        ));
    };
    frame.with_column(ids).map_err(|e| e.to_string())?;
    Ok(frame)
}

/// The joined rows as selected games; a game the tables do not have (or
/// a null key) is an error.
fn selected_rows(frame: &DataFrame, lake: bool) -> Result<Vec<Selected>, String> {
    let column = |name: &str| frame.column(name).map_err(|e| e.to_string());
    let ids = column(games::GAME_ID.name)?
        .i64()
        .map_err(|e| e.to_string())?
        .clone();
    let sources = column(games::SOURCE.name)?
        .str()
        .map_err(|e| e.to_string())?
        .clone();
    let offsets = column(games::OFFSET.name)?
        .cast(&DataType::Int64)
        .map_err(|e| e.to_string())?;
    let offsets = offsets.i64().map_err(|e| e.to_string())?;
    let lines = column(games::LINE.name)?
        .cast(&DataType::Int64)
        .map_err(|e| e.to_string())?;
    let lines = lines.i64().map_err(|e| e.to_string())?;
    let hashes = column(games::RAW_HASH.name)?
        .cast(&DataType::Int64)
        .map_err(|e| e.to_string())?;
    let hashes = hashes.i64().map_err(|e| e.to_string())?;
    let imports = match lake {
        true => Some(
            column(crate::lake::PARTITION_COLUMN)?
                .str()
                .map_err(|e| e.to_string())?
                .clone(),
        ),
        false => None,
    };
    let mut selected = Vec::with_capacity(frame.height());
    for row in 0..frame.height() {
        let import: Option<Import> = imports.as_ref().and_then(|i| i.get(row)).map(str::to_owned);
        let id = ids.get(row).map_or("null".into(), |id| id.to_string());
        let place = (sources.get(row), offsets.get(row), hashes.get(row));
        let (Some(source), Some(offset), Some(hash)) = place else {
            return Err(match import {
                Some(import) => {
                    format!("game_id {id} of import {import} is not in the games table")
                }
                None => format!("game_id {id} is not in the games table"),
            });
        };
        let offset = u64::try_from(offset)
            .map_err(|_| format!("game_id {id}: its offset in the games table is {offset}"))?;
        let line = lines.get(row);
        let line = line
            .and_then(|l| u64::try_from(l).ok())
            .ok_or_else(|| format!("game_id {id}: its line in the games table is {line:?}"))?;
        selected.push(Selected {
            source: source.to_owned(),
            offset,
            line,
            raw_hash: hash as u64,
        });
    }
    Ok(selected)
}

/// The size on disk each source had when it was imported (per the
/// summaries; the last import of a source in a lake).
fn recorded_sizes(data: &Data) -> HashMap<String, u64> {
    data.summaries()
        .iter()
        .flat_map(|s| &s.inputs)
        .filter_map(|input| Some((input.path.clone(), input.bytes?)))
        .collect()
}

/// The selected games' texts, written to a spill file as each source is
/// read: where each is, and why any could not be.
struct Spill {
    file: File,
    /// (source, offset) → (position, length) in the file.
    at: HashMap<(u32, u64), (u64, usize)>,
    /// (source, offset) → why the game found there was not written.
    failed: HashMap<(u32, u64), Failure>,
    /// Per source read, where it was cut short and why.
    cuts: HashMap<u32, Truncation>,
    /// Uncompressed bytes of the sources read.
    bytes_read: u64,
}

/// Reads each source once, cleaning the selected games on the workers.
fn read_selected(
    options: &ExportOptions,
    sources: &[InputSource],
    wanted: &HashMap<(u32, u64), u64>,
) -> Result<Spill, Error> {
    // Beside the output file (the file its links end at); for stdout, a
    // device or a fifo, in the temporary folder.
    let spill_dir = output::temporary_folder(&options.output).unwrap_or_else(std::env::temp_dir);
    let file = tempfile::tempfile_in(&spill_dir).map_err(Error::write(&spill_dir))?;
    let spill = Spill {
        file,
        at: HashMap::new(),
        failed: HashMap::new(),
        cuts: HashMap::new(),
        bytes_read: 0,
    };
    if sources.is_empty() {
        return Ok(spill);
    }
    let (pool, threads) = pipeline::worker_pool(options.threads)?;
    let total = sources.iter().map(InputSource::size).sum::<Option<u64>>();
    let bar = input::progress::import_bar(total, options.quiet || options.output == Path::new("-"));
    let cleaning = Cleaning {
        fix_results: options.fix_results,
        repair: options.repair,
    };
    let workers = pipeline::Workers {
        new_state: || (),
        work: |batch: &Batch, _: &mut ()| clean_selected(batch, wanted, cleaning),
        finish: |_| {},
    };
    let consumer = SpillWriter {
        spill,
        position: 0,
        games: 0,
        path: spill_dir,
    };
    let (read, consumed) = pipeline::run(sources, &[], &pool, threads, &bar, workers, consumer);
    bar.finish_and_clear();
    let mut spill = consumed?.spill;
    for (index, input) in read?.iter().enumerate() {
        spill.bytes_read += input.uncompressed_bytes;
        if let Some(cut) = &input.truncated {
            spill.cuts.insert(index as u32, cut.clone());
        }
    }
    Ok(spill)
}

/// Appends the cleaned games to the spill file, in input order.
struct SpillWriter {
    spill: Spill,
    position: u64,
    games: u64,
    path: PathBuf,
}

impl pipeline::Consumer<Cleaned> for SpillWriter {
    fn consume(&mut self, cleaned: Cleaned) -> Result<(), Error> {
        for (source, offset, text) in cleaned {
            self.games += 1;
            match text {
                Ok(text) => {
                    self.spill
                        .file
                        .write_all(text.as_bytes())
                        .map_err(Error::write(&self.path))?;
                    self.spill
                        .at
                        .insert((source, offset), (self.position, text.len()));
                    self.position += text.len() as u64;
                }
                Err(why) => {
                    self.spill.failed.insert((source, offset), why);
                }
            }
        }
        Ok(())
    }

    fn games(&self) -> u64 {
        self.games
    }
}

/// The lines for the selected games of the sources read that are not in
/// the spill file, source by source in input order: one per game, or, for a
/// source that no longer lines up with its import (more than
/// [`GAME_LINES`] of its selected games, and more than half, not written),
/// one line naming it with their count; a source cut short says so first.
fn not_written(
    sources: &[InputSource],
    lines: &HashMap<(u32, u64), u64>,
    spill: &Spill,
) -> Vec<String> {
    let mut selected: Vec<Vec<u64>> = vec![Vec::new(); sources.len()];
    for &(source, offset) in lines.keys() {
        if let Some(offsets) = selected.get_mut(source as usize) {
            offsets.push(offset);
        }
    }
    let mut problems = Vec::new();
    for (index, (source, offsets)) in sources.iter().zip(&mut selected).enumerate() {
        let index = index as u32;
        let name = source.display_name();
        let cut = spill.cuts.get(&index);
        if let Some(cut) = cut {
            problems.push(format!(
                "{name}: cut short after {} bytes: {}",
                cut.offset, cut.cause
            ));
        }
        offsets.sort_unstable();
        let missing: Vec<u64> = offsets
            .iter()
            .copied()
            .filter(|&offset| !spill.at.contains_key(&(index, offset)))
            .collect();
        let Some(&first) = missing.first() else {
            continue;
        };
        // Each offset is a key of `lines` (collected from it above).
        let line = |offset: u64| lines[&(index, offset)];
        if missing.len() > GAME_LINES && missing.len() * 2 > offsets.len() {
            let why = match cut {
                Some(_) => "",
                None => {
                    "changed since the import (its games are no longer where the import found \
                     them, or no longer the same): "
                }
            };
            problems.push(format!(
                "{name}: {why}{} of the {} games selected from it were not written (the first at \
                 byte {first}, line {} as imported)",
                missing.len(),
                offsets.len(),
                line(first),
            ));
            continue;
        }
        for offset in missing {
            let why = match spill.failed.get(&(index, offset)) {
                Some(Failure::Changed { line }) => {
                    format!("the game at byte {offset} (line {line}) changed since the import")
                }
                Some(Failure::Rejected(why)) => format!(
                    "the game at byte {offset} (line {}) is rejected: {why}",
                    line(offset)
                ),
                None if cut.is_some_and(|cut| offset >= cut.offset) => format!(
                    "the game at byte {offset} (line {} as imported) is past the cut",
                    line(offset)
                ),
                None => format!(
                    "no game starts at byte {offset} (line {} as imported) any more: changed since the import",
                    line(offset)
                ),
            };
            problems.push(format!("{name}: {why}; not written"));
        }
    }
    problems
}

/// Copies the games from the spill file to the output, in the query's
/// order; games not read are left out (their sources were reported).
fn write_in_order(
    options: &ExportOptions,
    mut output: FileOutput,
    selection: &[Selected],
    source_of: &HashMap<&str, u32>,
    mut spill: Spill,
) -> Result<u64, Error> {
    let path = &options.output;
    let mut written = 0;
    let mut text = Vec::new();
    for game in selection {
        let place = source_of
            .get(game.source.as_str())
            .and_then(|&source| spill.at.get(&(source, game.offset)));
        let Some(&(position, len)) = place else {
            continue;
        };
        text.resize(len, 0);
        spill
            .file
            .seek(SeekFrom::Start(position))
            .and_then(|_| spill.file.read_exact(&mut text))
            .map_err(|e| Error::Usage(format!("export spill file: {e}")))?;
        output.write_all(&text).map_err(Error::write(path))?;
        written += 1;
    }
    output.finish().map_err(Error::write(path))?;
    Ok(written)
}
