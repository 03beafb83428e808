//! Reading an import back: where a table's rows are, in one import's
//! folder (`DIR/<table>.parquet`) or in a lake (one file per import, see
//! [`crate::lake`]), scanned as one lazy frame.

use std::path::{Path, PathBuf};

use polars::prelude::*;

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
            data._lock = lake::LakeLock::for_reading(dir).map(Arc::new);
            for partition in lake::partitions(dir)? {
                data.imports.push(partition.name);
                data.summaries.push(partition.summary);
            }
            return Ok(data);
        }
        match Summary::read(&dir.join(SUMMARY_FILE)) {
            Ok(summary) => data.summaries.push(summary),
            Err(e) if e.is_missing() => {}
            Err(e) => return Err(e),
        }
        Ok(data)
    }

    pub(crate) fn is_lake(&self) -> bool {
        self.lake
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
        scan_files(&self.dir, self.files(table), self.lake)
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
    let source = PlRefPath::try_from_path(path)?;
    let args = ScanArgsParquet {
        hive_options: HiveOptions {
            enabled: Some(false),
            ..HiveOptions::default()
        },
        ..ScanArgsParquet::default()
    };
    LazyFrame::scan_parquet(source, args)
}

/// The files of one table as one lazy frame; with `import_column`, they
/// are a lake's partitions (`DIR/import=NAME/part-0.parquet`), read as
/// one scan whose Hive partition column `import` (a string, never parsed
/// as a date or number) polars takes from the paths after `dir`.
pub(crate) fn scan_files(
    dir: &Path,
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
    let hive_schema =
        Schema::from_iter([Field::new(lake::PARTITION_COLUMN.into(), DataType::String)]);
    let args = ScanArgsParquet {
        hive_options: HiveOptions {
            enabled: Some(true),
            hive_start_idx: table_dir.as_os_str().len(),
            schema: Some(Arc::new(hive_schema)),
            try_parse_dates: false,
        },
        glob: false,
        ..ScanArgsParquet::default()
    };
    LazyFrame::scan_parquet_files(paths.into_iter().collect(), args)
        .map(Some)
        .map_err(|e| error(dir, &e))
}
