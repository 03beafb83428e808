//! Sink, columns read back: the one reader of a table's columns once its
//! rows are in a polars `DataFrame` (explore, the report, merge). A count
//! is a whole number of games, never null and never negative: a row that
//! says otherwise is an error naming the file and the column, not a zero
//! that would quietly change every sum it enters.

use std::path::{Path, PathBuf};

use polars::prelude::*;

use crate::stats::counts::{Counts, Ratings};

/// A column that could not be read as its table declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ColumnError {
    /// The table's file (in a lake, its folder).
    pub path: PathBuf,
    /// What is wrong, naming the column (polars' own words for a column
    /// that is missing or of another type).
    pub message: String,
}

impl std::fmt::Display for ColumnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for ColumnError {}

/// The columns of a frame read back from the table at `path`.
#[derive(Clone, Copy)]
pub(crate) struct Columns<'a> {
    frame: &'a DataFrame,
    path: &'a Path,
}

impl<'a> Columns<'a> {
    pub(crate) fn new(frame: &'a DataFrame, path: &'a Path) -> Columns<'a> {
        Columns { frame, path }
    }

    /// Rows in the frame (every column's length).
    pub(crate) fn height(&self) -> usize {
        self.frame.height()
    }

    /// Has the frame this column? (A lake's frames have `import`.)
    pub(crate) fn has(&self, name: &str) -> bool {
        self.frame.column(name).is_ok()
    }

    /// A count column (games, wins, rating sums): each value a whole
    /// number, 0 or more.
    /// `games`, `white_wins`, `draws`, `black_wins` by row (every
    /// aggregate table but `endgames` has them, by these names;
    /// `unfinished` is the rest, as `Counts` computes it).
    pub(crate) fn result_counts(&self) -> Result<impl Fn(usize) -> Counts + use<>, ColumnError> {
        let [games, white, draws, black] =
            ["games", "white_wins", "draws", "black_wins"].map(|column| self.counts(column));
        let (games, white, draws, black) = (games?, white?, draws?, black?);
        Ok(move |row: usize| Counts {
            games: games[row],
            white_wins: white[row],
            draws: draws[row],
            black_wins: black[row],
        })
    }

    /// The rating sums and counts by row.
    pub(crate) fn rating_sums(&self) -> Result<impl Fn(usize) -> Ratings + use<>, ColumnError> {
        let [ws, wc, bs, bc] = [
            "white_elo_sum",
            "white_elo_count",
            "black_elo_sum",
            "black_elo_count",
        ]
        .map(|column| self.counts(column));
        let (ws, wc, bs, bc) = (ws?, wc?, bs?, bc?);
        Ok(move |row: usize| Ratings {
            white_sum: ws[row],
            white_count: wc[row],
            black_sum: bs[row],
            black_count: bc[row],
        })
    }

    pub(crate) fn counts(&self, name: &str) -> Result<Vec<u64>, ColumnError> {
        self.ints(name)?
            .into_iter()
            .map(|value| match value {
                Some(n) => u64::try_from(n).map_err(|_| {
                    self.error(format!("column {name:?} holds a negative count ({n})"))
                }),
                None => Err(self.error(format!("column {name:?} holds a null count"))),
            })
            .collect()
    }

    /// An integer (or date, as days) column whose nulls mean something.
    pub(crate) fn ints(&self, name: &str) -> Result<Vec<Option<i64>>, ColumnError> {
        let column = self
            .frame
            .column(name)
            .and_then(|c| c.cast(&DataType::Int64))
            .map_err(|e| self.polars(e))?;
        let values = column.i64().map_err(|e| self.polars(e))?;
        Ok((0..values.len()).map(|i| values.get(i)).collect())
    }

    /// An integer column that is never null (ids, sums).
    pub(crate) fn required_ints(&self, name: &str) -> Result<Vec<i64>, ColumnError> {
        self.ints(name)?
            .into_iter()
            .map(|value| value.ok_or_else(|| self.null(name)))
            .collect()
    }

    /// A text column whose nulls mean something.
    pub(crate) fn texts(&self, name: &str) -> Result<Vec<Option<String>>, ColumnError> {
        let column = self.frame.column(name).map_err(|e| self.polars(e))?;
        let values = column.str().map_err(|e| self.polars(e))?;
        Ok((0..values.len())
            .map(|i| values.get(i).map(str::to_owned))
            .collect())
    }

    /// A text column that is never null (names, moves, keys).
    pub(crate) fn required_texts(&self, name: &str) -> Result<Vec<String>, ColumnError> {
        self.texts(name)?
            .into_iter()
            .map(|value| value.ok_or_else(|| self.null(name)))
            .collect()
    }

    /// A row that breaks the table's rules in a way the columns alone do
    /// not say (a name pgnlake does not write).
    pub(crate) fn error(&self, message: String) -> ColumnError {
        ColumnError {
            path: self.path.to_path_buf(),
            message,
        }
    }

    fn null(&self, name: &str) -> ColumnError {
        self.error(format!("column {name:?} holds a null"))
    }

    fn polars(&self, e: PolarsError) -> ColumnError {
        self.error(e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `frame` written to a Parquet file and read back, as a table is.
    fn round_trip(mut frame: DataFrame) -> (tempfile::TempDir, PathBuf, DataFrame) {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("results.parquet");
        let file = std::fs::File::create(&path).unwrap_or_else(|e| panic!("{e}"));
        ParquetWriter::new(file)
            .finish(&mut frame)
            .unwrap_or_else(|e| panic!("{e}"));
        let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{e}"));
        let back = ParquetReader::new(file)
            .finish()
            .unwrap_or_else(|e| panic!("{e}"));
        (dir, path, back)
    }

    #[test]
    fn counts_are_read_as_written() {
        let frame = df!("games" => [3i64, 0, 5], "name" => ["a", "b", "c"])
            .unwrap_or_else(|e| panic!("{e}"));
        let (_dir, path, frame) = round_trip(frame);
        let columns = Columns::new(&frame, &path);
        assert_eq!(columns.counts("games"), Ok(vec![3, 0, 5]));
        assert_eq!(
            columns.required_texts("name"),
            Ok(vec!["a".to_owned(), "b".to_owned(), "c".to_owned()])
        );
        assert_eq!(columns.height(), 3);
    }

    #[test]
    fn a_null_count_is_refused_naming_the_file_and_the_column() {
        let frame = df!("games" => [Some(3i64), None]).unwrap_or_else(|e| panic!("{e}"));
        let (_dir, path, frame) = round_trip(frame);
        let error = Columns::new(&frame, &path).counts("games").err();
        assert_eq!(
            error.map(|e| e.to_string()),
            Some(format!(
                "{}: column \"games\" holds a null count",
                path.display()
            ))
        );
    }

    #[test]
    fn a_negative_count_is_refused_naming_the_file_and_the_column() {
        let frame = df!("draws" => [1i64, -2]).unwrap_or_else(|e| panic!("{e}"));
        let (_dir, path, frame) = round_trip(frame);
        let error = Columns::new(&frame, &path).counts("draws").err();
        assert_eq!(
            error.map(|e| e.to_string()),
            Some(format!(
                "{}: column \"draws\" holds a negative count (-2)",
                path.display()
            ))
        );
    }

    #[test]
    fn nulls_are_kept_where_they_mean_something_and_refused_elsewhere() {
        let frame = df!(
            "year" => [Some(2020i32), None],
            "reason" => [None, Some("agreement")],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let (_dir, path, frame) = round_trip(frame);
        let columns = Columns::new(&frame, &path);
        assert_eq!(columns.ints("year"), Ok(vec![Some(2020), None]));
        assert_eq!(
            columns.texts("reason"),
            Ok(vec![None, Some("agreement".to_owned())])
        );
        let null = |e: ColumnError| e.message;
        assert_eq!(
            columns.required_ints("year").map_err(null),
            Err("column \"year\" holds a null".to_owned())
        );
        assert_eq!(
            columns.required_texts("reason").map_err(null),
            Err("column \"reason\" holds a null".to_owned())
        );
        assert!(columns.counts("missing").is_err());
        assert!(!columns.has("missing"));
    }
}
