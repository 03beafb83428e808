//! Query: SQL over the tables of an import. Every `*.parquet` in the data
//! folder is registered under its name as a lazy scan, a script is split into
//! statements, and each runs through polars SQL; [`crate::sink::results`]
//! prints or writes what comes back.

use std::path::{Path, PathBuf};

use polars::prelude::*;
use polars::sql::SQLContext;

pub use crate::error::QueryError;

/// One statement of a script, with where it starts and its leading comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    /// The statement's text, without the `;`.
    pub sql: String,
    /// 1-based line of the statement's first character in the script.
    pub line: usize,
    /// The comment lines before the SQL, as written (`-- …`), without the
    /// `Tables:` and `engine:` lines that are metadata.
    pub title: Vec<String>,
}

/// Splits a script on the `;` that end statements: not those inside quoted
/// strings, quoted names or comments. Pieces holding only comments and
/// blanks are dropped.
pub fn split_statements(script: &str) -> Vec<Statement> {
    let mut statements = Vec::new();
    let mut start = 0;
    let mut chars = script.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\'' | '"' => {
                // A doubled quote inside is an escaped one: the loop simply
                // leaves and re-enters the literal.
                for (_, d) in chars.by_ref() {
                    if d == c {
                        break;
                    }
                }
            }
            '-' if chars.peek().map(|&(_, d)| d) == Some('-') => {
                for (_, d) in chars.by_ref() {
                    if d == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek().map(|&(_, d)| d) == Some('*') => {
                chars.next();
                let mut previous = ' ';
                for (_, d) in chars.by_ref() {
                    if previous == '*' && d == '/' {
                        break;
                    }
                    previous = d;
                }
            }
            ';' => {
                statements.extend(statement(script, start, i));
                start = i + 1;
            }
            _ => {}
        }
    }
    statements.extend(statement(script, start, script.len()));
    statements
}

/// The statement in `script[start..end]`, if it holds any SQL.
fn statement(script: &str, start: usize, end: usize) -> Option<Statement> {
    let text = script.get(start..end)?;
    let mut title = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            offset += line.len();
        } else if let Some(comment) = trimmed.strip_prefix("--") {
            if !is_metadata(comment) {
                title.push(trimmed.to_owned());
            }
            offset += line.len();
        } else {
            break;
        }
    }
    let rest = text.get(offset..)?;
    let sql = rest.trim();
    offset += rest.len() - rest.trim_start().len();
    if sql.is_empty() {
        return None;
    }
    let line = 1 + script
        .get(..start + offset)
        .map_or(0, |before| before.matches('\n').count());
    Some(Statement {
        sql: sql.to_owned(),
        line,
        title,
    })
}

/// `-- Tables: …` and `-- engine: …` describe a query; they are no title.
fn is_metadata(comment: &str) -> bool {
    let comment = comment.trim_start();
    comment.starts_with("Tables:") || comment.starts_with("engine:")
}

/// The engine a script asks for in a `-- engine: NAME` line, if any.
pub fn engine(script: &str) -> Option<&str> {
    script
        .lines()
        .map_while(|line| line.trim().strip_prefix("--"))
        .find_map(|comment| comment.trim_start().strip_prefix("engine:"))
        .map(str::trim)
}

/// The tables of a data folder, registered for SQL.
pub struct Tables {
    data: PathBuf,
    names: Vec<String>,
    context: SQLContext,
    /// A lake, held (its lock shared) while the statements read it.
    _lake: Option<super::source::Data>,
}

impl Tables {
    /// Registers every `NAME.parquet` in `data` as table `NAME` (lazily: a
    /// table is only read when a statement uses it).
    pub fn open(data: &Path) -> Result<Tables, QueryError> {
        if !data.is_dir() {
            return Err(QueryError::MissingData(data.to_path_buf()));
        }
        if crate::lake::is_lake(data) {
            return Self::open_lake(data);
        }
        let unreadable = |e: &dyn std::fmt::Display| QueryError::Unreadable {
            path: data.to_path_buf(),
            message: e.to_string(),
        };
        // An import cut short (tables, no summary) is no import.
        super::source::folder_summary(data)?;
        let mut names: Vec<String> = std::fs::read_dir(data)
            .map_err(|e| unreadable(&e))?
            .flatten()
            .filter_map(|entry| table_name(&entry.file_name().to_string_lossy()))
            .collect();
        names.sort();
        if names.is_empty() {
            return Err(QueryError::NoTables(data.to_path_buf()));
        }
        let context = SQLContext::new();
        for name in &names {
            let path = data.join(format!("{name}.parquet"));
            let frame = super::source::scan_file(&path).map_err(|e| QueryError::Unreadable {
                path: path.clone(),
                message: first_line(&e.to_string()).to_owned(),
            })?;
            context.register(name, frame);
        }
        Ok(Tables {
            data: data.to_path_buf(),
            names,
            context,
            _lake: None,
        })
    }

    /// Registers each table of a lake as the union of its imports'
    /// partitions, with the import's name as column `import` (the raw
    /// union: aggregate tables are summed with GROUP BY; see docs/lake.md).
    fn open_lake(lake: &Path) -> Result<Tables, QueryError> {
        let data = super::source::Data::open(lake).map_err(|e| QueryError::Unreadable {
            path: lake.to_path_buf(),
            message: e.to_string(),
        })?;
        Self::of_lake(data, lake)
    }

    /// [`Tables::open`] of data a caller has open already (a lake's
    /// summaries not read again).
    pub(crate) fn of_data(data: &super::source::Data, dir: &Path) -> Result<Tables, QueryError> {
        match data.is_lake() {
            true => Self::of_lake(data.clone(), dir),
            false => Self::open(dir),
        }
    }

    fn of_lake(data: super::source::Data, lake: &Path) -> Result<Tables, QueryError> {
        let unreadable = |e: super::source::ScanError| QueryError::Unreadable {
            path: e.path,
            message: first_line(&e.message).to_owned(),
        };
        let context = SQLContext::new();
        let mut names = Vec::new();
        for table in crate::sink::schema::TABLES {
            if let Some(union) = data.scan(table).map_err(unreadable)? {
                context.register(table.name, union);
                names.push(table.name.to_owned());
            }
        }
        if names.is_empty() {
            return Err(QueryError::NoTables(lake.to_path_buf()));
        }
        names.sort();
        Ok(Tables {
            data: lake.to_path_buf(),
            names,
            context,
            _lake: Some(data),
        })
    }

    /// Runs one statement; `place` names it in errors. Its
    /// `read_parquet('PATH')` table functions read PATH as pgnlake reads a
    /// table (see `outside_reads`).
    pub fn run(&mut self, statement: &Statement, place: &str) -> Result<DataFrame, QueryError> {
        let sql = position_keys(&statement.sql).map_err(|e| QueryError::Sql {
            place: place.to_owned(),
            message: format!("position_key: {e}"),
        })?;
        let (sql, reads) = outside_reads(&sql);
        let mut registered = Vec::with_capacity(reads.len());
        let mut result = Ok(());
        for (name, path) in reads {
            match super::source::scan_file_or_glob(&path) {
                Ok(frame) => {
                    self.context.register(&name, frame);
                    registered.push(name);
                }
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        let result = result
            .and_then(|()| self.context.execute(&sql))
            .and_then(LazyFrame::collect)
            .map_err(|e| self.sql_error(place, &e));
        for name in &registered {
            self.context.unregister(name);
        }
        result
    }

    fn sql_error(&self, place: &str, error: &PolarsError) -> QueryError {
        let message = error.to_string();
        if let Some(table) = missing_relation(&message) {
            return QueryError::MissingTable {
                place: place.to_owned(),
                table: table.to_owned(),
                data: self.data.clone(),
                tables: self.names.clone(),
            };
        }
        QueryError::Sql {
            place: place.to_owned(),
            message: first_line(&message).to_owned(),
        }
    }
}

/// The table a statement's `read_parquet('PATH')` is replaced by (`N`
/// counts them in the statement).
const OUTSIDE_READ: &str = "__pgnlake_read_parquet_";

/// A statement's `read_parquet('PATH')` table functions, each replaced by
/// a table of its own, returned with its PATH: polars' own
/// `read_parquet` takes `key=value` folders anywhere on the path as Hive
/// columns, and guessing their types panics in this build (no date
/// types); pgnlake reads the file, or a glob's files, as they are, with
/// no column from the path. Calls in strings, quoted names and comments
/// are left alone, as are calls of another form (polars reports them).
fn outside_reads(sql: &str) -> (String, Vec<(String, String)>) {
    let mut reads = Vec::new();
    let rewritten = rewrite_calls(sql, |text, word| {
        let call = literal_call(text, word, "read_parquet").map(|(path, length)| {
            let name = format!("{OUTSIDE_READ}{}", reads.len() + 1);
            reads.push((name.clone(), path));
            (name, length)
        });
        Ok::<_, std::convert::Infallible>(call)
    });
    let sql = rewritten.unwrap_or_else(|never| match never {});
    (sql, reads)
}

/// A statement's `position_key('FEN')` calls, each replaced by the key of
/// the FEN's (or EPD's) position as `openings.position_key` stores it, an
/// integer literal in parentheses (no `--` when it follows a minus): the
/// rows of one game carry no EPD, and polars has no chess. Calls in
/// strings, quoted names and comments are left alone.
fn position_keys(sql: &str) -> Result<String, crate::error::ExploreError> {
    rewrite_calls(sql, |text, word| {
        let Some((fen, length)) = literal_call(text, word, "position_key") else {
            return Ok(None);
        };
        let key = crate::read::explore::stored_key_of_fen(&fen)?;
        // `-9223372036854775808` would be the negation of a literal too
        // large for a signed 64-bit integer.
        let literal = match key {
            i64::MIN => format!("({} - 1)", i64::MIN + 1),
            key => format!("({key})"),
        };
        Ok(Some((literal, length)))
    })
}

/// `sql` with each call `rewrite` recognises replaced: `rewrite` is
/// given the text from an identifier on and the identifier's length, and
/// returns the replacement and the length of the text it replaces. Strings,
/// quoted names and comments are copied as they are.
fn rewrite_calls<E>(
    sql: &str,
    mut rewrite: impl FnMut(&str, usize) -> Result<Option<(String, usize)>, E>,
) -> Result<String, E> {
    let mut out = String::with_capacity(sql.len());
    let mut rest = sql;
    while let Some(c) = rest.chars().next() {
        let skipped = match c {
            '\'' | '"' => quoted(rest, c),
            '-' if rest.starts_with("--") => rest.find('\n').unwrap_or(rest.len()),
            '/' if rest.starts_with("/*") => rest[2..].find("*/").map_or(rest.len(), |i| i + 4),
            c if c.is_ascii_alphabetic() || c == '_' => {
                let word = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
                    .unwrap_or(rest.len());
                if let Some((replacement, length)) = rewrite(rest, word)? {
                    out.push_str(&replacement);
                    rest = &rest[length..];
                    continue;
                }
                word
            }
            c => c.len_utf8(),
        };
        out.push_str(&rest[..skipped]);
        rest = &rest[skipped..];
    }
    Ok(out)
}

/// The length of the quoted string or name at the start of `text` (its
/// quote doubled inside), to its end if unterminated.
fn quoted(text: &str, quote: char) -> usize {
    let mut chars = text.char_indices().skip(1).peekable();
    while let Some((i, c)) = chars.next() {
        if c == quote {
            if chars.peek().map(|&(_, d)| d) == Some(quote) {
                chars.next();
            } else {
                return i + 1;
            }
        }
    }
    text.len()
}

/// `NAME ( 'TEXT' )` at the start of `text`, whose first word is `word`
/// bytes long and is `name` (in any case): TEXT and the call's length.
fn literal_call(text: &str, word: usize, name: &str) -> Option<(String, usize)> {
    if !text[..word].eq_ignore_ascii_case(name) {
        return None;
    }
    let blank = |s: &str| s.len() - s.trim_start().len();
    let mut at = word + blank(&text[word..]);
    at += text[at..].strip_prefix('(').map(|_| 1)?;
    at += blank(&text[at..]);
    if !text[at..].starts_with('\'') {
        return None;
    }
    let length = quoted(&text[at..], '\'');
    let literal = &text[at..at + length];
    let content = literal
        .strip_prefix('\'')?
        .strip_suffix('\'')?
        .replace("''", "'");
    at += length;
    at += blank(&text[at..]);
    at += text[at..].strip_prefix(')').map(|_| 1)?;
    Some((content, at))
}

/// The warning a statement earns when it groups, filters or lists the
/// `openings` table by `move_san`: a row of one game (most rows of a large
/// tree) carries no SAN, so `GROUP BY move_san` puts those games in one
/// null group and splits each move's count (docs/tables.md, "Rows of one
/// game name their game"). A `move_san` that is the whole argument of
/// `MAX`, `MIN`, `ANY_VALUE`, `FIRST` or `LAST` labels a group of another
/// key and is fine. Strings, comments and other tables are left alone; a
/// statement that does not name `openings` earns none.
pub fn move_san_warning(sql: &str) -> Option<String> {
    let tokens = sql_tokens(sql);
    let is = |token: Option<&SqlToken>, word: &str| matches!(token, Some(SqlToken::Word(w)) if w.eq_ignore_ascii_case(word));
    let punct =
        |token: Option<&SqlToken>, c: char| matches!(token, Some(SqlToken::Punct(p)) if *p == c);
    if !tokens.iter().any(|t| is(Some(t), "openings")) {
        return None;
    }
    let labels = ["max", "min", "any_value", "first", "last"];
    let unlabelled = tokens.iter().enumerate().any(|(i, token)| {
        // `… AS move_san` names a result column; it reads no row.
        if !is(Some(token), "move_san") || i.checked_sub(1).is_some_and(|a| is(tokens.get(a), "as"))
        {
            return false;
        }
        // `o.move_san`: the qualifier stands before the name.
        let start = match i.checked_sub(2) {
            Some(q) if punct(tokens.get(q + 1), '.') => q,
            _ => i,
        };
        let wrapped = start.checked_sub(2).is_some_and(|f| {
            labels.iter().any(|l| is(tokens.get(f), l)) && punct(tokens.get(f + 1), '(')
        }) && punct(tokens.get(i + 1), ')');
        !wrapped
    });
    unlabelled.then(|| {
        "move_san is null on the openings rows of one game (most rows): grouping, filtering \
         or listing by it leaves their games out or in a null group; group by move_uci \
         (MAX(move_san) then gives the SAN where a row has it)"
            .to_owned()
    })
}

/// A word (a name, a keyword; a quoted name without its quotes) or a
/// punctuation mark of a statement, as [`move_san_warning`] reads it.
#[derive(Debug, PartialEq)]
enum SqlToken {
    Word(String),
    Punct(char),
}

/// The words and punctuation of `sql` outside strings and comments.
fn sql_tokens(sql: &str) -> Vec<SqlToken> {
    let mut tokens = Vec::new();
    let mut rest = sql;
    while let Some(c) = rest.chars().next() {
        let skipped = match c {
            '\'' => quoted(rest, c),
            '"' => {
                let length = quoted(rest, c);
                let name = rest.get(1..length.saturating_sub(1)).unwrap_or_default();
                tokens.push(SqlToken::Word(name.replace("\"\"", "\"")));
                length
            }
            '-' if rest.starts_with("--") => rest.find('\n').unwrap_or(rest.len()),
            '/' if rest.starts_with("/*") => rest[2..].find("*/").map_or(rest.len(), |i| i + 4),
            c if c.is_alphanumeric() || c == '_' => {
                let word = rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                    .unwrap_or(rest.len());
                tokens.push(SqlToken::Word(rest[..word].to_owned()));
                word
            }
            c if c.is_whitespace() => c.len_utf8(),
            c => {
                tokens.push(SqlToken::Punct(c));
                c.len_utf8()
            }
        };
        rest = &rest[skipped..];
    }
    tokens
}

/// `games.parquet` → `games`; temporary and hidden files are no tables.
fn table_name(file_name: &str) -> Option<String> {
    let stem = file_name.strip_suffix(".parquet")?;
    (!stem.is_empty() && !stem.starts_with('.')).then(|| stem.to_owned())
}

/// The table of polars' "relation 'NAME' was not found".
fn missing_relation(message: &str) -> Option<&str> {
    let rest = message.split("relation '").nth(1)?;
    let (name, tail) = rest.split_once('\'')?;
    tail.starts_with(" was not found").then_some(name)
}

/// polars explains some errors over several lines (with the plan); the first
/// one says what is wrong.
fn first_line(message: &str) -> &str {
    message
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or(message)
}

/// Where a statement is, for messages: `FILE: statement 2 (line 7)`.
pub fn place(origin: &str, index: usize, statement: &Statement) -> String {
    format!(
        "{origin}: statement {} (line {})",
        index + 1,
        statement.line
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_semicolons_outside_strings_and_comments() {
        let script = "-- First question\n-- Tables: games\nSELECT ';' AS a, \"x;y\" FROM games;\n\n\
                      -- Second; with a semicolon\n/* block ; */ SELECT 2 -- trailing ;\n;\n-- only a comment\n";
        let statements = split_statements(script);
        assert_eq!(statements.len(), 2, "{statements:?}");
        assert_eq!(statements[0].sql, "SELECT ';' AS a, \"x;y\" FROM games");
        assert_eq!(statements[0].title, ["-- First question"]);
        assert_eq!(statements[0].line, 3);
        assert_eq!(statements[1].sql, "/* block ; */ SELECT 2 -- trailing ;");
        assert_eq!(statements[1].title, ["-- Second; with a semicolon"]);
        assert_eq!(statements[1].line, 6);
    }

    #[test]
    fn escaped_quotes_stay_inside_the_literal() {
        let statements = split_statements("SELECT 'it''s; fine'; SELECT 3");
        assert_eq!(statements.len(), 2);
        assert_eq!(statements[0].sql, "SELECT 'it''s; fine'");
        assert_eq!(statements[1].sql, "SELECT 3");
        assert!(statements[1].title.is_empty());
    }

    #[test]
    fn unterminated_literal_is_one_statement() {
        let statements = split_statements("SELECT 'open; SELECT 2");
        assert_eq!(statements.len(), 1);
    }

    #[test]
    fn reads_the_engine_line() {
        assert_eq!(engine("-- Q\n-- engine: polars\nSELECT 1"), Some("polars"));
        assert_eq!(engine("-- Q\nSELECT 1 -- engine: polars"), None);
    }

    #[test]
    fn read_parquet_calls_become_tables_of_their_own() {
        let (sql, reads) = outside_reads(
            "SELECT 'read_parquet(''x'')', \"read_parquet\" -- read_parquet('c')\n\
             FROM READ_PARQUET ( 'a=1/it''s.parquet' ) AS t JOIN read_parquet('b/*.parquet') \
             USING (k) /* read_parquet('d') */ JOIN read_parquet('e', hive_partitioning = true)",
        );
        assert_eq!(
            sql,
            "SELECT 'read_parquet(''x'')', \"read_parquet\" -- read_parquet('c')\n\
             FROM __pgnlake_read_parquet_1 AS t JOIN __pgnlake_read_parquet_2 \
             USING (k) /* read_parquet('d') */ JOIN read_parquet('e', hive_partitioning = true)"
        );
        let paths: Vec<&str> = reads.iter().map(|(_, path)| path.as_str()).collect();
        assert_eq!(paths, ["a=1/it's.parquet", "b/*.parquet"]);
        assert_eq!(outside_reads("SELECT 'open").0, "SELECT 'open");
        assert_eq!(
            outside_reads("SELECT é FROM read_parquet(").0,
            "SELECT é FROM read_parquet("
        );
    }

    #[test]
    fn position_key_calls_become_the_stored_keys() {
        let e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -";
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let sql = format!(
            "SELECT 'position_key(''{e4}'')' AS s, \"position_key\" -- position_key('{e4}')\n\
             FROM openings WHERE position_key IN (POSITION_KEY ( '{e4}' ), \
             position_key('{start}')) AND 1-position_key('{e4}') <> 0 \
             /* position_key('x') */ AND position_key(epd) IS NULL"
        );
        assert_eq!(
            position_keys(&sql).map_err(|e| e.to_string()),
            Ok(format!(
                "SELECT 'position_key(''{e4}'')' AS s, \"position_key\" -- position_key('{e4}')\n\
                 FROM openings WHERE position_key IN ((-9062197578030825066), \
                 (5060803636482931868)) AND 1-(-9062197578030825066) <> 0 \
                 /* position_key('x') */ AND position_key(epd) IS NULL"
            ))
        );
        assert_eq!(
            position_keys("SELECT position_key('8/8 w - -')").map_err(|e| e.to_string()),
            Err("not a legal position: \"8/8 w - -\" (invalid board part in fen)".to_owned())
        );
    }

    #[test]
    fn grouping_openings_by_move_san_is_warned_of() {
        let warned = |sql: &str| move_san_warning(sql).is_some();
        for sql in [
            "SELECT move_san, SUM(games) FROM openings GROUP BY move_san",
            "select o.MOVE_SAN, count(*) from OPENINGS o group by 1",
            "SELECT \"move_san\" FROM \"openings\" WHERE position_key = 1",
            "SELECT SUM(games) FROM openings WHERE move_san = 'e4'",
            "SELECT move_uci, MAX(move_san) AS san, COUNT(move_san) FROM openings GROUP BY move_uci",
            "SELECT MAX(move_san || '!') FROM openings",
        ] {
            assert!(warned(sql), "{sql}");
        }
        for sql in [
            "SELECT move_uci, MAX(move_san) AS move_san, SUM(games) FROM openings GROUP BY move_uci",
            "SELECT move_uci, min( o.move_san ) FROM openings o GROUP BY move_uci",
            "SELECT move_uci FROM openings -- GROUP BY move_san",
            "SELECT 'move_san', move_uci FROM openings /* move_san */",
            "SELECT san FROM moves GROUP BY san",
            "SELECT move_san FROM read_parquet('x.parquet')",
            "SELECT * FROM openings",
        ] {
            assert!(!warned(sql), "{sql}");
        }
    }

    #[test]
    fn names_tables_and_missing_relations() {
        assert_eq!(table_name("games.parquet").as_deref(), Some("games"));
        assert_eq!(table_name(".games.parquet.tmp"), None);
        assert_eq!(table_name(".x.parquet"), None);
        assert_eq!(table_name("summary.json"), None);
        assert_eq!(
            missing_relation("SQL interface error: relation 'gmes' was not found"),
            Some("gmes")
        );
        assert_eq!(first_line("\n a\nb"), "a");
    }
}
