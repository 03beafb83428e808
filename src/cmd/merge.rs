//! `pgnlake merge`: puts the tables of an import's shards together.

use crate::cli::MergeArgs;
use crate::cmd::ExitStatus;
use crate::error::Error;
use crate::import::{MergeOptions, run_merge};
use crate::lake::{self, Compatibility, LakeImport};
use crate::sink::summary::{SUMMARY_FILE, Summary};

pub fn run(args: MergeArgs) -> Result<ExitStatus, Error> {
    let lake = match (&args.lake.into, &args.lake.name) {
        (Some(lake), Some(name)) => Some(begin_lake_merge(lake, name, &args)?),
        (Some(_), None) => {
            return Err(Error::Usage(
                "merge --into needs --name NAME (shards have no file name to take it from)"
                    .to_owned(),
            ));
        }
        (None, _) => None,
    };
    let out = match (&lake, args.out) {
        (Some(lake), _) => lake.staging().to_path_buf(),
        (None, Some(out)) => {
            lake::check_not_lake(&out)?;
            out
        }
        (None, None) => return Err(Error::Usage("give --out DIR or --into LAKE".to_owned())),
    };
    let options = MergeOptions {
        dirs: args.shards,
        out,
        opening_min_games: args.opening_min_games,
        compression: args.compression,
    };
    let summary = run_merge(&options)?;
    let Some(merged_shards) = summary.merged_shards else {
        return Err(Error::Usage(
            "merge: the merged summary names no merged_shards".to_owned(),
        ));
    };
    if let Some(lake) = lake {
        lake.commit()?;
    }
    if !args.quiet {
        eprintln!(
            "merged {} shards: games read {} = accepted {} + rejected {}{}",
            merged_shards,
            summary.games_read,
            summary.accepted,
            summary.rejected,
            if summary.balanced { "" } else { "  (MISMATCH)" }
        );
    }
    Ok(ExitStatus::Success)
}

/// Checks the name, and the options the shards were imported with (from
/// the first shard's summary; `merge` checks that the others agree),
/// against the lake.
fn begin_lake_merge(
    into: &std::path::Path,
    name: &str,
    args: &MergeArgs,
) -> Result<LakeImport, Error> {
    lake::check_name(name).map_err(Error::Usage)?;
    let first = args
        .shards
        .first()
        .ok_or_else(|| Error::Usage("give the shards' folders".to_owned()))?;
    let summary = Summary::read(&first.join(SUMMARY_FILE))?;
    let options = Compatibility::of(&summary);
    Ok(LakeImport::begin(into, name, args.lake.replace, &options)?)
}
