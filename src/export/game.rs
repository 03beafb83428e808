//! Export, one game: the PGN of one game of an import's folder or a lake,
//! by its id, written as `export` writes each game (the same
//! [`clean_selected`]), with no query and no temporary file. Its `games`
//! row is read alone from its import's file ([`KeyedFiles`]); the game is
//! read again from its source at its offset (a plain file from there, a
//! compressed one decompressed up to there) and checked against its
//! `raw_hash`. What the server's PGN links and game pages answer with.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use thiserror::Error;

use super::reread::{Cleaning, Failure, clean_selected, readable_source};
use crate::input::{Compression, InputError, InputSource, Opener, text};
use crate::pgn::framer::{Batch, Framer, Resume};
use crate::read::game_ref::GameRef;
use crate::read::keyed::KeyedFiles;
use crate::read::source::Data;
use crate::sink::columns::Columns;
use crate::sink::schema::games;
use crate::sink::summary::SummaryError;

/// What kind of failure a [`GameError`] is, for an answer's status: the
/// id names no game (404), is no id (400 or 404), or the game is there but
/// cannot be written (a table or source broken or changed: 500).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GameErrorKind {
    Missing,
    BadId,
    Broken,
}

/// Why one game could not be written.
#[derive(Debug, Error)]
pub(crate) enum GameError {
    #[error("{text:?} is not a game id here ({form})")]
    BadId { text: String, form: &'static str },
    #[error("no game {game}")]
    NoGame { game: String },
    #[error(transparent)]
    Summary(#[from] SummaryError),
    #[error("{}: {message}", .path.display())]
    Table { path: PathBuf, message: String },
    /// The source cannot be read as the import read it (stdin, gone,
    /// another size): readable_source's line.
    #[error("game {game}: {problem}")]
    Source { game: String, problem: String },
    #[error(transparent)]
    Input(#[from] InputError),
    #[error("game {game}: {}: cannot read: {source}", .path.display())]
    Read {
        game: String,
        path: PathBuf,
        source: io::Error,
    },
    #[error(
        "game {game}: {}: no game starts at byte {offset} (line {line} as imported) any more: changed since the import",
        .path.display()
    )]
    Moved {
        game: String,
        path: PathBuf,
        offset: u64,
        line: u64,
    },
    #[error(
        "game {game}: {}: the game at byte {offset} (line {line}) changed since the import",
        .path.display()
    )]
    Changed {
        game: String,
        path: PathBuf,
        offset: u64,
        line: u64,
    },
    #[error("game {game}: {}: the game at byte {offset} is rejected: {why}", .path.display())]
    Rejected {
        game: String,
        path: PathBuf,
        offset: u64,
        why: String,
    },
}

impl GameError {
    pub(crate) fn kind(&self) -> GameErrorKind {
        match self {
            GameError::BadId { .. } => GameErrorKind::BadId,
            GameError::NoGame { .. } => GameErrorKind::Missing,
            _ => GameErrorKind::Broken,
        }
    }

    fn bad_id(text: &str, lake: bool) -> GameError {
        GameError::BadId {
            text: text.to_owned(),
            form: GameRef::form(lake),
        }
    }
}

/// Where the import found a game: its `games` row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GamePlace {
    pub source: String,
    pub game_index: u64,
    pub offset: u64,
    pub line: u64,
    pub raw_hash: u64,
}

/// The PGN of the game `id` names (`17`, `IMPORT:17` in a lake) in the
/// import's folder or lake `dir`, as `export` writes it.
pub(crate) fn game_pgn_at(dir: &Path, id: &str, files: &KeyedFiles) -> Result<String, GameError> {
    let data = Data::open(dir)?;
    let game =
        GameRef::parse(id, data.is_lake()).ok_or_else(|| GameError::bad_id(id, data.is_lake()))?;
    game_pgn(&data, &game, files, Cleaning::default())
}

/// The PGN of `game` of `data`, as `export` writes it with `cleaning`.
pub(crate) fn game_pgn(
    data: &Data,
    game: &GameRef,
    files: &KeyedFiles,
    cleaning: Cleaning,
) -> Result<String, GameError> {
    let place = game_row(data, game, files)?;
    let recorded = recorded_size(data, game, &place.source);
    let name = game.to_string();
    let source =
        readable_source(&place.source, recorded.as_ref()).map_err(|problem| GameError::Source {
            game: name.clone(),
            problem,
        })?;
    let InputSource::File(path) = source else {
        // readable_source gives files only.
        return Err(GameError::Source {
            game: name,
            problem: format!("{}: not a file", place.source),
        });
    };
    write_at(&path, &place, &name, cleaning)
}

/// The `games` row of `game`, read alone from its import's file.
fn game_row(data: &Data, game: &GameRef, files: &KeyedFiles) -> Result<GamePlace, GameError> {
    let import = match (data.is_lake(), &game.import) {
        (true, Some(import)) => import.as_str(),
        (false, None) => "",
        (lake, _) => return Err(GameError::bad_id(&game.to_string(), lake)),
    };
    let no_game = || GameError::NoGame {
        game: game.to_string(),
    };
    let tables = data.files(&games::TABLE);
    if tables.is_empty() {
        return Err(GameError::Table {
            path: data.table_path(&games::TABLE),
            message: "no games table".into(),
        });
    }
    // An import the lake does not list holds no game.
    let (_, file) = tables
        .iter()
        .find(|(name, _)| name == import)
        .ok_or_else(no_game)?;
    let columns = [
        games::SOURCE,
        games::GAME_INDEX,
        games::OFFSET,
        games::LINE,
        games::RAW_HASH,
    ]
    .map(|c| c.name);
    let rows = files
        .rows_of(file, games::GAME_ID.name, true, game.id, Some(&columns))
        .map_err(|e| GameError::Table {
            path: e.path,
            message: e.message,
        })?;
    match rows.height() {
        0 => Err(no_game()),
        1 => place_of(Columns::new(&rows, file)),
        n => Err(GameError::Table {
            path: file.clone(),
            message: format!("{n} rows have game_id {}", game.id),
        }),
    }
}

/// The first row of `rows` as a place; a negative offset, line or index
/// is an error naming the table.
fn place_of(rows: Columns<'_>) -> Result<GamePlace, GameError> {
    let table = |e: crate::sink::columns::ColumnError| GameError::Table {
        path: e.path,
        message: e.message,
    };
    let int = |name: &str| -> Result<i64, GameError> {
        let values = rows.required_ints(name).map_err(table)?;
        values
            .first()
            .copied()
            .ok_or_else(|| table(rows.error(format!("no row of column {name:?}"))))
    };
    let unsigned = |name: &str| -> Result<u64, GameError> {
        let value = int(name)?;
        u64::try_from(value)
            .map_err(|_| table(rows.error(format!("column {name:?} holds {value}"))))
    };
    let source = rows
        .required_texts(games::SOURCE.name)
        .map_err(table)?
        .into_iter()
        .next()
        .ok_or_else(|| table(rows.error("no row".into())))?;
    Ok(GamePlace {
        source,
        game_index: unsigned(games::GAME_INDEX.name)?,
        offset: unsigned(games::OFFSET.name)?,
        line: unsigned(games::LINE.name)?,
        // Stored signed (Spark has no unsigned 64-bit type): the same bits.
        raw_hash: int(games::RAW_HASH.name)? as u64,
    })
}

/// The size on disk `source` had when `game`'s import read it.
fn recorded_size(data: &Data, game: &GameRef, source: &str) -> Option<u64> {
    let summary = match &game.import {
        Some(import) => data.imports().find(|(name, _)| name == import)?.1,
        None => data.summaries().first()?,
    };
    let input = summary.inputs.iter().rev().find(|i| i.path == source)?;
    input.bytes
}

/// The game the import found at `place` of the file `path`, read again,
/// checked against its hash and written as `export` writes it.
pub(crate) fn write_at(
    path: &Path,
    place: &GamePlace,
    game: &str,
    cleaning: Cleaning,
) -> Result<String, GameError> {
    let read_error = |source: io::Error| GameError::Read {
        game: game.to_owned(),
        path: path.to_path_buf(),
        source,
    };
    let batch = match is_plain(path).map_err(read_error)? {
        true => {
            let mut file = File::open(path).map_err(read_error)?;
            file.seek(SeekFrom::Start(place.offset))
                .map_err(read_error)?;
            first_game(file, place).map_err(read_error)?
        }
        false => {
            let source = InputSource::File(path.to_path_buf());
            Opener::new(Arc::new(AtomicU64::new(0))).with_reader(&source, |text| {
                skip_to(text, place)
                    .and_then(|reached| match reached {
                        true => first_game(text, place),
                        false => Ok(None),
                    })
                    .map_err(read_error)
            })?
        }
    };
    let moved = || GameError::Moved {
        game: game.to_owned(),
        path: path.to_path_buf(),
        offset: place.offset,
        line: place.line,
    };
    let batch = batch.ok_or_else(moved)?;
    if batch.games.first().map(|g| g.offset) != Some(place.offset) {
        return Err(moved());
    }
    let wanted = HashMap::from([((0, place.offset), place.raw_hash)]);
    let written = clean_selected(&batch, &wanted, cleaning).into_iter().next();
    match written.map(|(_, _, text)| text) {
        Some(Ok(text)) => Ok(text),
        Some(Err(Failure::Changed { line })) => Err(GameError::Changed {
            game: game.to_owned(),
            path: path.to_path_buf(),
            offset: place.offset,
            line,
        }),
        Some(Err(Failure::Rejected(why))) => Err(GameError::Rejected {
            game: game.to_owned(),
            path: path.to_path_buf(),
            offset: place.offset,
            why,
        }),
        None => Err(moved()),
    }
}

/// Is `path` plain UTF-8 or Latin-1 text, whose offsets are its bytes on
/// disk (so it can be read from the offset on)? Compressed sources and
/// UTF-16 are read through the import's decoders from their start.
fn is_plain(path: &Path) -> io::Result<bool> {
    let mut head = Vec::with_capacity(4);
    File::open(path)?.take(4).read_to_end(&mut head)?;
    let utf16 = matches!(head.as_slice(), [0xff, 0xfe, ..] | [0xfe, 0xff, ..]);
    Ok(Compression::sniff(&head) == Compression::None && !utf16 && !text::is_zip(&head))
}

/// Reads `text` up to `place`'s offset; false when it ends before.
fn skip_to(text: &mut dyn Read, place: &GamePlace) -> io::Result<bool> {
    let skipped = io::copy(&mut text.take(place.offset), &mut io::sink())?;
    Ok(skipped == place.offset)
}

/// The first game framed from `text`, which starts at `place`'s offset,
/// in a batch of its own (as the import framed it: offsets, lines and
/// ordinals those of the whole source).
fn first_game(text: impl Read, place: &GamePlace) -> io::Result<Option<Batch>> {
    let resume = Resume {
        offset: place.offset,
        line: place.line,
        games: place.game_index.saturating_sub(1),
    };
    let mut framer = Framer::resuming(text, resume);
    let mut batch = Batch::default();
    let found = framer.fill_batch(&mut batch, &mut 0, usize::MAX, 1)?;
    Ok(found.then_some(batch))
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use crate::pgn::bytes::raw_hash;

    const FEN_GAME: &str = "[Event \"Set up\"]\n[SetUp \"1\"]\n[FEN \"6k1/5p2/6p1/8/8/8/r4PPP/3Q2K1 w - - 0 1\"]\n[Result \"1-0\"]\n\n1. Qd8+ Kg7 2. Qd4+ Kh6 {a comment} 3. Qh4+ Kg7 4. Qd4+ 1-0\n";
    const CHESS960_GAME: &str = "[Event \"Chess960\"]\n[Variant \"Chess960\"]\n[FEN \"bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1\"]\n[Result \"*\"]\n\n1. g3 g6 2. O-O O-O 3. f4 f5 *\n";
    const CRAZYHOUSE_GAME: &str = "[Event \"Crazyhouse\"]\n[Variant \"Crazyhouse\"]\n[Result \"*\"]\n\n1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. P@b4 Qxb4 *\n";

    /// The three games in one file, each with its place as the import
    /// would record it.
    fn games() -> (String, Vec<GamePlace>) {
        let text = format!("{FEN_GAME}\n{CHESS960_GAME}\n{CRAZYHOUSE_GAME}");
        let mut framer = Framer::new(text.as_bytes());
        let mut batch = Batch::default();
        framer
            .fill_batch(&mut batch, &mut 0, usize::MAX, 10)
            .unwrap_or_else(|e| panic!("{e}"));
        let places = batch
            .games
            .iter()
            .map(|g| GamePlace {
                source: String::new(),
                game_index: g.game_index,
                offset: g.offset,
                line: g.line,
                raw_hash: raw_hash(batch.game_bytes(g)),
            })
            .collect();
        (text, places)
    }

    /// What `export` writes for each game of `text` (its whole-source path).
    fn exported(text: &str, places: &[GamePlace]) -> Vec<String> {
        let mut framer = Framer::new(text.as_bytes());
        let mut batch = Batch::default();
        framer
            .fill_batch(&mut batch, &mut 0, usize::MAX, 10)
            .unwrap_or_else(|e| panic!("{e}"));
        let wanted = places.iter().map(|p| ((0, p.offset), p.raw_hash)).collect();
        clean_selected(&batch, &wanted, Cleaning::default())
            .into_iter()
            .map(|(_, _, text)| text.unwrap_or_else(|e| panic!("{e:?}")))
            .collect()
    }

    fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{e}"));
        path
    }

    #[test]
    fn a_game_read_at_its_offset_is_written_as_export_writes_it() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (text, places) = games();
        let expected = exported(&text, &places);
        assert_eq!(expected.len(), 3);
        assert!(expected[0].contains("[FEN \"6k1/5p2/6p1/8/8/8/r4PPP/3Q2K1 w - - 0 1\"]"));
        assert!(expected[1].contains("O-O O-O"), "{}", expected[1]);
        assert!(expected[2].contains("4. @b4 Qxb4"), "{}", expected[2]);
        let zst = zstd::encode_all(text.as_bytes(), 3).unwrap_or_else(|e| panic!("{e}"));
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(text.as_bytes())
            .unwrap_or_else(|e| panic!("{e}"));
        let gz = gz.finish().unwrap_or_else(|e| panic!("{e}"));
        for path in [
            write_file(dir.path(), "g.pgn", text.as_bytes()),
            write_file(dir.path(), "g.pgn.zst", &zst),
            write_file(dir.path(), "g.pgn.gz", &gz),
        ] {
            for (place, expected) in places.iter().zip(&expected) {
                let written = write_at(&path, place, "1", Cleaning::default());
                assert_eq!(
                    written.as_ref().ok(),
                    Some(expected),
                    "{}: {written:?}",
                    path.display()
                );
            }
        }
    }

    #[test]
    fn a_source_changed_under_a_game_is_an_error_of_the_broken_kind() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (text, places) = games();
        // One move changed, same length: the bytes no longer hash alike.
        let changed = text.replacen("Qd8+", "Qd7+", 1);
        let path = write_file(dir.path(), "g.pgn", changed.as_bytes());
        let error = write_at(&path, &places[0], "1", Cleaning::default());
        assert!(
            matches!(error, Err(GameError::Changed { line: 1, .. })),
            "{error:?}"
        );
        // Shorter: no game at the offset any more.
        let path = write_file(dir.path(), "short.pgn", &text.as_bytes()[..10]);
        let error = write_at(&path, &places[2], "3", Cleaning::default());
        assert!(matches!(error, Err(GameError::Moved { .. })), "{error:?}");
        let zst = zstd::encode_all(&text.as_bytes()[..10], 3).unwrap_or_else(|e| panic!("{e}"));
        let path = write_file(dir.path(), "short.pgn.zst", &zst);
        let error = write_at(&path, &places[2], "3", Cleaning::default());
        assert!(matches!(error, Err(GameError::Moved { .. })), "{error:?}");
        let error = write_at(
            &dir.path().join("gone.pgn"),
            &places[0],
            "1",
            Cleaning::default(),
        );
        assert!(matches!(error, Err(GameError::Read { .. })), "{error:?}");
        for error in [
            GameError::Moved {
                game: "1".into(),
                path: path.clone(),
                offset: 0,
                line: 1,
            },
            GameError::Source {
                game: "1".into(),
                problem: "gone".into(),
            },
        ] {
            assert_eq!(error.kind(), GameErrorKind::Broken);
        }
        assert_eq!(GameError::bad_id("x", true).kind(), GameErrorKind::BadId);
        assert_eq!(
            GameError::bad_id("x", true).to_string(),
            "\"x\" is not a game id here (IMPORT:GAME_ID)"
        );
        let missing = GameError::NoGame { game: "a:1".into() };
        assert_eq!(missing.kind(), GameErrorKind::Missing);
        use std::error::Error as _;
        let read = write_at(
            &dir.path().join("gone.pgn"),
            &places[0],
            "1",
            Cleaning::default(),
        );
        assert!(read.err().and_then(|e| e.source().map(|_| ())).is_some());
    }
}
