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
    /// A lake's committed imports, by name (empty for a folder).
    imports: Vec<String>,
    /// One per import read (none for a folder without summary.json).
    summaries: Vec<Summary>,
    /// A lake's lock, shared, while the data is read: no commit, removal
    /// or compaction changes the lake's folders under the reader.
    _lock: Option<Arc<lake::LakeLock>>,
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
        let mut data = Data {
            dir: dir.to_path_buf(),
            lake: lake::is_lake(dir),
            imports: Vec::new(),
            summaries: Vec::new(),
            _lock: None,
        };
        if data.lake {
            data._lock = lake::read_lock(dir).map(Arc::new);
            for partition in lake::partitions(dir)? {
                data.imports.push(partition.name);
                data.summaries.push(partition.summary);
            }
            return Ok(data);
        }
        data.summaries.extend(folder_summary(dir)?);
        Ok(data)
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
        self.imports.iter().map(String::as_str).zip(&self.summaries)
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
            return lake::import_files(&self.dir, table, &self.imports);
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
        &self.summaries
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

    #[test]
    fn hive_keys_are_the_folders_polars_reads_as_partitions() {
        let path = Path::new("/data/year=2024/a=b=c/glob=x*/=v/month=05/./lake/games");
        assert_eq!(hive_keys(path), ["year", "", "month"]);
        assert!(hive_keys(Path::new("/tmp/lake/games")).is_empty());
    }
}
