//! Lake, checking an import's folder before it is committed (`lake --add`):
//! a lake's readers trust what is committed, so a folder with a table
//! missing, damaged, of another schema or of other row counts than its
//! summary says is refused here, naming the file, rather than found
//! broken by every reader later. Also the one check of a summary's
//! `tables` against the tables on disk (`listing_mismatch`), which `merge`
//! and the lake's readers share.

use std::ffi::OsString;
use std::fs::File;
use std::path::{Path, PathBuf};

use polars::prelude::{DataType, ParquetReader, SerReader};

use super::LakeError;
use crate::sink::schema::{self, Table};
use crate::sink::staged::digest_files;
use crate::sink::summary::Summary;

/// The files of `table` in an import's folder, with their names in the
/// partition: `TABLE.parquet` as `part-0.parquet` (pgnlake's import), or
/// the part files of a folder `TABLE/` (the Spark job's output).
pub(super) fn folder_files(dir: &Path, table: &Table) -> Vec<(PathBuf, OsString)> {
    let file = dir.join(table.file_name());
    if file.is_file() {
        return vec![(file, super::PART_FILE.into())];
    }
    super::part_files(&dir.join(table.name))
        .into_iter()
        .filter_map(|p| Some((p.clone(), p.file_name()?.to_owned())))
        .collect()
}

/// How an import's tables on disk and its summary's `tables` disagree.
#[derive(Debug, Clone)]
pub enum Listing {
    /// `tables` lists the table, and no file of it is there.
    Missing { table: &'static Table },
    /// A file of the table is there, and `tables` does not list it: its
    /// rows would be read by outside engines (a Hive scan takes every
    /// file) but neither counted nor summed by pgnlake.
    Unlisted {
        table: &'static Table,
        file: PathBuf,
    },
}

impl Listing {
    /// What is wrong, naming the field and the table (for a summary
    /// refused as inconsistent).
    pub fn describe(&self) -> String {
        match self {
            Listing::Missing { table } => format!(
                "tables lists {}, and no file of it is there",
                table.file_name()
            ),
            Listing::Unlisted { table, file } => format!(
                "tables does not list {}, but {} is there",
                table.file_name(),
                file.display()
            ),
        }
    }
}

/// The one check of a summary's `tables` against the tables on disk, for
/// an import's folder (`merge`, `lake --add`: [`check_folder_listing`]) and
/// a lake's partitions (every reader of a lake): `files` gives a table's
/// data files holding this import's rows. The first table, in the schema's
/// order, that the summary lists without files or has files of unlisted.
pub fn listing_mismatch(
    summary: &Summary,
    files: impl Fn(&'static Table) -> Vec<PathBuf>,
) -> Option<Listing> {
    schema::TABLES.into_iter().find_map(|table| {
        let listed = summary.tables.contains_key(&table.file_name());
        let mut found = files(table).into_iter();
        match (listed, found.next()) {
            (true, None) => Some(Listing::Missing { table }),
            (false, Some(file)) => Some(Listing::Unlisted { table, file }),
            _ => None,
        }
    })
}

/// [`listing_mismatch`] for an import's folder `dir` (`TABLE.parquet`
/// files, or `TABLE/` folders of part files).
pub fn check_folder_listing(dir: &Path, summary: &Summary) -> Option<Listing> {
    listing_mismatch(summary, |table| {
        folder_files(dir, table)
            .into_iter()
            .map(|(path, _)| path)
            .collect()
    })
}

/// Checks the import's folder `dir` against its `summary`: every table the
/// summary lists is there and no other, every file reads as Parquet with
/// the table's columns, and each table's rows are the summary's count.
pub(super) fn check_folder(dir: &Path, summary: &Summary) -> Result<(), LakeError> {
    let damaged = |path: PathBuf, what: String| LakeError::Damaged { path, what };
    match check_folder_listing(dir, summary) {
        Some(Listing::Unlisted { file, .. }) => {
            return Err(damaged(
                file,
                "a table summary.json does not list (left by another run?)".into(),
            ));
        }
        Some(Listing::Missing { table }) => {
            let file = table.file_name();
            let rows = summary.tables.get(&file).copied().unwrap_or_default();
            return Err(damaged(
                dir.join(file),
                format!("missing (summary.json lists {rows} rows of {})", table.name),
            ));
        }
        None => {}
    }
    for table in schema::TABLES {
        let files = folder_files(dir, table);
        // Listed exactly when it has files (checked above).
        let Some(rows) = summary.tables.get(&table.file_name()).copied() else {
            continue;
        };
        let mut found = 0;
        for (path, _) in &files {
            found += check_file(path, table)?;
        }
        if found != rows {
            let path = match files.as_slice() {
                [(path, _)] => path.clone(),
                _ => dir.join(table.name),
            };
            return Err(damaged(
                path,
                format!("{found} rows, summary.json says {rows}"),
            ));
        }
        check_digest(dir, table, &files, summary)?;
    }
    Ok(())
}

/// Checks that `files` (a table's, in order) are the content `summary`
/// recorded: row counts alone would take another import's file of the
/// same length, or a link to it.
fn check_digest(
    dir: &Path,
    table: &Table,
    files: &[(PathBuf, OsString)],
    summary: &Summary,
) -> Result<(), LakeError> {
    let path = match files {
        [(path, _)] => path.clone(),
        _ => dir.join(table.name),
    };
    let damaged = |what: String| LakeError::Damaged {
        path: path.clone(),
        what,
    };
    let Some(recorded) = summary.table_digests.get(&table.file_name()) else {
        return Err(damaged(
            "summary.json records no digest of it (an older pgnlake's import?): import it again"
                .into(),
        ));
    };
    let paths: Vec<&Path> = files.iter().map(|(path, _)| path.as_path()).collect();
    let found = digest_files(&paths).map_err(super::io_error(&path))?;
    if found != *recorded {
        return Err(damaged(format!(
            "its content ({found}) is not the one summary.json recorded ({recorded}): \
             another import's table?"
        )));
    }
    Ok(())
}

/// Reads `path`'s footer: the rows of a Parquet file with `table`'s columns.
fn check_file(path: &Path, table: &Table) -> Result<u64, LakeError> {
    let damaged = |what: String| LakeError::Damaged {
        path: path.to_path_buf(),
        what,
    };
    let file = File::open(path).map_err(super::io_error(path))?;
    let mut reader = ParquetReader::new(file);
    let arrow = reader
        .schema()
        .map_err(|e| damaged(format!("not a Parquet file ({e})")))?;
    let found: Vec<(String, DataType)> = arrow
        .iter_values()
        .map(|field| (field.name.to_string(), DataType::from_arrow_field(field)))
        .collect();
    let expected: Vec<(String, DataType)> = table
        .columns
        .iter()
        .map(|c| (c.name.to_owned(), crate::sink::parquet::dtype(c.ty)))
        .collect();
    let same = found.len() == expected.len()
        && found
            .iter()
            .zip(&expected)
            .all(|((name, ty), (want, want_ty))| name == want && same_type(ty, want_ty));
    if !same {
        let names: Vec<&str> = found.iter().map(|(name, _)| name.as_str()).collect();
        return Err(damaged(format!(
            "not the {} table of this pgnlake (its columns: {})",
            table.name,
            names.join(", ")
        )));
    }
    let rows = reader
        .num_rows()
        .map_err(|e| damaged(format!("unreadable footer ({e})")))?;
    Ok(rows as u64)
}

/// Types equal as readers see them: a timestamp in any unit is a
/// timestamp (Spark writes microseconds where pgnlake writes milliseconds).
fn same_type(found: &DataType, expected: &DataType) -> bool {
    match (found, expected) {
        (DataType::Datetime(..), DataType::Datetime(..)) => true,
        _ => found == expected,
    }
}
