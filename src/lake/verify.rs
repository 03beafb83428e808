//! Lake, checking an import's folder before it is committed (`lake --add`):
//! a lake's readers trust what is committed, so a folder with a table
//! missing, damaged, of another schema or of other row counts than its
//! summary says is refused here, naming the file, rather than found
//! broken by every reader later.

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

/// Checks the import's folder `dir` against its `summary`: every table the
/// summary lists is there and no other, every file reads as Parquet with
/// the table's columns, and each table's rows are the summary's count.
pub(super) fn check_folder(dir: &Path, summary: &Summary) -> Result<(), LakeError> {
    for table in schema::TABLES {
        let files = folder_files(dir, table);
        let listed = summary.tables.get(&table.file_name()).copied();
        let damaged = |path: PathBuf, what: String| LakeError::Damaged { path, what };
        let Some(rows) = listed else {
            if let Some((path, _)) = files.into_iter().next() {
                return Err(damaged(
                    path,
                    "a table summary.json does not list (left by another run?)".into(),
                ));
            }
            continue;
        };
        if files.is_empty() {
            return Err(damaged(
                dir.join(table.file_name()),
                format!("missing (summary.json lists {rows} rows of {})", table.name),
            ));
        }
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
