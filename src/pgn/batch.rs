//! PGN stage, the batch: a run of consecutive games and their bytes, the
//! unit of parallel work the framer fills and the workers parse, each game
//! with its source and place.

/// What follows each game in [`Batch::data`]. pgn-reader streams through a
/// whole batch; the separator makes it end every game exactly where the
/// framer did: a blank line ends movetext, and a tags-only game first gets an
/// empty movetext (`*`, ignored: the token audit reads the real marker).
pub(crate) const SEPARATOR: &[u8] = b"\n\n";
pub(crate) const SEPARATOR_AFTER_TAGS: &[u8] = b"\n*\n\n";

/// One game's bytes within a [`Batch`], with where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawGame {
    /// Global ordinal over all games read in this run (input order).
    pub game_id: u64,
    /// Index of the game's input among the run's sources. A batch can hold
    /// the games of several small inputs (see [`Batch::append`]): this,
    /// not [`Batch::source`], is where a game comes from.
    pub source: u32,
    /// 1-based ordinal of the game within its source.
    pub game_index: u64,
    /// Byte offset of the game's first byte in the uncompressed stream.
    pub offset: u64,
    /// 1-based line number of the game's first byte.
    pub line: u64,
    /// Range of the game's bytes in [`Batch::data`].
    pub start: usize,
    pub end: usize,
    /// True when the framer cut the game at the framer's `MAX_GAME_BYTES`.
    pub oversized: bool,
    /// True when the game ended in its tag section (no movetext): the
    /// separator after it gives pgn-reader an empty movetext.
    pub tags_only: bool,
    /// True when the input ends inside the game: it broke off (a read or
    /// decompression error) or stops mid-line, and the game has no
    /// termination marker.
    pub truncated: bool,
}

/// A run of consecutive games, the unit of parallel work: from one source,
/// or the last games of several small inputs in a row ([`Batch::append`]),
/// so that the work done per batch does not grow with the number of inputs.
#[derive(Debug, Default)]
pub struct Batch {
    /// The source of the batch's first game (each game's own is
    /// [`RawGame::source`]).
    pub source: u32,
    pub data: Vec<u8>,
    pub games: Vec<RawGame>,
}

impl Batch {
    /// The bytes of `game`, one of this batch's games.
    pub fn game_bytes(&self, game: &RawGame) -> &[u8] {
        &self.data[game.start..game.end]
    }

    /// Does the batch hold the games of more than one source?
    pub fn spans_sources(&self) -> bool {
        self.games.iter().any(|game| game.source != self.source)
    }

    /// Moves the games of `next` (framed after this batch's, of the same
    /// or a later input) to the end of this batch, leaving `next` empty
    /// with its buffers. Each game keeps its source and place. The padding
    /// after this batch's last game (see the framer's `fill_batch`) is for the
    /// end of a batch: it goes, and the first game of `next` follows the
    /// last one's separator, as a game follows another within an input.
    pub fn append(&mut self, next: &mut Batch) {
        let framed = self
            .games
            .last()
            .map_or(0, |last| last.end + separator(last.tags_only).len());
        self.data.truncate(framed);
        let shift = self.data.len();
        if self.games.is_empty() {
            self.source = next.source;
        }
        self.data.extend_from_slice(&next.data);
        self.games.extend(next.games.drain(..).map(|game| RawGame {
            start: game.start + shift,
            end: game.end + shift,
            ..game
        }));
        next.data.clear();
    }
}

/// What follows a game's bytes in a batch: a game that ended in its tag
/// section gets an empty movetext (`*`).
pub(crate) fn separator(tags_only: bool) -> &'static [u8] {
    if tags_only {
        SEPARATOR_AFTER_TAGS
    } else {
        SEPARATOR
    }
}
