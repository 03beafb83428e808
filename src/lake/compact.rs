//! Lake, compaction: the statistics tables (the aggregates) of many imports
//! summed into one partition, `import=_compacted`, so that reading a lake
//! of hundreds of imports reads one file per statistics table, not hundreds.
//! Games, rejects and moves stay per import.
//!
//! A table's content never changes in compaction, only how its rows are
//! split into partitions: so each statistics table's folder is swapped
//! whole, in one step (`renameat2(RENAME_EXCHANGE)`), for a folder of hard
//! links to the partitions it keeps plus the new compacted one. A reader
//! (pgnlake, DuckDB, Spark) lists either folder, and the two add up alike.
//!
//! The compacted imports' own partitions are kept, hidden from readers, in
//! `LAKE/_compacted/<table>/import=NAME/`, with their names in
//! `LAKE/_compacted/imports.json`: `--remove` or `--replace` of a compacted
//! import first puts every compacted import's partitions back (the same
//! kind of swap), so the lake reads right at once; compacting again makes
//! it fast again.
//!
//! The swaps are journalled in `_staging/_layout/` (hard-linked folders,
//! then a synced `COMMIT`), under the lake's lock: a run killed before
//! `COMMIT` changed nothing, one killed after is finished by the next
//! command on the lake.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::game_ids::running_offsets;
use super::journal::{
    ARCHIVE_DIR, COMMIT_FILE, COMPACTED, COVERED_FILE, LAYOUT_DIR, LAYOUT_ID_FILE, STAGED_ID_FILE,
    aggregate_tables, commit_id_of, covered, finish_swap, partitions_in, remove_lock_file,
};
use super::lock::LakeLock;
use super::record;
use super::recovery::recover_held;
use super::{LakeError, PART_FILE, PARTITION_COLUMN, STAGING_DIR, io_error, partitions};
use crate::sink::lock::OutputLock;
use crate::sink::schema::Table;

/// Where a compaction writes its sums, in `_staging/`.
const WORK_DIR: &str = "_compact";
/// In the work folder: the inputs' hard links, laid out as in the lake.
const INPUTS_DIR: &str = "inputs";

/// A folder of hard links to the files of `from` (a partition folder).
fn link_dir(from: &Path, to: &Path) -> Result<(), LakeError> {
    if to.exists() {
        fs::remove_dir_all(to).map_err(io_error(to))?;
    }
    fs::create_dir_all(to).map_err(io_error(to))?;
    for entry in fs::read_dir(from).map_err(io_error(from))?.flatten() {
        if entry.path().is_file() {
            let link = to.join(entry.file_name());
            fs::hard_link(entry.path(), &link).map_err(io_error(&link))?;
        }
    }
    Ok(())
}

/// A table's partitions after a swap: (name, folder to link from).
type TablePlan = (&'static Table, Vec<(String, PathBuf)>);

/// Swaps the statistics tables' folders for folders of the partitions in
/// `plan`, and records `covered` as the compacted imports (see the
/// module's journal). The lake's lock is held.
fn swap_tables(lake: &Path, plan: Vec<TablePlan>, covered: &[String]) -> Result<(), LakeError> {
    let journal = lake.join(STAGING_DIR).join(LAYOUT_DIR);
    if journal.exists() {
        fs::remove_dir_all(&journal).map_err(io_error(&journal))?;
    }
    let id = record::new_id();
    for (table, parts) in plan {
        let dir = journal.join(table.name);
        fs::create_dir_all(&dir).map_err(io_error(&dir))?;
        for (name, from) in parts {
            link_dir(&from, &dir.join(format!("{PARTITION_COLUMN}={name}")))?;
        }
        record::write(&dir.join(LAYOUT_ID_FILE), &id)?;
    }
    let list = serde_json::to_string(covered).map_err(|e| LakeError::Io {
        path: journal.join(COVERED_FILE),
        source: std::io::Error::other(e),
    })?;
    record::write(&journal.join(COVERED_FILE), &list)?;
    record::write(&journal.join(STAGED_ID_FILE), &id)?;
    record::step();
    // The folder the list moves to is made before the record (a full disk
    // fails the swap before it), and what it commits is on disk.
    let archive = lake.join(ARCHIVE_DIR);
    fs::create_dir_all(&archive).map_err(io_error(&archive))?;
    record::sync_tree(&journal)?;
    record::write(&journal.join(COMMIT_FILE), &id)?;
    finish_swap(lake, &journal, &id).map_err(|e| LakeError::Unfinished {
        lake: lake.to_path_buf(),
        source: Box::new(e),
    })
}

/// Before `name` is removed or replaced: if it is compacted, every
/// compacted import's own partitions go back in place of the compacted
/// partition (the lake's lock is held). True: they did.
pub(super) fn uncover(lake: &Path, name: &str, _lock: &LakeLock) -> Result<bool, LakeError> {
    if !covered(lake)?.iter().any(|n| n == name) {
        return Ok(false);
    }
    let archive = lake.join(ARCHIVE_DIR);
    let mut plan = Vec::new();
    for table in aggregate_tables() {
        let mut parts: Vec<(String, PathBuf)> = partitions_in(&lake.join(table.name))?
            .into_iter()
            .filter(|(n, _)| n != COMPACTED)
            .collect();
        parts.extend(partitions_in(&archive.join(table.name))?);
        plan.push((table, parts));
    }
    swap_tables(lake, plan, &[])?;
    Ok(true)
}

/// A compaction under way: the inputs it sums (hard links, so that an
/// import removed meanwhile cannot vanish under it), and where it writes.
#[derive(Debug)]
pub struct Compaction {
    lake: PathBuf,
    work: PathBuf,
    /// `_staging/._compact.lock`: one compaction of a lake at a time.
    _lock: OutputLock,
    covered_before: Vec<String>,
    /// The imports compacted now (those not compacted before).
    imports: Vec<String>,
    /// Each import's partitions' commit ids when it was read.
    commits: Vec<Vec<Option<String>>>,
    /// Each statistics table's inputs (linked into the work folder), with
    /// the import each is of (`_compacted` for the compacted partition).
    inputs: BTreeMap<&'static str, Vec<(String, PathBuf)>>,
    /// The imports the compacted partition will cover, in the order their
    /// game ids follow each other there, each with the games read before
    /// it (see [`Compaction::game_offsets`]).
    offsets: Vec<(String, u64)>,
    /// The imports' `--opening-plies` (a lake's imports share it).
    opening_plies: usize,
}

impl Compaction {
    /// Takes a snapshot of the lake's statistics: the compacted partition
    /// and the partitions of the imports not yet compacted.
    pub fn begin(lake: &Path) -> Result<Compaction, LakeError> {
        let staging = lake.join(STAGING_DIR);
        fs::create_dir_all(&staging).map_err(io_error(&staging))?;
        let work = staging.join(WORK_DIR);
        let lock =
            OutputLock::for_file(&work).map_err(super::lock_refused(lake, "--compact".into()))?;
        // A signal before the swap removes the work folder: the lake is as
        // it was (see `crate::interrupt`).
        crate::interrupt::register(&work);
        let lake_lock = LakeLock::exclusive(lake)?;
        recover_held(lake, &lake_lock)?;
        if work.exists() {
            fs::remove_dir_all(&work).map_err(io_error(&work))?;
        }
        let covered_before = covered(lake)?;
        let mut imports = Vec::new();
        let mut commits = Vec::new();
        let all = partitions(lake)?;
        let opening_plies = all.first().map_or(0, |p| p.summary.opening_tree.plies);
        let games_read: BTreeMap<&str, u64> = all
            .iter()
            .map(|p| (p.name.as_str(), p.summary.games_read))
            .collect();
        for partition in &all {
            let dirs: Vec<PathBuf> = aggregate_tables()
                .map(|t| super::partition_dir(lake, t, &partition.name))
                .collect();
            if dirs.iter().any(|d| d.is_dir()) {
                commits.push(dirs.iter().map(|d| commit_id_of(d)).collect());
                imports.push(partition.name.clone());
            }
        }
        // Numbered as `install` will list them: those covered before, then
        // these (see `game_offsets`, which readers number them by).
        let numbered: Vec<String> = covered_before.iter().chain(&imports).cloned().collect();
        let offsets = running_offsets(&numbered, |name| {
            games_read
                .get(name)
                .copied()
                .ok_or_else(|| LakeError::CompactedUnlisted {
                    lake: lake.to_path_buf(),
                    name: name.to_owned(),
                })
        })?;
        let mut inputs = BTreeMap::new();
        for table in aggregate_tables() {
            let names = std::iter::once(COMPACTED).chain(imports.iter().map(String::as_str));
            let mut files = Vec::new();
            for name in names {
                for from in super::table_files(lake, table, name) {
                    // Named as in the lake (`inputs/TABLE/import=NAME/FILE`),
                    // so that an error reading it says which file is broken.
                    let link = work
                        .join(INPUTS_DIR)
                        .join(table.name)
                        .join(format!("{PARTITION_COLUMN}={name}"))
                        .join(file_name(&from)?);
                    if let Some(dir) = link.parent() {
                        fs::create_dir_all(dir).map_err(io_error(dir))?;
                    }
                    fs::hard_link(&from, &link).map_err(io_error(&link))?;
                    files.push((name.to_owned(), link));
                }
            }
            inputs.insert(table.name, files);
        }
        drop(lake_lock);
        // A kill from here to the swap's `COMMIT` leaves the lake as it was.
        record::step();
        Ok(Compaction {
            lake: lake.to_path_buf(),
            work,
            _lock: lock,
            covered_before,
            imports,
            commits,
            inputs,
            offsets,
            opening_plies,
        })
    }

    /// Ends a compaction that has nothing to do (or failed before its
    /// swap): its work folder goes, the lake is as it was.
    pub fn abandon(self) -> Result<(), LakeError> {
        if self.work.exists() {
            fs::remove_dir_all(&self.work).map_err(io_error(&self.work))?;
        }
        crate::interrupt::unregister(&self.work);
        remove_lock_file(&self.work);
        Ok(())
    }

    /// `message` with the inputs' hard links named as the lake's files
    /// they link to (`inputs/TABLE/import=NAME/FILE` → `LAKE/TABLE/…`).
    pub fn in_lake_terms(&self, message: &str) -> String {
        let links = self.work.join(INPUTS_DIR);
        message.replace(
            &links.display().to_string(),
            &self.lake.display().to_string(),
        )
    }

    /// The imports this compaction adds to the compacted partition.
    pub fn imports(&self) -> &[String] {
        &self.imports
    }

    /// Where the summed tables are written (`<table>.parquet`).
    pub fn dir(&self) -> &Path {
        &self.work
    }

    /// The files of `table` to sum.
    pub fn inputs(&self, table: &Table) -> Vec<PathBuf> {
        self.inputs_by_import(table)
            .into_iter()
            .map(|(_, file)| file)
            .collect()
    }

    /// The files of `table` to sum, each with its import's name
    /// (`_compacted` for the compacted partition's).
    pub fn inputs_by_import(&self, table: &Table) -> Vec<(String, PathBuf)> {
        // `new` linked every statistics table's inputs.
        self.inputs[table.name].clone()
    }

    /// Every import the compacted partition covers once this compaction is
    /// installed (those covered before first, in their order), with the
    /// games read by the imports before it: an import's game id plus its
    /// offset is the game's id in the compacted partition (`openings`'s
    /// `game_id`, `top_game_id`, `last_game_id`). The compacted partition's
    /// own ids are already so.
    pub fn game_offsets(&self) -> &[(String, u64)] {
        &self.offsets
    }

    /// The lake compacted.
    pub fn lake(&self) -> &Path {
        &self.lake
    }

    /// The imports' `--opening-plies`.
    pub fn opening_plies(&self) -> usize {
        self.opening_plies
    }

    /// Swaps the summed tables in: each statistics table's folder becomes
    /// the compacted partition plus the imports added since the snapshot.
    /// Refused if an import compacted here was removed or replaced since.
    pub fn install(self) -> Result<(), LakeError> {
        let lake = &self.lake.clone();
        let lock = LakeLock::exclusive(lake)?;
        recover_held(lake, &lock)?;
        self.check_unchanged()?;
        let archive = lake.join(ARCHIVE_DIR);
        let mut plan = Vec::new();
        for table in aggregate_tables() {
            let summed = self.work.join(table.file_name());
            let part = self.work.join("parts").join(table.name);
            fs::create_dir_all(&part).map_err(io_error(&part))?;
            fs::rename(&summed, part.join(PART_FILE)).map_err(io_error(&summed))?;
            let mut parts = vec![(COMPACTED.to_owned(), part)];
            for (name, dir) in partitions_in(&lake.join(table.name))? {
                if self.imports.contains(&name) {
                    let kept = archive.join(table.name).join(file_name(&dir)?);
                    link_dir(&dir, &kept)?;
                } else if name != COMPACTED {
                    parts.push((name, dir));
                }
            }
            plan.push((table, parts));
        }
        record::step();
        let mut covered = self.covered_before.clone();
        // In the order of the game ids in the compacted partition (see
        // `game_offsets`): appended, never sorted.
        covered.extend(self.imports.iter().cloned());
        swap_tables(lake, plan, &covered)?;
        fs::remove_dir_all(&self.work).map_err(io_error(&self.work))?;
        crate::interrupt::unregister(&self.work);
        remove_lock_file(&self.work);
        Ok(())
    }

    /// Has the lake changed under the compaction in a way that would make
    /// its sums wrong (a compacted import removed or replaced)?
    fn check_unchanged(&self) -> Result<(), LakeError> {
        let changed = |what: String| LakeError::Changed {
            lake: self.lake.clone(),
            what,
        };
        if covered(&self.lake)? != self.covered_before {
            return Err(changed("another compaction".into()));
        }
        for (name, commits) in self.imports.iter().zip(&self.commits) {
            let now: Vec<Option<String>> = aggregate_tables()
                .map(|t| commit_id_of(&super::partition_dir(&self.lake, t, name)))
                .collect();
            if &now != commits || !super::summary_path(&self.lake, name).is_file() {
                return Err(changed(format!("import {name} was removed or replaced")));
            }
        }
        Ok(())
    }
}

/// The name of a file or folder read from the lake (a folder's entry
/// always has one).
fn file_name(path: &Path) -> Result<&OsStr, LakeError> {
    path.file_name()
        .ok_or_else(|| io_error(path)(io::Error::other("a lake entry without a name")))
}
