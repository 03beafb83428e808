//! Statistics stage, the games' first moves: each tree game's moves within
//! the opening tree's window, where a row of the tree finds them by game
//! id. A row of one game holds its game, not its spelling (EPD, SAN, next
//! key); a row written with two games or more is spelled from its witness
//! game's first moves (`stats::tree_row::Spelling`). The import
//! writes them as it replays; `merge` and `lake --compact` load them from
//! the start of the `games` tables' `moves_uci`.
//!
//! One fixed-width record a game (2 bytes a ply: shakmaty's packed UCI
//! move, 0 after the last), at `game_id × width` in a file beside the
//! tree's spill: written in any order by the workers, read at random when
//! the tree is written, through the page cache. A game id never written
//! reads as no moves.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use super::tree_row::{pack_move, pack_uci, unpack_move};

use shakmaty::{Chess, Move, Position};

/// Whether a `games` row is one of the tree's games, by its
/// `variant_name` and `start_fen`: a standard start of standard chess.
pub(crate) fn in_tree(variant_name: &str, start_fen: Option<&str>) -> bool {
    variant_name == crate::replay::variant::VariantName::Standard.as_str() && start_fen.is_none()
}

/// Why a game's first moves could not give the position a row needs.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SpellError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("game {game_id}: its first moves do not reach ply {ply} (move {at} is {what})")]
    Moves {
        game_id: u64,
        ply: u16,
        at: usize,
        what: &'static str,
    },
}

/// The first moves of every game of a run, by game id: a handle, cloned
/// into the jobs that spell the tree's rows (the file goes with the last).
#[derive(Clone)]
pub struct FirstMoves(Arc<Store>);

struct Store {
    path: PathBuf,
    /// Plies kept a game (the tree's window).
    plies: usize,
    /// Opened at the first write (a run without a tree has no file).
    file: OnceLock<Result<File, String>>,
}

impl FirstMoves {
    /// A store of `plies` moves a game, in the file `path` (made when
    /// first written, removed when the store is dropped).
    pub fn new(path: PathBuf, plies: usize) -> FirstMoves {
        FirstMoves(Arc::new(Store {
            path,
            plies,
            file: OnceLock::new(),
        }))
    }

    pub fn path(&self) -> &Path {
        &self.0.path
    }

    fn width(&self) -> u64 {
        2 * self.0.plies as u64
    }

    fn file(&self) -> io::Result<&File> {
        let store = &self.0;
        let opened = store.file.get_or_init(|| {
            if let Some(dir) = store.path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
            }
            // Removed by a signal's exit too, as the spill's runs are.
            crate::interrupt::register(&store.path);
            File::options()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(&store.path)
                .map_err(|e| e.to_string())
        });
        opened.as_ref().map_err(|e| io::Error::other(e.clone()))
    }

    /// Keeps game `game_id`'s moves (the first `plies` of them).
    pub(crate) fn put(&self, game_id: u64, moves: &[Move]) -> io::Result<()> {
        self.put_packed(game_id, moves.iter().map(|m| pack_move(*m)))
    }

    /// Keeps game `game_id`'s moves given as UCI separated by spaces (the
    /// `games` table's `moves_uci`: its first `plies`); an error names the
    /// token.
    pub(crate) fn put_text(&self, game_id: u64, text: &str) -> Result<(), String> {
        let mut packed = Vec::with_capacity(self.0.plies);
        for token in text.split_ascii_whitespace().take(self.0.plies) {
            let m = pack_uci(token)
                .ok_or_else(|| format!("game {game_id}: first move `{token}` is not a UCI move"))?;
            packed.push(m);
        }
        self.put_packed(game_id, packed.into_iter())
            .map_err(|e| format!("{}: {e}", self.0.path.display()))
    }

    fn put_packed(&self, game_id: u64, moves: impl Iterator<Item = u16>) -> io::Result<()> {
        if self.0.plies == 0 {
            return Ok(());
        }
        // The moves only: the file is new, so the rest of the record (a
        // hole if no game after it is longer) reads as zeros, no move.
        let mut record = Vec::with_capacity(self.0.plies * 2);
        for m in moves.take(self.0.plies) {
            record.extend_from_slice(&m.to_le_bytes());
        }
        self.file()?.write_all_at(&record, game_id * self.width())
    }

    /// The position after game `game_id`'s first `ply` moves.
    pub(crate) fn position(&self, game_id: u64, ply: u16) -> Result<Chess, SpellError> {
        let io_error = |source| SpellError::Io {
            path: self.0.path.clone(),
            source,
        };
        let wrong = |at, what| SpellError::Moves {
            game_id,
            ply,
            at,
            what,
        };
        let plies = usize::from(ply);
        let mut pos = Chess::default();
        if plies == 0 {
            return Ok(pos);
        }
        if plies > self.0.plies {
            return Err(wrong(self.0.plies, "past the window"));
        }
        let mut record = vec![0u8; plies * 2];
        let file = self.file().map_err(io_error)?;
        match file.read_exact_at(&mut record, game_id * self.width()) {
            Ok(()) => {}
            // Past the end of the file: never written.
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Err(wrong(0, "missing")),
            Err(e) => return Err(io_error(e)),
        }
        for (at, bytes) in record.chunks_exact(2).enumerate() {
            let packed = u16::from_le_bytes([bytes[0], bytes[1]]);
            if packed == 0 {
                return Err(wrong(at, "missing"));
            }
            let uci = unpack_move(packed);
            let m = uci.to_move(&pos).map_err(|_| wrong(at, "illegal"))?;
            pos.play_unchecked(m);
        }
        Ok(pos)
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        if self.file.get().is_some() {
            // A temporary: gone with the run, whatever happened to it.
            let _ = std::fs::remove_file(&self.path);
            crate::interrupt::unregister(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::san::San;

    fn moves(sans: &str) -> Vec<Move> {
        let mut pos = Chess::default();
        sans.split_whitespace()
            .map(|token| {
                let san: San = token.parse().unwrap_or_else(|e| panic!("{token}: {e}"));
                let m = san.to_move(&pos).unwrap_or_else(|e| panic!("{token}: {e}"));
                pos.play_unchecked(m);
                m
            })
            .collect()
    }

    #[test]
    fn a_game_s_positions_come_back_by_id_and_ply() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let store = FirstMoves::new(dir.path().join("first-moves"), 4);
        let game = moves("e4 c5 Nf3 d6 d4");
        store.put(7, &game).unwrap_or_else(|e| panic!("{e}"));
        store
            .put_text(2, "d2d4 g8f6 c2c4")
            .unwrap_or_else(|e| panic!("{e}"));
        let mut expected = Chess::default();
        for (ply, m) in game.iter().take(4).enumerate() {
            let pos = store
                .position(7, ply as u16)
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(pos, expected);
            expected.play_unchecked(*m);
        }
        assert_eq!(
            store.position(7, 4).unwrap_or_else(|e| panic!("{e}")),
            expected
        );
        assert!(store.position(2, 3).is_ok());
        // A ply past the game's moves, past the window, a game never
        // written: errors naming the game.
        for (id, ply) in [(2, 4), (7, 5), (3, 1), (900, 1)] {
            let error = store.position(id, ply).map(drop).unwrap_err();
            assert!(error.to_string().contains(&format!("game {id}")), "{error}");
        }
        let path = store.path().to_path_buf();
        drop(store);
        assert!(!path.exists());
    }

    #[test]
    fn a_broken_first_moves_text_is_an_error_naming_the_token() {
        let store = FirstMoves::new(PathBuf::from("/nonexistent/never"), 4);
        let error = store.put_text(1, "e2e4 zz").unwrap_err();
        assert!(error.contains("`zz`"), "{error}");
    }
}
