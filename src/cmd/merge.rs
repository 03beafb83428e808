//! `pgnlake merge`: puts the tables of an import's shards together.

use crate::cli::MergeArgs;
use crate::cmd::ExitStatus;
use crate::error::Error;
use crate::import::{MergeOptions, run_merge};

pub fn run(args: MergeArgs) -> Result<ExitStatus, Error> {
    let options = MergeOptions {
        dirs: args.shards,
        out: args.out,
        opening_min_games: args.opening_min_games,
    };
    let summary = run_merge(&options)?;
    if !args.quiet {
        eprintln!(
            "merged {} shards: games read {} = accepted {} + rejected {}{}",
            summary.merged_shards.unwrap_or(0),
            summary.games_read,
            summary.accepted,
            summary.rejected,
            if summary.balanced { "" } else { "  (MISMATCH)" }
        );
    }
    Ok(ExitStatus::Success)
}
