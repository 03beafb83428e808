//! `pgnlake lake`: lists a lake's imports, adds, removes or compacts them.

use crate::cli::LakeArgs;
use crate::cmd::ExitStatus;
use crate::error::Error;
use crate::lake::{self, Compatibility, LakeImport};

pub fn run(args: LakeArgs) -> Result<ExitStatus, Error> {
    if let (Some(dir), Some(name)) = (&args.add, &args.name) {
        add(&args.lake, dir, name, args.replace)?;
        return Ok(ExitStatus::Success);
    }
    if !lake::is_lake(&args.lake) {
        return Err(Error::Usage(format!(
            "{}: not a lake (no {}/ folder; import --into creates one)",
            args.lake.display(),
            lake::IMPORTS_DIR
        )));
    }
    if let Some(name) = &args.remove {
        lake::check_name(name).map_err(Error::Usage)?;
        if !lake::remove(&args.lake, name)? {
            return Err(Error::Usage(format!(
                "{}: no import named {name}",
                args.lake.display()
            )));
        }
        return Ok(ExitStatus::Success);
    }
    if args.compact {
        let compacted = crate::import::run_compact(&args.lake, args.compression)?;
        let all = lake::covered(&args.lake)?.len();
        match compacted.imports.len() {
            0 => eprintln!("pgnlake: nothing to compact ({all} imports compacted before)"),
            n => eprintln!(
                "pgnlake: {n} imports compacted, {all} in all; the compacted opening tree has {} rows",
                compacted.rows.get("openings.parquet").copied().unwrap_or(0)
            ),
        }
        return Ok(ExitStatus::Success);
    }
    lake::recover(&args.lake)?;
    let partitions = lake::partitions(&args.lake)?;
    let covered = lake::covered(&args.lake)?;
    let mut out = String::from(
        "import\tinputs\tgames\taccepted\trejected\tbytes\timported\tversion\topening_plies\topening_period\tmoves\tcompacted\n",
    );
    for p in &partitions {
        let s = &p.summary;
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
            p.name,
            s.inputs.len(),
            s.games_read,
            s.accepted,
            s.rejected,
            lake::partition_bytes(&args.lake, &p.name),
            p.committed.map_or_else(|| "?".to_owned(), utc_time),
            s.version,
            s.opening_tree.plies,
            lake::period_name(s.opening_tree.period),
            s.options.moves,
            covered.contains(&p.name),
        ));
    }
    crate::cmd::print_stdout(&out)?;
    Ok(ExitStatus::Success)
}

/// `--add DIR --name NAME`: a finished import's folder committed into the
/// lake (created if missing) as an import would be.
fn add(
    lake: &std::path::Path,
    dir: &std::path::Path,
    name: &str,
    replace: bool,
) -> Result<(), Error> {
    lake::check_name(name).map_err(Error::Usage)?;
    let summary = crate::import::read_folder_summary(dir)?;
    let games = &crate::sink::schema::games::TABLE;
    let has_games = dir.join(games.file_name()).is_file()
        || !lake::part_files(&dir.join(games.name)).is_empty();
    if !has_games {
        return Err(Error::Usage(format!(
            "{}: no games table (games.parquet or games/): not an import's folder",
            dir.display()
        )));
    }
    if summary.shard.is_some() {
        return Err(Error::Usage(format!(
            "{}: one shard of an import; merge the shards (merge --into LAKE) instead",
            dir.display()
        )));
    }
    let import = LakeImport::begin(lake, name, replace, &Compatibility::of(&summary))?;
    import.stage_folder(dir)?;
    import.commit()?;
    Ok(())
}

/// Seconds since 1970 as `YYYY-MM-DDTHH:MM:SSZ`.
fn utc_time(seconds: u64) -> String {
    let days = i64::try_from(seconds / 86_400).unwrap_or(i64::MAX);
    let (year, month, day) = crate::pgn::tags::civil_from_days(days);
    let in_day = seconds % 86_400;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        in_day / 3600,
        in_day / 60 % 60,
        in_day % 60
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn utc_times_are_iso_8601() {
        assert_eq!(super::utc_time(0), "1970-01-01T00:00:00Z");
        assert_eq!(super::utc_time(1_780_000_000), "2026-05-28T20:26:40Z");
    }
}
