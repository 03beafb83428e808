//! `pgnlake search`: the games of an import or a lake that match a
//! scoutfish query or a FEN, one line each, with their statistics.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use polars::prelude::*;

use crate::cli::{SearchArgs, SearchFormat};
use crate::cmd::ExitStatus;
use crate::error::Error;
use crate::read::search::{Match, SearchOptions, Searched, search};
use crate::replay::scout::Query;
use crate::sink::output::FileOutput;

pub fn run(args: SearchArgs) -> Result<ExitStatus, Error> {
    let query = read_query(&args.query)?;
    let filters = super::filters(&args.filters)?;
    let to_terminal = args.output.is_none() && std::io::stdout().is_terminal();
    if args.format == SearchFormat::Parquet && to_terminal {
        return Err(Error::Usage(
            "refusing to write Parquet to a terminal; pass -o FILE or redirect stdout".into(),
        ));
    }
    let path = args.output.clone().unwrap_or_else(|| PathBuf::from("-"));
    let mut output = FileOutput::create(&path).map_err(Error::write(&path))?;
    let bar = crate::input::progress::games_bar(args.quiet);
    let progress = |rows: u64| bar.inc(rows);
    let options = SearchOptions {
        data: &args.data,
        query: &query,
        filters: &filters,
        threads: args.threads,
        progress: &progress,
    };
    let mut writer = MatchWriter::new(args.format);
    let searched = search(&options, |found| {
        writer
            .write(found, &mut output)
            .map_err(Error::write(&path))
    });
    bar.finish_and_clear();
    let searched = searched?;
    writer
        .finish(searched.lake, &mut output)
        .map_err(Error::write(&path))?;
    output.finish().map_err(Error::write(&path))?;
    write_stats(&args, &searched)?;
    Ok(match searched.listed {
        0 => ExitStatus::NotFound,
        _ => ExitStatus::Success,
    })
}

/// The query given, or the one in the file `@FILE` names.
pub(crate) fn read_query(text: &str) -> Result<Query, Error> {
    let text = match text.strip_prefix('@') {
        Some(file) => std::fs::read_to_string(file).map_err(|source| Error::Read {
            path: file.to_owned(),
            source,
        })?,
        None => text.to_owned(),
    };
    Ok(Query::parse(&text)?)
}

fn write_stats(args: &SearchArgs, searched: &Searched) -> Result<(), Error> {
    if let Some(path) = &args.stats {
        let mut out = FileOutput::create(path).map_err(Error::write(path))?;
        serde_json::to_writer(&mut out, &searched.stats).map_err(Error::write(path))?;
        out.write_all(b"\n").map_err(Error::write(path))?;
        out.finish().map_err(Error::write(path))?;
    } else if !args.quiet {
        eprint!("{}", searched.stats.to_table());
    }
    if !args.quiet {
        eprintln!(
            "searched {} of {} games ({} ruled out by the pre-filter, {} moves replayed): {} matched, {} listed",
            searched.games_searched,
            searched.games_read,
            searched.ruled_out,
            searched.plies_replayed,
            searched.matched,
            searched.listed
        );
    }
    Ok(())
}

/// Writes matches as they come (Parquet: at the end, from the rows kept).
struct MatchWriter {
    format: SearchFormat,
    header: bool,
    kept: Vec<Match>,
}

fn plies_text(plies: &[u32], separator: &str) -> String {
    let texts: Vec<String> = plies.iter().map(u32::to_string).collect();
    texts.join(separator)
}

impl MatchWriter {
    fn new(format: SearchFormat) -> MatchWriter {
        MatchWriter {
            format,
            header: false,
            kept: Vec::new(),
        }
    }

    fn write(
        &mut self,
        found: &Match,
        out: &mut dyn Write,
    ) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        let lake = !found.import.is_empty();
        match self.format {
            SearchFormat::Text => {
                if !self.header {
                    self.header = true;
                    match lake {
                        true => writeln!(out, "{:<20} {:>10}  ply", "import", "game_id")?,
                        false => writeln!(out, "{:>10}  ply", "game_id")?,
                    }
                }
                if lake {
                    write!(out, "{:<20} ", found.import)?;
                }
                writeln!(
                    out,
                    "{:>10}  {}",
                    found.game_id,
                    plies_text(&found.plies, " ")
                )?;
            }
            SearchFormat::Ndjson => {
                // Written by hand (numbers, and the import's name through
                // serde_json): half the time of a JSON object a line.
                out.write_all(b"{")?;
                if lake {
                    out.write_all(b"\"import\":")?;
                    serde_json::to_writer(&mut *out, &found.import)?;
                    out.write_all(b",")?;
                }
                writeln!(
                    out,
                    "\"game_id\":{},\"ply\":[{}]}}",
                    found.game_id,
                    plies_text(&found.plies, ",")
                )?;
            }
            SearchFormat::Csv => {
                if !self.header {
                    self.header = true;
                    match lake {
                        true => writeln!(out, "import,game_id,ply")?,
                        false => writeln!(out, "game_id,ply")?,
                    }
                }
                if lake {
                    write!(out, "{},", csv_field(&found.import))?;
                }
                writeln!(out, "{},{}", found.game_id, plies_text(&found.plies, " "))?;
            }
            SearchFormat::Parquet => self.kept.push(found.clone()),
        }
        Ok(())
    }

    /// The header of an empty CSV, and the Parquet file.
    fn finish(
        &mut self,
        lake: bool,
        out: &mut dyn Write,
    ) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        match self.format {
            SearchFormat::Csv if !self.header => match lake {
                true => writeln!(out, "import,game_id,ply")?,
                false => writeln!(out, "game_id,ply")?,
            },
            SearchFormat::Parquet => {
                let mut frame = matches_frame(&self.kept, lake)?;
                crate::sink::results::write_parquet(&mut frame, out)?;
            }
            _ => {}
        }
        Ok(())
    }
}

fn csv_field(text: &str) -> String {
    match text.contains([',', '"', '\n']) {
        true => format!("\"{}\"", text.replace('"', "\"\"")),
        false => text.to_owned(),
    }
}

/// The matches as a table: `import` (a lake's), `game_id`, `ply` (a list).
fn matches_frame(kept: &[Match], lake: bool) -> PolarsResult<DataFrame> {
    let ids: Vec<i64> = kept.iter().map(|m| m.game_id).collect();
    let plies: Vec<Series> = kept
        .iter()
        .map(|m| {
            let values: Vec<i32> = m.plies.iter().map(|&p| p as i32).collect();
            Series::new("".into(), values)
        })
        .collect();
    let mut ply = Series::new("ply".into(), plies);
    if kept.is_empty() {
        ply = Series::new_empty("ply".into(), &DataType::List(Box::new(DataType::Int32)));
    }
    let mut columns = Vec::new();
    if lake {
        let imports: Vec<&str> = kept.iter().map(|m| m.import.as_str()).collect();
        columns.push(Column::new("import".into(), imports));
    }
    columns.push(Column::new("game_id".into(), ids));
    columns.push(ply.into());
    DataFrame::new(kept.len(), columns)
}
