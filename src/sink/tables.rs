//! Sink stage, the table files: every name pgnlake writes in an output
//! folder, so that a run can remove the tables an earlier run left there and
//! it did not write (a `moves.parquet` whose `game_id`s point at other
//! games), and never touch a file of anyone else.

use std::io;
use std::path::{Path, PathBuf};

use super::schema;

/// Removes from `dir` each table file `import` and `merge` write (those of
/// [`schema::TABLES`]) that is not in `written`; returns the paths removed.
pub(crate) fn remove_stale<'a>(
    dir: &Path,
    written: impl IntoIterator<Item = &'a str> + Clone,
) -> io::Result<Vec<PathBuf>> {
    let mut removed = Vec::new();
    for name in schema::TABLES.map(|table| table.file_name()) {
        if written.clone().into_iter().any(|w| w == name) {
            continue;
        }
        let path = dir.join(name);
        match std::fs::remove_file(&path) {
            Ok(()) => removed.push(path),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_table_files_not_written_are_removed() -> io::Result<()> {
        let dir = tempfile::tempdir()?;
        for name in [
            "games.parquet",
            "moves.parquet",
            "notes.txt",
            "mine.parquet",
        ] {
            std::fs::write(dir.path().join(name), b"x")?;
        }
        let removed = remove_stale(dir.path(), ["games.parquet", "rejects.parquet"])?;
        assert_eq!(removed, vec![dir.path().join("moves.parquet")]);
        for kept in ["games.parquet", "notes.txt", "mine.parquet"] {
            assert!(dir.path().join(kept).exists(), "{kept}");
        }
        Ok(())
    }
}
