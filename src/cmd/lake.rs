//! `pgnlake lake`: lists a lake's imports, adds, removes or compacts them.

use crate::cli::LakeArgs;
use crate::cmd::ExitStatus;
use crate::error::Error;
use crate::lake::{self, Compatibility, LakeImport};
use crate::sink::lock::{LockError, OutputLock};
use crate::sink::schema;

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
        let all = imports(lake::covered(&args.lake)?.len());
        match compacted.imports.len() {
            0 => eprintln!("pgnlake: nothing to compact ({all} compacted before)"),
            n => eprintln!(
                "pgnlake: {} compacted, {all} in all; the compacted opening tree has {} rows",
                imports(n),
                compacted.rows[schema::openings::TABLE.file_name().as_str()]
            ),
        }
        return Ok(ExitStatus::Success);
    }
    // A lake command: what killed runs left is finished or cleared first
    // (a lake this user cannot write is listed as it is), then the lake is
    // read as every reader reads it.
    if let Err(e) = lake::recover(&args.lake)
        && !e.is_read_only()
    {
        return Err(e.into());
    }
    let _lock = lake::read_lock(&args.lake);
    let partitions = lake::listed(&args.lake)?;
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
    // No run may change the folder while it is checked and staged.
    let _dir_lock = lock_folder(dir)?;
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
    import.stage_folder(dir, &summary)?;
    import.commit()?;
    Ok(())
}

/// `dir`'s output lock, as an import writing it holds it; a folder this
/// user cannot write is not locked (no pgnlake run of theirs can write it).
fn lock_folder(dir: &std::path::Path) -> Result<Option<OutputLock>, Error> {
    if !dir.is_dir() {
        return Err(Error::Usage(format!(
            "{}: no such folder: not an import's folder",
            dir.display()
        )));
    }
    match OutputLock::for_folder(dir) {
        Ok(lock) => Ok(Some(lock)),
        Err(LockError::Io { source, .. })
            if matches!(
                source.kind(),
                std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
            ) =>
        {
            Ok(None)
        }
        Err(source) => Err(Error::Locked {
            path: dir.to_path_buf(),
            source,
        }),
    }
}

/// "1 import", "2 imports".
fn imports(n: usize) -> String {
    match n {
        1 => "1 import".to_owned(),
        n => format!("{n} imports"),
    }
}

/// Seconds since 1970 as `YYYY-MM-DDTHH:MM:SSZ`.
fn utc_time(seconds: u64) -> String {
    let days = i64::try_from(seconds / 86_400).unwrap_or(i64::MAX);
    let (year, month, day) = crate::model::calendar::civil_from_days(days);
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
