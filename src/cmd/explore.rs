//! `pgnlake explore`: prints one position of an import's opening tree.

use std::io::Write;
use std::path::Path;

use crate::cli::{ExploreArgs, ExploreFormat};
use crate::cmd::ExitStatus;
use crate::error::Error;
use crate::read::explore::{GameCounts, Target, explore};

pub fn run(args: ExploreArgs) -> Result<ExitStatus, Error> {
    let target = match args.fen {
        Some(fen) => Target::Fen(fen),
        None => Target::Moves(args.moves),
    };
    let filters = super::filters(&args.filters)?;
    let lists = GameCounts {
        top: args.games,
        recent: args.recent,
    };
    let explored = explore(&args.data, &target, &filters, lists, args.history)?;
    let text = match args.format {
        ExploreFormat::Table => explored.to_table(),
        ExploreFormat::Json => {
            let json = explored.to_json().map_err(Error::write(Path::new("-")))?;
            format!("{json}\n")
        }
    };
    // Not `print!`, which panics when the reader went away.
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(Error::write(Path::new("-")))?;
    if explored.moves.is_empty() {
        return Ok(ExitStatus::NotFound);
    }
    Ok(ExitStatus::Success)
}
