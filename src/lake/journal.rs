//! Lake, the journals' last steps: what a commit of an import and a swap of
//! the statistics tables' folders do once their `COMMIT` record is written,
//! each step skipped when done, so that the run that wrote the record and
//! the recovery of a killed one (see `recovery`) finish it the same way.
//! Also the names both journals are written under.

use std::fs;
use std::path::{Path, PathBuf};

use super::record;
use super::{LakeError, PARTITION_COLUMN, io_error, partition_dir, summary_path};
use crate::sink::schema::{self, Table};
use crate::sink::summary::SUMMARY_FILE;

/// The file that marks a staging folder as committing, holding its id.
pub(super) const COMMIT_FILE: &str = "COMMIT";

/// The id of the commit that wrote a partition folder.
pub(super) const COMMIT_ID_FILE: &str = "_commit";

/// Where a staging folder keeps its tables' partition folders.
pub(super) const PARTS_DIR: &str = "_parts";

/// In [`PARTS_DIR`]: the id the tables were staged under, written after
/// them and before `COMMIT`: what tells a commit that began from one that
/// did not when `COMMIT` itself is damaged.
pub(super) const STAGED_ID_FILE: &str = "_id";

/// Where a replacing commit puts the replaced import's tables that it
/// did not write, until its staging folder is deleted.
pub(super) const OLD_DIR: &str = "_old";

/// Suffix of a removed import's folder in `_staging/` until it is deleted.
pub(super) const REMOVED_SUFFIX: &str = ".removed";

/// The compacted partition's name (`import=_compacted`): no import can
/// have it, as import names do not start with `_`.
pub const COMPACTED: &str = "_compacted";

/// `LAKE/_compacted/`: the compacted imports' names and own partitions.
pub(super) const ARCHIVE_DIR: &str = "_compacted";

/// The compacted imports' names, a JSON list, in [`ARCHIVE_DIR`].
pub(super) const COVERED_FILE: &str = "imports.json";

/// The journal of a swap of table folders, in `_staging/`.
pub(super) const LAYOUT_DIR: &str = "_layout";

/// In a swapped-in table folder: the id of the swap that put it there.
pub(super) const LAYOUT_ID_FILE: &str = "_layout";

/// The id of the commit that wrote the partition folder `dir`.
pub(super) fn commit_id_of(dir: &Path) -> Option<String> {
    record::read_id(&dir.join(COMMIT_ID_FILE))
}

/// Does the commit `id` of import `name` (staged in `staging`) hold a
/// table: one of its staged parts, or of the partitions it already put in
/// place, carries the id? A record that names no table is no commit of
/// this import.
pub(super) fn commits_import(lake: &Path, name: &str, staging: &Path, id: &str) -> bool {
    schema::TABLES.into_iter().any(|table| {
        let part = staging.join(PARTS_DIR).join(table.name);
        [part, partition_dir(lake, table, name)]
            .iter()
            .any(|dir| commit_id_of(dir).as_deref() == Some(id))
    })
}

/// Where a commit whose `COMMIT` record is damaged stands, told by
/// `_parts/_id`, the id it staged its tables under (written after them,
/// before `COMMIT`): begun (`Some(id)`: a partition of the import, or its
/// summary, was moved, which happens only after a whole `COMMIT`), or
/// never begun (`None`: no `_id`, or nothing moved yet). With `_id`
/// damaged too, the state is refused rather than guessed at.
pub(super) fn begun_with_damaged_record(
    lake: &Path,
    name: &str,
    staging: &Path,
) -> Result<Option<String>, LakeError> {
    let staged = staging.join(PARTS_DIR).join(STAGED_ID_FILE);
    let Some(id) = record::read_id(&staged) else {
        return match staged.exists() {
            true => Err(LakeError::DamagedRecord {
                path: staging.join(COMMIT_FILE),
            }),
            false => Ok(None),
        };
    };
    let placed = schema::TABLES
        .into_iter()
        .any(|table| commit_id_of(&partition_dir(lake, table, name)).as_deref() == Some(&id));
    let summary_moved = !staging.join(SUMMARY_FILE).is_file();
    Ok((placed || summary_moved).then_some(id))
}

/// [`begun_with_damaged_record`] for a swap of table folders: its
/// journal's `_id` (written before its `COMMIT`) is the id of a table
/// folder already swapped in, or the compacted list has moved.
pub(super) fn swap_begun_with_damaged_record(
    lake: &Path,
    journal: &Path,
) -> Result<Option<String>, LakeError> {
    let staged = journal.join(STAGED_ID_FILE);
    let Some(id) = record::read_id(&staged) else {
        return match staged.exists() {
            true => Err(LakeError::DamagedRecord {
                path: journal.join(COMMIT_FILE),
            }),
            false => Ok(None),
        };
    };
    let swapped = aggregate_tables().any(|table| {
        record::read_id(&lake.join(table.name).join(LAYOUT_ID_FILE)).as_deref() == Some(&id)
    });
    let list_moved = !journal.join(COVERED_FILE).is_file();
    Ok((swapped || list_moved).then_some(id))
}

/// Steps 3 to 5 of the commit `id` of import `name` staged in `staging`;
/// each step is skipped when done, so this finishes a commit that a killed
/// run left half-way.
pub(super) fn finish_commit(
    lake: &Path,
    name: &str,
    staging: &Path,
    id: &str,
) -> Result<(), LakeError> {
    let parts = staging.join(PARTS_DIR);
    let old = staging.join(OLD_DIR);
    fs::create_dir_all(&old).map_err(io_error(&old))?;
    for table in schema::TABLES {
        let target = partition_dir(lake, table, name);
        let part = parts.join(table.name);
        let staged = commit_id_of(&part).as_deref() == Some(id);
        if staged {
            let table_dir = lake.join(table.name);
            fs::create_dir_all(&table_dir).map_err(io_error(&table_dir))?;
            put_in_place(&part, &target)?;
        } else if target.exists() && commit_id_of(&target).as_deref() != Some(id) {
            // The replaced import's table that this one did not write.
            fs::rename(&target, old.join(table.name)).map_err(io_error(&target))?;
            record::sync_parent(&target)?;
            record::step();
        }
    }
    let staged_summary = staging.join(SUMMARY_FILE);
    if staged_summary.is_file() {
        let summary = summary_path(lake, name);
        fs::rename(&staged_summary, &summary).map_err(io_error(&summary))?;
        record::sync_parent(&summary)?;
        record::step();
    }
    fs::remove_dir_all(staging).map_err(io_error(staging))
}

/// Moves every partition folder of import `name` into `trash`.
pub(super) fn move_partitions(lake: &Path, name: &str, trash: &Path) -> Result<(), LakeError> {
    for table in schema::TABLES {
        let dir = partition_dir(lake, table, name);
        if dir.exists() {
            let to = trash.join(table.name);
            if to.exists() {
                fs::remove_dir_all(&to).map_err(io_error(&to))?;
            }
            fs::rename(&dir, &to).map_err(io_error(&dir))?;
            record::step();
        }
    }
    Ok(())
}

/// The lock file of a staging folder, once its work is done (it is only
/// ever created again by the next run of that name).
pub(super) fn remove_lock_file(staging: &Path) {
    if let Some(name) = staging.file_name() {
        let mut file = std::ffi::OsString::from(".");
        file.push(name);
        file.push(".lock");
        let _ = fs::remove_file(staging.with_file_name(file));
    }
}

pub(super) fn aggregate_tables() -> impl Iterator<Item = &'static Table> {
    schema::TABLES.into_iter().filter(|t| t.is_aggregate())
}

/// The imports whose statistics are in the compacted partition.
pub fn covered(lake: &Path) -> Result<Vec<String>, LakeError> {
    read_covered(lake).map_err(|(path, source)| LakeError::Io { path, source })
}

/// The list of the imports the compacted partition covers: renamed into
/// place by each compaction (readers stamp it to see one).
pub fn covered_path(lake: &Path) -> PathBuf {
    lake.join(ARCHIVE_DIR).join(COVERED_FILE)
}

/// [`covered`], its error the file and the cause.
pub(super) fn read_covered(lake: &Path) -> Result<Vec<String>, (PathBuf, std::io::Error)> {
    let path = covered_path(lake);
    match fs::read_to_string(&path) {
        // A list written before records carried their check is bare JSON,
        // whole when it parses (JSON tells its own end).
        Ok(text) => serde_json::from_str(record::unsealed(&text).unwrap_or(&text))
            .map_err(|e| (path, std::io::Error::other(format!("damaged record: {e}")))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(source) => Err((path, source)),
    }
}

/// The partition folders of `dir` (a table's folder): (name, folder).
pub(super) fn partitions_in(dir: &Path) -> Result<Vec<(String, PathBuf)>, LakeError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(LakeError::Io {
                path: dir.to_path_buf(),
                source,
            });
        }
    };
    let prefix = format!("{PARTITION_COLUMN}=");
    let mut found: Vec<(String, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.strip_prefix(&prefix)?.to_owned();
            e.path().is_dir().then(|| (name, e.path()))
        })
        .collect();
    found.sort();
    Ok(found)
}

/// The swaps of the journal `id` not yet done, then the compacted
/// imports' list, then the partitions kept for imports no longer covered
/// are deleted, and the journal (holding the folders swapped out).
pub(super) fn finish_swap(lake: &Path, journal: &Path, id: &str) -> Result<(), LakeError> {
    for table in aggregate_tables() {
        let (staged, target) = (journal.join(table.name), lake.join(table.name));
        let done = record::read_id(&target.join(LAYOUT_ID_FILE)).as_deref() == Some(id);
        if done || !staged.is_dir() {
            continue;
        }
        put_in_place(&staged, &target)?;
    }
    let list = journal.join(COVERED_FILE);
    if list.is_file() {
        let archive = lake.join(ARCHIVE_DIR);
        fs::create_dir_all(&archive).map_err(io_error(&archive))?;
        let to = archive.join(COVERED_FILE);
        fs::rename(&list, &to).map_err(io_error(&to))?;
        record::sync_parent(&to)?;
        record::step();
    }
    drop_uncovered(lake)?;
    fs::remove_dir_all(journal).map_err(io_error(journal))
}

/// Deletes the kept partitions of imports that are not compacted (any
/// more, or not yet: a compaction killed before its `COMMIT`).
pub(super) fn drop_uncovered(lake: &Path) -> Result<(), LakeError> {
    let archive = lake.join(ARCHIVE_DIR);
    if !archive.is_dir() {
        return Ok(());
    }
    let covered = covered(lake)?;
    for table in aggregate_tables() {
        for (name, dir) in partitions_in(&archive.join(table.name))? {
            if !covered.contains(&name) {
                fs::remove_dir_all(&dir).map_err(io_error(&dir))?;
            }
        }
    }
    Ok(())
}

/// Moves the folder `from` to `to` in one step: swapped with what is at
/// `to` (which then sits at `from`, deleted with the journal), or renamed
/// there; synced, and a step of the change.
fn put_in_place(from: &Path, to: &Path) -> Result<(), LakeError> {
    if to.exists() {
        record::exchange(from, to).map_err(io_error(to))?;
    } else {
        fs::rename(from, to).map_err(io_error(to))?;
    }
    record::sync_parent(to)?;
    record::step();
    Ok(())
}
