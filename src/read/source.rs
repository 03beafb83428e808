//! Reading an import back: where a table's rows are, in one import's
//! folder (`DIR/<table>.parquet`) or in a lake (one file per import, see
//! [`crate::lake`]), scanned as one lazy frame.

use std::path::{Path, PathBuf};

use polars::prelude::*;

use crate::lake;
use crate::sink::schema::Table;
use crate::sink::summary::{SUMMARY_FILE, Summary, SummaryError};

/// An import's folder or a lake.
#[derive(Debug, Clone)]
pub(crate) struct Data {
    dir: PathBuf,
    lake: bool,
}

/// A table file that could not be scanned.
#[derive(Debug)]
pub(crate) struct ScanError {
    pub path: PathBuf,
    pub message: String,
}

impl Data {
    /// In a lake, a commit that a killed run left half-way is finished
    /// first (as SQLite's reader rolls a hot journal back), when the lake
    /// can be written: the tables read are then all of one state.
    pub(crate) fn new(dir: &Path) -> Data {
        let lake = lake::is_lake(dir);
        if lake {
            // A lake this user cannot write is read as it is.
            let _ = lake::recover(dir);
        }
        Data {
            dir: dir.to_path_buf(),
            lake,
        }
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
    /// import's folder. None when no import has the table.
    pub(crate) fn files(&self, table: &Table) -> Result<Vec<(String, PathBuf)>, SummaryError> {
        if !self.lake {
            let path = self.dir.join(table.file_name());
            return Ok(match path.is_file() {
                true => vec![(String::new(), path)],
                false => Vec::new(),
            });
        }
        Ok(lake::table_files(&self.dir)?
            .into_iter()
            .find(|(t, _)| t.name == table.name)
            .map(|(_, files)| files)
            .unwrap_or_default())
    }

    /// `table` as one lazy frame: in a lake the union of its imports' files
    /// with the import's name as column `import`. None: no file.
    pub(crate) fn scan(&self, table: &Table) -> Result<Option<LazyFrame>, ScanError> {
        let files = self.files(table).map_err(|e| ScanError {
            path: self.dir.clone(),
            message: e.to_string(),
        })?;
        scan_files(&self.dir, files, self.lake)
    }

    /// The summaries of the imports read (one for an import's folder, none
    /// when it has no summary.json).
    pub(crate) fn summaries(&self) -> Result<Vec<Summary>, SummaryError> {
        if self.lake {
            return Ok(lake::partitions(&self.dir)?
                .into_iter()
                .map(|p| p.summary)
                .collect());
        }
        match Summary::read(&self.dir.join(SUMMARY_FILE)) {
            Ok(summary) => Ok(vec![summary]),
            Err(e) if e.is_missing() => Ok(Vec::new()),
            Err(e) => Err(e),
        }
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
