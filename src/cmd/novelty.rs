//! `pgnlake novelty`: walks one game (of the data, or PGN) through the
//! opening tree and prints where it left the archive.

use std::io::{Read, Write};
use std::path::Path;

use crate::cli::{ExploreFormat, NoveltyArgs};
use crate::cmd::ExitStatus;
use crate::error::Error;
use crate::read::keyed::KeyedFiles;
use crate::read::novelty::{NoveltyOptions, novelty};

pub fn run(args: NoveltyArgs) -> Result<ExitStatus, Error> {
    let before = args
        .before
        .as_deref()
        .map(|text| {
            text.parse::<crate::model::Month>()
                .map_err(|e| Error::Usage(format!("--before {text:?}: {e}")))
        })
        .transpose()?;
    let options = NoveltyOptions {
        filters: super::filters(&args.filters)?,
        before,
        rare: args.rare,
    };
    let files = KeyedFiles::default();
    let (what, pgn) = match (&args.game, &args.pgn) {
        (Some(id), _) => {
            let pgn =
                crate::export::game_pgn_at(&args.data, id, &files).map_err(|e| Error::Game {
                    what: format!("game {id}"),
                    source: e.into(),
                })?;
            (format!("game {id}"), pgn)
        }
        (None, Some(path)) => (path.display().to_string(), read_pgn(path)?),
        (None, None) => return Err(Error::Usage("give --game ID or --pgn FILE".into())),
    };
    let steps = crate::replay::steps::game_steps(&pgn).map_err(|e| Error::Game {
        what: what.clone(),
        source: e.into(),
    })?;
    let walked = novelty(&args.data, &steps, &options, &files)?;
    let text = match args.format {
        ExploreFormat::Table => walked.to_table(),
        ExploreFormat::Json => {
            let json =
                serde_json::to_string_pretty(&walked).map_err(Error::write(Path::new("-")))?;
            format!("{json}\n")
        }
    };
    // Not `print!`, which panics when the reader went away.
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(Error::write(Path::new("-")))?;
    Ok(ExitStatus::Success)
}

/// The PGN text of `path` (`-`: standard input).
fn read_pgn(path: &Path) -> Result<String, Error> {
    let mut text = String::new();
    let read = match path == Path::new("-") {
        true => std::io::stdin().lock().read_to_string(&mut text),
        false => std::fs::File::open(path).and_then(|mut f| f.read_to_string(&mut text)),
    };
    read.map_err(|source| Error::Read {
        path: path.display().to_string(),
        source,
    })?;
    Ok(text)
}
