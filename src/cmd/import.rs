//! `pgnlake import`: runs the import pipeline and reports the summary.

use crate::cli::ImportArgs;
use crate::cmd::{ExitStatus, report_truncations};
use crate::error::Error;
use crate::import::{ImportOptions, run_import};
use crate::lake::{self, Compatibility, LakeImport};
use crate::profile;

/// Checks the name and options of an import into a lake, and prepares it.
fn begin_lake_import(into: &std::path::Path, args: &ImportArgs) -> Result<LakeImport, Error> {
    let name = match &args.lake.name {
        Some(name) => name.clone(),
        None => args
            .inputs
            .first()
            .and_then(|input| lake::default_name(input))
            .ok_or_else(|| {
                Error::Usage("give the import a name with --name (standard input has none)".into())
            })?,
    };
    lake::check_name(&name).map_err(Error::Usage)?;
    let options = Compatibility {
        opening_plies: args.opening_plies,
        opening_period: args.opening_period,
        piece_values: args.piece_values.into(),
    };
    Ok(LakeImport::begin(into, &name, args.lake.replace, &options)?)
}

pub fn run(args: ImportArgs) -> Result<ExitStatus, Error> {
    let lake = match &args.lake.into {
        Some(_) if args.shard.is_some() => {
            return Err(Error::Usage(
                "--into takes a whole import: merge the shards with `pgnlake merge … --into`"
                    .to_owned(),
            ));
        }
        Some(lake) => Some(begin_lake_import(lake, &args)?),
        None => None,
    };
    let out = match (&lake, args.out) {
        (Some(lake), _) => lake.staging().to_path_buf(),
        (None, Some(out)) => {
            lake::check_not_lake(&out)?;
            out
        }
        (None, None) => return Err(Error::Usage("give --out DIR or --into LAKE".to_owned())),
    };
    let options = ImportOptions {
        inputs: args.inputs,
        out,
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
        repair: args.repair,
        compression: args.compression,
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
    if let Some(lake) = lake {
        lake.commit()?;
    }
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
