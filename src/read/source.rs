//! Reading an import back: where a table's rows are, in one import's
//! folder (`DIR/<table>.parquet`) or in a lake (one file per import, see
//! [`crate::lake`]), scanned as one lazy frame.

use std::path::{Path, PathBuf};

use polars::prelude::*;

use crate::error::ExploreError;
use crate::lake;
use crate::sink::schema::Table;
use crate::sink::summary::{SUMMARY_FILE, Summary, SummaryError};

/// An import's folder or a lake, with its summaries read once.
#[derive(Debug, Clone)]
pub(crate) struct Data {
    dir: PathBuf,
    lake: bool,
    /// What the summaries say, shared with [`DataCache`] while the folder
    /// stays as it was.
    listing: Arc<Listing>,
    /// A lake's lock, shared, while the data is read: no commit, removal
    /// or compaction changes the lake's folders under the reader.
    _lock: Option<Arc<lake::LakeLock>>,
}

/// The summaries of an import's folder or a lake.
#[derive(Debug, Default)]
struct Listing {
    /// A lake's committed imports, by name (empty for a folder).
    imports: Vec<String>,
    /// One per import read (none for a folder without summary.json).
    summaries: Vec<Summary>,
    /// The imports a lake's compacted partition covers, in the order it
    /// numbers their games (empty for a folder).
    compacted: Vec<String>,
}

impl Listing {
    /// Reads the summaries of `dir` (a lake's, its lock held).
    fn read(dir: &Path, is_lake: bool) -> Result<Listing, SummaryError> {
        let mut listing = Listing::default();
        if is_lake {
            for partition in lake::partitions(dir)? {
                listing.imports.push(partition.name);
                listing.summaries.push(partition.summary);
            }
            listing.compacted = lake::covered(dir).map_err(|e| match e {
                lake::LakeError::Io { path, source } => SummaryError::Io {
                    path: path.display().to_string(),
                    source,
                },
                other => SummaryError::Io {
                    path: dir.display().to_string(),
                    source: std::io::Error::other(other.to_string()),
                },
            })?;
            return Ok(listing);
        }
        listing.summaries.extend(folder_summary(dir)?);
        Ok(listing)
    }
}

/// A table file that could not be scanned.
#[derive(Debug)]
pub(crate) struct ScanError {
    pub path: PathBuf,
    pub message: String,
}

/// As the explorer reports it: the file and what is wrong with it.
impl From<ScanError> for ExploreError {
    fn from(e: ScanError) -> ExploreError {
        ExploreError::Table {
            path: e.path,
            message: e.message,
        }
    }
}

/// The summary of an import's folder: read and checked; none for a
/// folder without pgnlake's tables; refused for tables without a summary
/// (an import is finished when its summary is in place, see
/// `import::run::commit_folder`).
pub(crate) fn folder_summary(dir: &Path) -> Result<Option<Summary>, SummaryError> {
    match Summary::read(&dir.join(SUMMARY_FILE)) {
        Ok(summary) => Ok(Some(summary)),
        Err(e) if e.is_missing() => {
            let tables = crate::sink::schema::TABLES
                .into_iter()
                .any(|table| dir.join(table.file_name()).exists());
            match tables {
                true => Err(SummaryError::Unfinished {
                    path: dir.display().to_string(),
                }),
                false => Ok(None),
            }
        }
        Err(e) => Err(e),
    }
}

impl Data {
    /// Reads the summaries. In a lake, a commit that a killed run left
    /// half-way is finished first (as SQLite's reader rolls a hot journal
    /// back), when the lake can be written and no one else holds its lock:
    /// the tables read are then all of one state.
    pub(crate) fn open(dir: &Path) -> Result<Data, SummaryError> {
        let lake = lake::is_lake(dir);
        let lock = lake.then(|| lake::read_lock(dir).map(Arc::new)).flatten();
        Ok(Data {
            dir: dir.to_path_buf(),
            lake,
            listing: Arc::new(Listing::read(dir, lake)?),
            _lock: lock,
        })
    }

    pub(crate) fn is_lake(&self) -> bool {
        self.lake
    }

    /// The import's folder or the lake.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// A lake's committed imports by name, each with its summary (none
    /// for a folder).
    pub(crate) fn imports(&self) -> impl Iterator<Item = (&str, &Summary)> {
        let listing = &*self.listing;
        listing
            .imports
            .iter()
            .map(String::as_str)
            .zip(&listing.summaries)
    }

    /// The imports a lake's compacted partition covers, in the order it
    /// numbers their games (`_compacted/covered.json`; none for a folder).
    pub(crate) fn compacted(&self) -> &[String] {
        &self.listing.compacted
    }

    /// Where `table` would be in an import's folder (for messages).
    pub(crate) fn table_path(&self, table: &Table) -> PathBuf {
        match self.lake {
            true => self.dir.join(table.name),
            false => self.dir.join(table.file_name()),
        }
    }

    /// The files of `table`: (import name, file); the name is empty in an
    /// import's folder. Empty when no import has the table.
    pub(crate) fn files(&self, table: &Table) -> lake::ImportFiles {
        if self.lake {
            return lake::import_files(&self.dir, table, &self.listing.imports);
        }
        let path = self.dir.join(table.file_name());
        match path.is_file() {
            true => vec![(String::new(), path)],
            false => Vec::new(),
        }
    }

    /// `table` as one lazy frame: in a lake the union of its imports' files
    /// with the import's name as column `import`. None: no file.
    pub(crate) fn scan(&self, table: &Table) -> Result<Option<LazyFrame>, ScanError> {
        scan_files(&self.dir, table, self.files(table), self.lake)
    }

    /// The summaries of the imports read.
    pub(crate) fn summaries(&self) -> &[Summary] {
        &self.listing.summaries
    }
}

/// The summaries of the folders a long-running reader (`pgnlake serve`)
/// reads, kept while each folder stays as it was: reading and checking a
/// lake's summaries took 0.6 ms a request on a lake of four imports.
///
/// A folder is as it was while its [`Stamp`] is: the identity (inode,
/// size, change and modification times) of each summary a lake lists in
/// `_imports/` and of its compacted imports' list, or of an import
/// folder's `summary.json`. Every change a reader could see renames one of
/// them into place (a commit or `--replace` its summary last, a removal
/// takes it out, a compaction its list), as a new file of its own inode:
/// the next [`DataCache::get`] sees it, however soon after, as the stamp
/// is taken under the lake's read lock, which every change holds
/// exclusively.
#[derive(Debug, Default)]
pub(crate) struct DataCache {
    kept: std::sync::Mutex<std::collections::HashMap<PathBuf, (Stamp, Arc<Listing>)>>,
}

impl DataCache {
    /// The data in `dir` as [`Data::open`] reads it (a lake's read lock
    /// taken, held by the `Data` returned), its summaries kept from the
    /// last call while the folder is as it was then.
    pub(crate) fn get(&self, dir: &Path) -> Result<Arc<Data>, SummaryError> {
        let lake = lake::is_lake(dir);
        // The lock first: the folder cannot change between the stamp and
        // the reading (a lake's; an import's folder has no lock, and is
        // stamped again after it is read).
        let lock = lake.then(|| lake::read_lock(dir).map(Arc::new)).flatten();
        let data = |listing| Data {
            dir: dir.to_path_buf(),
            lake,
            listing,
            _lock: lock.clone(),
        };
        let stamp = Stamp::of(dir, lake);
        if let Some(stamp) = &stamp
            && let Some((kept, listing)) = self.kept().get(dir)
            && kept == stamp
        {
            return Ok(Arc::new(data(listing.clone())));
        }
        let listing = Arc::new(Listing::read(dir, lake)?);
        match stamp {
            Some(stamp) if Stamp::of(dir, lake).as_ref() == Some(&stamp) => {
                self.kept()
                    .insert(dir.to_path_buf(), (stamp, listing.clone()));
            }
            // Changing, or not stamped: read anew next time.
            _ => {
                self.kept().remove(dir);
            }
        }
        Ok(Arc::new(data(listing)))
    }

    fn kept(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<PathBuf, (Stamp, Arc<Listing>)>> {
        // A reader that panicked left the map whole: it only inserts and
        // removes.
        self.kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// What changes when a reader could see a folder change: the identities
/// of the files its summaries come from, by name.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp(Vec<(std::ffi::OsString, Option<FileStamp>)>);

/// A file's identity: a file renamed into place is another inode, and a
/// file rewritten has other times or size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileStamp {
    inode: u64,
    len: u64,
    modified_ns: i128,
    changed_ns: i128,
}

impl FileStamp {
    fn of(path: &Path) -> Option<FileStamp> {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(path).ok()?;
        let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
        Some(FileStamp {
            inode: meta.ino(),
            len: meta.len(),
            modified_ns: ns(meta.mtime(), meta.mtime_nsec()),
            changed_ns: ns(meta.ctime(), meta.ctime_nsec()),
        })
    }
}

impl Stamp {
    /// `dir`'s stamp; None when it cannot be taken (a folder that cannot
    /// be listed, an import's folder without its summary): not kept.
    fn of(dir: &Path, is_lake: bool) -> Option<Stamp> {
        if !is_lake {
            let summary = FileStamp::of(&dir.join(SUMMARY_FILE))?;
            return Some(Stamp(vec![(SUMMARY_FILE.into(), Some(summary))]));
        }
        let imports = dir.join(lake::IMPORTS_DIR);
        let mut files: Vec<(std::ffi::OsString, Option<FileStamp>)> = std::fs::read_dir(&imports)
            .ok()?
            .map(|entry| {
                let entry = entry.ok()?;
                Some((entry.file_name(), FileStamp::of(&entry.path())))
            })
            .collect::<Option<_>>()?;
        files.sort_by(|a, b| a.0.cmp(&b.0));
        let covered = lake::covered_path(dir);
        files.push((covered.as_os_str().to_owned(), FileStamp::of(&covered)));
        Some(Stamp(files))
    }
}

/// One Parquet file as a lazy frame. polars would read `key=value`
/// folders on the path as Hive partition columns (and guess their types):
/// a lake's `import=NAME` is added by pgnlake itself, so no path segment
/// ever becomes a column.
pub(crate) fn scan_file(path: &Path) -> PolarsResult<LazyFrame> {
    LazyFrame::scan_parquet(PlRefPath::try_from_path(path)?, without_hive())
}

/// What a query's `read_parquet('PATH')` reads: a Parquet file, a folder
/// of them or a glob's, and, as in [`scan_file`], no column from the path.
pub(crate) fn scan_file_or_glob(path: &str) -> PolarsResult<LazyFrame> {
    LazyFrame::scan_parquet(PlRefPath::new(path), without_hive())
}

fn without_hive() -> ScanArgsParquet {
    ScanArgsParquet {
        hive_options: HiveOptions {
            enabled: Some(false),
            ..HiveOptions::default()
        },
        ..ScanArgsParquet::default()
    }
}

/// The files of `table` as one lazy frame; with `import_column`, they
/// are a lake's partitions (`DIR/import=NAME/part-0.parquet`), read as
/// one scan whose column `import` (a string, never parsed as a date or
/// number) polars takes from the paths as a Hive partition column.
///
/// polars reads `key=value` folders anywhere on a file's path as Hive
/// columns (it starts at the path's first byte, whatever
/// `hive_start_idx` says), so that such folders above the table's (a
/// lake under `year=2024/`) are named in the Hive schema too, then
/// dropped: no column comes from them. Where a folder's key is one of the
/// table's columns (or `import`, or twice on the path) its value would
/// replace the column's: then the files are read without Hive columns
/// and `import` is taken from each file's path (slower: a string per
/// row).
pub(crate) fn scan_files(
    dir: &Path,
    table: &Table,
    files: Vec<(String, PathBuf)>,
    import_column: bool,
) -> Result<Option<LazyFrame>, ScanError> {
    let error = |path: &Path, e: &dyn std::fmt::Display| ScanError {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    if !import_column {
        return match files.as_slice() {
            [] => Ok(None),
            [(_, path)] => scan_file(path).map(Some).map_err(|e| error(path, &e)),
            _ => Err(error(dir, &"several files for one table outside a lake")),
        };
    }
    let Some((_, first)) = files.first() else {
        return Ok(None);
    };
    // The table's folder, before `import=NAME/`.
    let table_dir = first.parent().and_then(Path::parent).unwrap_or(dir);
    let paths = files
        .iter()
        .map(|(_, path)| PlRefPath::try_from_path(path))
        .collect::<PolarsResult<Vec<_>>>()
        .map_err(|e| error(dir, &e))?;
    let above = hive_keys(table_dir);
    if above.is_empty() {
        return scan_hive(paths, &[]).map(Some).map_err(|e| error(dir, &e));
    }
    let is_column =
        |key: &String| key == lake::PARTITION_COLUMN || table.columns.iter().any(|c| c.name == key);
    let repeated = (1..above.len()).any(|i| above[..i].contains(&above[i]));
    let frame = match above.iter().any(is_column) || repeated {
        true => scan_naming_imports_by_path(paths, table_dir),
        false => scan_hive(paths, &above),
    };
    // The table's columns, then `import`: none from the folders above.
    let columns: Vec<Expr> = table
        .columns
        .iter()
        .map(|c| col(c.name))
        .chain([col(lake::PARTITION_COLUMN)])
        .collect();
    frame
        .map(|frame| Some(frame.select(columns)))
        .map_err(|e| error(dir, &e))
}

/// The keys of the folders on `path` that polars reads as Hive
/// partitions (`key=value`: one `=`, no `*` in the value).
fn hive_keys(path: &Path) -> Vec<String> {
    path.components()
        .filter_map(|c| match c {
            std::path::Component::Normal(name) => name.to_str(),
            _ => None,
        })
        .filter_map(|name| {
            let (key, value) = name.split_once('=')?;
            (!value.contains(['=', '*'])).then(|| key.to_owned())
        })
        .collect()
}

/// A lake's files as one Hive scan: `import`, and the `keys` of the
/// folders above the table's, as string columns.
fn scan_hive(paths: Vec<PlRefPath>, keys: &[String]) -> PolarsResult<LazyFrame> {
    let hive_schema = [lake::PARTITION_COLUMN]
        .into_iter()
        .chain(keys.iter().map(String::as_str))
        .map(|key| Field::new(key.into(), DataType::String));
    let args = ScanArgsParquet {
        hive_options: HiveOptions {
            enabled: Some(true),
            hive_start_idx: 0,
            schema: Some(Arc::new(Schema::from_iter(hive_schema))),
            try_parse_dates: false,
        },
        glob: false,
        ..ScanArgsParquet::default()
    };
    LazyFrame::scan_parquet_files(paths.into_iter().collect(), args)
}

/// A lake's files as one scan without Hive columns, `import` the name in
/// each file's path after `TABLE_DIR/import=`.
fn scan_naming_imports_by_path(paths: Vec<PlRefPath>, table_dir: &Path) -> PolarsResult<LazyFrame> {
    const FILE: &str = "__pgnlake_file";
    let prefix = table_dir.join(format!("{}=", lake::PARTITION_COLUMN));
    let args = ScanArgsParquet {
        include_file_paths: Some(FILE.into()),
        glob: false,
        ..without_hive()
    };
    let name = col(FILE)
        .str()
        .strip_prefix(lit(prefix.to_string_lossy().into_owned()))
        .str()
        .extract(lit(r"^[^/\\]*"), 0);
    Ok(
        LazyFrame::scan_parquet_files(paths.into_iter().collect(), args)?
            .with_column(name.alias(lake::PARTITION_COLUMN)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The summary of an import of no games, `note` in its options.
    fn summary(note: &str) -> String {
        serde_json::to_string(&Summary::of_nothing(note, Vec::new()))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// `text` put at `to` as a commit puts a summary: written beside it,
    /// then renamed into place.
    fn commit(to: &Path, text: &str) {
        let staged = to.with_extension("staged");
        std::fs::write(&staged, text).unwrap_or_else(|e| panic!("{e}"));
        std::fs::rename(&staged, to).unwrap_or_else(|e| panic!("{e}"));
    }

    fn names(data: &Data) -> Vec<(String, String)> {
        data.imports()
            .map(|(name, s)| (name.to_owned(), s.options.out.clone()))
            .collect()
    }

    #[test]
    fn a_lakes_summaries_are_kept_until_a_commit_changes_them() {
        let lake = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let imports = lake.path().join(lake::IMPORTS_DIR);
        std::fs::create_dir_all(&imports).unwrap_or_else(|e| panic!("{e}"));
        commit(&imports.join("a.json"), &summary("a1"));
        let cache = DataCache::default();
        let get = || cache.get(lake.path()).unwrap_or_else(|e| panic!("{e}"));
        let first = get();
        assert!(first.is_lake());
        assert_eq!(names(&first), [("a".into(), "a1".into())]);
        // Unchanged: the summaries read before.
        let again = get();
        assert!(Arc::ptr_eq(&first.listing, &again.listing));
        // A commit between two reads, at once: seen by the next.
        commit(&imports.join("b.json"), &summary("b1"));
        assert_eq!(
            names(&get()),
            [("a".into(), "a1".into()), ("b".into(), "b1".into())]
        );
        // A replace (a summary of the same size renamed over the other).
        commit(&imports.join("a.json"), &summary("a2"));
        assert_eq!(
            names(&get()),
            [("a".into(), "a2".into()), ("b".into(), "b1".into())]
        );
        // A removal, and a compaction's list of the imports it covers.
        std::fs::remove_file(imports.join("b.json")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(names(&get()), [("a".into(), "a2".into())]);
        assert!(get().compacted().is_empty());
        let covered = lake::covered_path(lake.path());
        std::fs::create_dir_all(covered.parent().unwrap_or(lake.path()))
            .unwrap_or_else(|e| panic!("{e}"));
        commit(&covered, r#"["a"]"#);
        assert_eq!(get().compacted(), ["a"]);
        // As Data::open reads it.
        let opened = Data::open(lake.path()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(names(&opened), names(&get()));
    }

    #[test]
    fn an_import_folders_summary_is_kept_until_it_is_replaced() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let cache = DataCache::default();
        let out = |cache: &DataCache| {
            let data = cache.get(dir.path()).unwrap_or_else(|e| panic!("{e}"));
            assert!(!data.is_lake());
            let outs: Vec<String> = data
                .summaries()
                .iter()
                .map(|s| s.options.out.clone())
                .collect();
            outs
        };
        // A folder without tables nor summary: nothing to read.
        assert!(out(&cache).is_empty());
        commit(&dir.path().join(SUMMARY_FILE), &summary("one"));
        assert_eq!(out(&cache), ["one"]);
        commit(&dir.path().join(SUMMARY_FILE), &summary("two"));
        assert_eq!(out(&cache), ["two"]);
        // A damaged summary is an error each time, never kept.
        commit(&dir.path().join(SUMMARY_FILE), "{");
        assert!(cache.get(dir.path()).is_err());
        assert!(cache.get(dir.path()).is_err());
    }

    #[test]
    fn hive_keys_are_the_folders_polars_reads_as_partitions() {
        let path = Path::new("/data/year=2024/a=b=c/glob=x*/=v/month=05/./lake/games");
        assert_eq!(hive_keys(path), ["year", "", "month"]);
        assert!(hive_keys(Path::new("/tmp/lake/games")).is_empty());
    }
}
