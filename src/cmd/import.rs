//! `pgnlake import`: runs the import pipeline and reports the summary.

use crate::cli::ImportArgs;
use crate::cmd::{ExitStatus, report_truncations};
use crate::error::Error;
use crate::import::{ImportOptions, run_import};
use crate::profile;

pub fn run(args: ImportArgs) -> Result<ExitStatus, Error> {
    let options = ImportOptions {
        inputs: args.inputs,
        out: args.out,
        threads: args.threads,
        quiet: args.quiet,
        strict: args.strict,
        opening_plies: args.opening_plies,
        opening_period: args.opening_period,
        opening_min_games: args.opening_min_games,
        memory_limit: args.memory_limit,
        piece_values: args.piece_values,
        shard: args.shard,
        moves: args.moves,
        unwinnable_nodes: args.unwinnable_nodes,
    };
    if options.shard.is_some() && options.opening_min_games > 1 {
        return Err(Error::Usage(
            "--opening-min-games applies after the shards are summed: give it to \
             `pgnlake merge` (or the Spark job), not to a shard"
                .to_owned(),
        ));
    }
    profile::enable_from_env();
    let summary = run_import(&options)?;
    if !options.quiet {
        eprint!("{}", summary.to_text());
    }
    // The benchmark's stage profile (`PGNLAKE_PROFILE=1`), even with --quiet.
    eprint!("{}", profile::report(summary.games_read));
    if let Some(code) = report_truncations(&summary.inputs) {
        return Ok(code);
    }
    if options.strict && summary.rejected > 0 {
        return Ok(ExitStatus::Rejected);
    }
    Ok(ExitStatus::Success)
}
