//! `pgnlake explore`: prints one position of an import's opening tree.

use std::process::ExitCode;

use crate::cli::{ExploreArgs, ExploreFormat};
use crate::explore::{Target, explore};

/// Exit code when the position is not in the tree.
pub const EXIT_NOT_FOUND: u8 = 1;

pub fn run(args: ExploreArgs) -> anyhow::Result<ExitCode> {
    let target = match args.fen {
        Some(fen) => Target::Fen(fen),
        None => Target::Moves(args.moves),
    };
    let explored = explore(&args.data, &target)?;
    match args.format {
        ExploreFormat::Table => print!("{}", explored.to_table()),
        ExploreFormat::Json => println!("{}", explored.to_json()),
    }
    if explored.moves.is_empty() {
        return Ok(ExitCode::from(EXIT_NOT_FOUND));
    }
    Ok(ExitCode::SUCCESS)
}
