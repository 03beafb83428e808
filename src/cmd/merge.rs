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
        let number = |field: &str| summary[field].as_u64().unwrap_or(0);
        eprintln!(
            "merged {} shards: games read {} = accepted {} + rejected {}{}",
            number("merged_shards"),
            number("games_read"),
            number("accepted"),
            number("rejected"),
            if summary["balanced"] == true {
                ""
            } else {
                "  (MISMATCH)"
            }
        );
    }
    Ok(ExitStatus::Success)
}
