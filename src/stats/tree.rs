//! Statistics stage, opening tree: for each (position, move) within the first
//! plies of accepted standard-start games, and each speed, rating band and
//! month of those games, the games, results, ratings and years. Keyed by
//! position, so move orders that transpose meet in one node.

use shakmaty::packed::PackedUciMove;
use shakmaty::san::{San, SanPlus, Suffix};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Move, Position, Square};

use super::counts::{Counts, Ratings};
use super::dimensions::{self, Dimensions};
use super::partitioned::{InMemory, TreePart, TreeRuns};
use super::spill::Fields;
use crate::pgn::result::GameResult;
use crate::replay::openings::stored_key;

/// One row of the tree: a position, a move played from it, and the speed,
/// rating band and month of the games counted. Ordered as the table is
/// sorted: by the key as stored (signed), then by move, then by dimensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct EdgeKey {
    /// [`crate::replay::openings::position_key`] of the position.
    pub position: u64,
    /// The move, as shakmaty's 2-byte packed UCI move (standard castling).
    pub mv: u16,
    pub dims: Dimensions,
}

impl Ord for EdgeKey {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (stored_key(self.position), self.mv, self.dims).cmp(&(
            stored_key(other.position),
            other.mv,
            other.dims,
        ))
    }
}

impl EdgeKey {
    /// The key as one integer ordered as [`EdgeKey`] is: sorting these is
    /// sorting the rows without moving rows of 80 bytes about.
    pub(crate) fn sort_bits(&self) -> u128 {
        // The stored (signed) key, its sign bit flipped, orders as unsigned.
        let position = stored_key(self.position).cast_unsigned() ^ (1 << 63);
        u128::from(position) << 64 | u128::from(self.mv) << 32 | u128::from(self.dims.sort_bits())
    }
}

impl PartialOrd for EdgeKey {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// What the games that played an edge add up to. Only sums, counts, minima
/// and maxima, so that parts merge in any order; counts u64, since an
/// archive's first moves are played billions of times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EdgeStats {
    pub results: Counts,
    pub elo: Ratings,
    pub first_year: Option<u16>,
    pub last_year: Option<u16>,
    /// The earliest ply at which a game reached the position.
    pub ply: u16,
}

impl Default for EdgeStats {
    fn default() -> Self {
        EdgeStats {
            results: Counts::default(),
            elo: Ratings::default(),
            first_year: None,
            last_year: None,
            ply: u16::MAX,
        }
    }
}

impl EdgeStats {
    fn add_game(&mut self, game: &GameFacts, ply: u16) {
        self.results.add_game(game.result);
        self.elo.add_game(game.white_elo, game.black_elo);
        self.add_year(game.year, game.year);
        self.ply = self.ply.min(ply);
    }

    fn add_year(&mut self, first: Option<u16>, last: Option<u16>) {
        self.first_year = min_some(self.first_year, first);
        self.last_year = self.last_year.max(last);
    }
}

fn min_some(a: Option<u16>, b: Option<u16>) -> Option<u16> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

impl std::ops::AddAssign<&EdgeStats> for EdgeStats {
    fn add_assign(&mut self, other: &EdgeStats) {
        self.results += &other.results;
        self.elo += &other.elo;
        self.add_year(other.first_year, other.last_year);
        self.ply = self.ply.min(other.ply);
    }
}

/// A position as the squares taken (a little-endian bitboard), then one
/// nibble per piece in square order (1–6 white pawn to king, 9–14 black;
/// at most 32 pieces, as in any game from the standard start, the only
/// games in the tree), then side to move and castling rights, then the
/// en-passant square + 1 (0: none). Written straight out as EPD, and as is
/// to run files.
const BOARD_BYTES: usize = 8 + 16 + 2;
const FLAGS: usize = 24;
const EP: usize = 25;

/// An edge with what its row needs besides the counts, taken when the edge
/// is first seen (the position is at hand then): the position it leaves,
/// the move in SAN, and the key of the position the move leads to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edge {
    tally: Tally,
    pub next: u64,
    board: [u8; BOARD_BYTES],
    san: [u8; SAN_BYTES],
}

/// What an edge's games add up to, held small: a row of one game (97 % of
/// the rows of a tree of online games) keeps that game's facts in 10
/// bytes, a row of more games its sums in a box. A tree row takes 80 bytes
/// instead of the 144 it took with the sums inline; the boxes are counted
/// in the tree's memory budget.
#[derive(Debug, Clone)]
enum Tally {
    One(OneGame),
    Many(Box<EdgeStats>),
}

/// Equal when the sums are, however they are held.
impl PartialEq for Tally {
    fn eq(&self, other: &Tally) -> bool {
        self.stats() == other.stats()
    }
}

impl Eq for Tally {}

/// A game as a row of one game holds it, as a run file's short record does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct OneGame {
    /// 0: unfinished or no result; 1 white wins, 2 draw, 3 black wins.
    result: u8,
    /// [`NO_ELO`] when unknown.
    white_elo: u16,
    black_elo: u16,
    /// [`NO_YEAR`] when unknown.
    year: u16,
    ply: u16,
}

impl OneGame {
    /// The game, when each fact fits (ratings below 65,535, a year below
    /// 65,535).
    fn of(game: &GameFacts, ply: u16) -> Option<OneGame> {
        let elo = |elo: Option<u32>| match elo {
            None => Some(NO_ELO),
            Some(e) => u16::try_from(e).ok().filter(|&e| e != NO_ELO),
        };
        Some(OneGame {
            result: match game.result {
                Some(GameResult::WhiteWins) => 1,
                Some(GameResult::Draw) => 2,
                Some(GameResult::BlackWins) => 3,
                Some(GameResult::Unfinished) | None => 0,
            },
            white_elo: elo(game.white_elo)?,
            black_elo: elo(game.black_elo)?,
            year: match game.year {
                None => NO_YEAR,
                Some(y) => Some(y).filter(|&y| y != NO_YEAR)?,
            },
            ply,
        })
    }

    /// The sums of exactly one game, when they are those of one game whose
    /// facts fit.
    fn from_stats(s: &EdgeStats) -> Option<OneGame> {
        if s.results.games != 1 || s.first_year != s.last_year || s.first_year == Some(NO_YEAR) {
            return None;
        }
        let elo = |sum: u64, count: u64| match count {
            0 => Some(NO_ELO),
            1 => u16::try_from(sum).ok().filter(|&e| e != NO_ELO),
            _ => None,
        };
        let r = &s.results;
        let result = match (r.white_wins, r.draws, r.black_wins) {
            (0, 0, 0) => 0,
            (1, 0, 0) => 1,
            (0, 1, 0) => 2,
            (0, 0, 1) => 3,
            _ => return None,
        };
        Some(OneGame {
            result,
            white_elo: elo(s.elo.white_sum, s.elo.white_count)?,
            black_elo: elo(s.elo.black_sum, s.elo.black_count)?,
            year: s.first_year.unwrap_or(NO_YEAR),
            ply: s.ply,
        })
    }

    fn stats(&self) -> EdgeStats {
        let elo = |e: u16| (e != NO_ELO).then_some(u64::from(e));
        let year = (self.year != NO_YEAR).then_some(self.year);
        EdgeStats {
            results: Counts {
                games: 1,
                white_wins: u64::from(self.result == 1),
                draws: u64::from(self.result == 2),
                black_wins: u64::from(self.result == 3),
            },
            elo: Ratings {
                white_sum: elo(self.white_elo).unwrap_or(0),
                white_count: u64::from(self.white_elo != NO_ELO),
                black_sum: elo(self.black_elo).unwrap_or(0),
                black_count: u64::from(self.black_elo != NO_ELO),
            },
            first_year: year,
            last_year: year,
            ply: self.ply,
        }
    }
}

impl Tally {
    fn of_game(game: &GameFacts, ply: u16) -> Tally {
        OneGame::of(game, ply).map_or_else(
            || {
                let mut stats = EdgeStats::default();
                stats.add_game(game, ply);
                Tally::Many(Box::new(stats))
            },
            Tally::One,
        )
    }

    fn from_stats(stats: EdgeStats) -> Tally {
        OneGame::from_stats(&stats).map_or_else(|| Tally::Many(Box::new(stats)), Tally::One)
    }

    fn stats(&self) -> EdgeStats {
        match self {
            Tally::One(game) => game.stats(),
            Tally::Many(stats) => **stats,
        }
    }

    /// Changes the sums, boxed from then on (a row of one game gets more).
    fn add(&mut self, change: impl FnOnce(&mut EdgeStats)) {
        match self {
            Tally::Many(stats) => change(stats),
            Tally::One(game) => {
                let mut stats = game.stats();
                change(&mut stats);
                *self = Tally::Many(Box::new(stats));
            }
        }
    }
}

/// The longest SAN with suffix is 7 bytes (`Qa1xb2#`, `exd8=Q+`).
const SAN_BYTES: usize = 8;

const TURN_WHITE: u8 = 1;
const CASTLING: [(Square, u8, u8); 4] = [
    (Square::H1, 2, b'K'),
    (Square::A1, 4, b'Q'),
    (Square::H8, 8, b'k'),
    (Square::A8, 16, b'q'),
];

impl Edge {
    fn new(pos: &Chess, m: Move, next: u64, tally: Tally) -> Edge {
        let mut board = [0u8; BOARD_BYTES];
        let pieces = pos.board();
        let occupied = pieces.occupied();
        board[..8].copy_from_slice(&u64::from(occupied).to_le_bytes());
        for (index, square) in occupied.into_iter().enumerate() {
            if let (Some(piece), Some(byte)) =
                (pieces.piece_at(square), board.get_mut(8 + index / 2))
            {
                let code = piece.role as u8 | if piece.color == Color::Black { 8 } else { 0 };
                *byte |= code << (4 * (index % 2));
            }
        }
        let rights = pos.castles().castling_rights();
        let mut flags = if pos.turn() == Color::White {
            TURN_WHITE
        } else {
            0
        };
        for (corner, bit, _) in CASTLING {
            if rights.contains(corner) {
                flags |= bit;
            }
        }
        board[FLAGS] = flags;
        board[EP] = pos
            .ep_square(EnPassantMode::Legal)
            .map_or(0, |sq| u8::from(sq) + 1);
        let mut text = Vec::with_capacity(SAN_BYTES);
        san_plus(pos, m).append_ascii_to(&mut text);
        let mut san = [0u8; SAN_BYTES];
        for (slot, byte) in san.iter_mut().zip(text) {
            *slot = byte;
        }
        Edge {
            tally,
            next,
            board,
            san,
        }
    }

    /// What the row's games add up to.
    pub(crate) fn stats(&self) -> EdgeStats {
        self.tally.stats()
    }

    /// Games that played the edge.
    pub(crate) fn games(&self) -> u64 {
        match &self.tally {
            Tally::One(_) => 1,
            Tally::Many(stats) => stats.results.games,
        }
    }

    /// The earliest ply at which a game reached the position.
    pub(crate) fn ply(&self) -> u16 {
        match &self.tally {
            Tally::One(game) => game.ply,
            Tally::Many(stats) => stats.ply,
        }
    }

    pub(crate) fn set_ply(&mut self, ply: u16) {
        match &mut self.tally {
            Tally::One(game) => game.ply = ply,
            Tally::Many(stats) => stats.ply = ply,
        }
    }

    /// Whether the sums are in a box on the heap (bytes besides the row).
    pub(crate) fn is_boxed(&self) -> bool {
        matches!(self.tally, Tally::Many(_))
    }

    /// Adds one more game to the row.
    fn add_game(&mut self, game: &GameFacts, ply: u16) {
        self.tally.add(|sums| sums.add_game(game, ply));
    }

    /// The edge of a row read back from an `openings` table (`merge`):
    /// the position from its EPD and the move from its UCI, so that the
    /// row is spelled out again exactly as the import spells it. None when
    /// the EPD or the move is not legal.
    pub(crate) fn from_table_row(
        position: u64,
        dims: Dimensions,
        epd: &str,
        uci: &str,
        next: u64,
        stats: EdgeStats,
    ) -> Option<(EdgeKey, Edge)> {
        let pos: Chess = shakmaty::fen::Epd::from_ascii(epd.as_bytes())
            .ok()?
            .into_position(CastlingMode::Standard)
            .ok()?;
        let uci = UciMove::from_ascii(uci.as_bytes()).ok()?;
        let m = uci.to_move(&pos).ok()?;
        let edge = Edge::new(&pos, m, next, Tally::from_stats(stats));
        let key = EdgeKey {
            position,
            mv: pack_move(m),
            dims,
        };
        Some((key, edge))
    }

    /// The move in SAN with `+` / `#`.
    pub(crate) fn san(&self) -> &str {
        let len = self.san.iter().position(|&b| b == 0).unwrap_or(SAN_BYTES);
        std::str::from_utf8(self.san.get(..len).unwrap_or_default()).unwrap_or_default()
    }

    /// Whether two edges leave the same position (not only the same key).
    pub(crate) fn same_position(&self, other: &Edge) -> bool {
        self.board == other.board
    }

    /// The position the edge leaves, as EPD (en passant only when legal).
    pub(crate) fn write_epd(&self, out: &mut String) {
        // Built as bytes in a buffer long enough for any EPD (at most 64
        // squares, 7 slashes and 13 more bytes) and appended once: this
        // runs for every position of the tree.
        let mut text = Text::default();
        let occupied = u64::from_le_bytes(self.board_bytes::<0, 8>());
        let pieces = u128::from_le_bytes(self.board_bytes::<8, 16>());
        for rank in (0..8u32).rev() {
            // Pieces are in square order: this rank's come after those of
            // the ranks below.
            let mut index = (occupied & ((1u64 << (8 * rank)) - 1)).count_ones();
            let mut row = (occupied >> (8 * rank)) as u8;
            // From one occupied square to the next, not square by square.
            let mut file = 0u32;
            while row != 0 {
                let next = row.trailing_zeros();
                if next > file {
                    text.push(b'0' + (next - file) as u8);
                }
                let code = (pieces >> (4 * (index & 31))) as usize & 15;
                text.push(PIECE_LETTERS[code]);
                index += 1;
                file = next + 1;
                row &= row - 1;
            }
            if file < 8 {
                text.push(b'0' + (8 - file) as u8);
            }
            if rank > 0 {
                text.push(b'/');
            }
        }
        let flags = self.board[FLAGS];
        text.push(b' ');
        text.push(if flags & TURN_WHITE != 0 { b'w' } else { b'b' });
        text.push(b' ');
        let mut any = false;
        for (_, bit, letter) in CASTLING {
            if flags & bit != 0 {
                text.push(letter);
                any = true;
            }
        }
        if !any {
            text.push(b'-');
        }
        text.push(b' ');
        match self.board[EP].checked_sub(1) {
            Some(square) if square < 64 => {
                text.push(b'a' + square % 8);
                text.push(b'1' + square / 8);
            }
            _ => text.push(b'-'),
        }
        out.push_str(text.as_str());
    }

    fn board_bytes<const FROM: usize, const N: usize>(&self) -> [u8; N] {
        self.board
            .get(FROM..FROM + N)
            .and_then(|bytes| bytes.try_into().ok())
            .unwrap_or([0; N])
    }
}

/// An EPD being written: ASCII bytes in a buffer that holds any EPD.
struct Text {
    bytes: [u8; 96],
    len: usize,
}

impl Default for Text {
    fn default() -> Self {
        Text {
            bytes: [0; 96],
            len: 0,
        }
    }
}

impl Text {
    fn push(&mut self, byte: u8) {
        if let Some(slot) = self.bytes.get_mut(self.len) {
            *slot = byte;
            self.len += 1;
        }
    }

    fn as_str(&self) -> &str {
        // Only ASCII is pushed.
        std::str::from_utf8(self.bytes.get(..self.len).unwrap_or_default()).unwrap_or_default()
    }
}

/// Letters by nibble code; `.` for unused codes.
const PIECE_LETTERS: &[u8; 16] = b".PNBRQK..pnbrqk.";

/// The move of an edge key.
pub(crate) fn unpack_move(mv: u16) -> UciMove {
    PackedUciMove::from_bytes(mv.to_le_bytes()).unpack()
}

fn pack_move(m: Move) -> u16 {
    u16::from_le_bytes(PackedUciMove::pack(m.to_uci(CastlingMode::Standard)).to_bytes())
}

/// What one game contributes besides its moves.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct GameFacts {
    /// The result counted: see [`counted_result`](crate::check::counted_result).
    pub result: Option<GameResult>,
    pub white_elo: Option<u32>,
    pub black_elo: Option<u32>,
    pub year: Option<u16>,
    /// The speed, rating band and month the game counts under.
    pub dims: Dimensions,
}

/// Header bits of a run-file record.
const ONE_GAME: u8 = 1;
/// The SAN as 8 bytes (never so far: SAN is at most 7).
const WIDE: u8 = 2;
const RESULT_SHIFT: u8 = 2;
/// A one-game row's ply in one byte.
const SHORT_PLY: u8 = 16;
/// SAN with its suffix is at most 7 bytes (`Qa1xb2#`, `exd8=Q+`).
const SHORT_SAN_BYTES: usize = 7;
/// The longest record: a row of many games with an 8-byte SAN (four
/// counts and two rating sums and counts of 8 bytes, three u16).
const RECORD_MAX_BYTES: usize =
    1 + 8 + 2 + dimensions::ENCODED_BYTES + 8 + BOARD_BYTES + SAN_BYTES + 8 * 8 + 3 * 2;
const NO_YEAR: u16 = u16::MAX;
const NO_ELO: u16 = u16::MAX;
impl Edge {
    /// Adds another part's row of the same key.
    pub(crate) fn combine(&mut self, from: Edge) {
        match &from.tally {
            Tally::One(game) => self.tally.add(|sums| *sums += &game.stats()),
            Tally::Many(stats) => self.tally.add(|sums| *sums += stats),
        }
        // Equal keys have equal positions; should two positions ever share
        // a 64-bit key, keep the same one whatever the order of the parts.
        if (from.board, from.san) < (self.board, self.san) {
            (self.board, self.san, self.next) = (from.board, from.san, from.next);
        }
    }

    /// Appends the row as a run-file record: 63 bytes for a row of one
    /// game (nearly every row of a tree of online games), 126 otherwise.
    pub(crate) fn encode(&self, key: &EdgeKey, out: &mut Vec<u8>) {
        let short_san = self.san.get(SHORT_SAN_BYTES).is_some_and(|&b| b == 0);
        let short_ply = u8::try_from(self.ply()).ok().filter(|&p| p != u8::MAX);
        let mut header = 0u8;
        if let Tally::One(game) = &self.tally {
            header |= ONE_GAME | game.result << RESULT_SHIFT;
            if short_ply.is_some() {
                header |= SHORT_PLY;
            }
        }
        if !short_san {
            header |= WIDE;
        }
        out.reserve(RECORD_MAX_BYTES);
        out.push(header);
        out.extend_from_slice(&key.position.to_le_bytes());
        out.extend_from_slice(&key.mv.to_le_bytes());
        key.dims.encode(out);
        out.extend_from_slice(&self.next.to_le_bytes());
        out.extend_from_slice(&self.board);
        if short_san {
            out.extend_from_slice(self.san.get(..SHORT_SAN_BYTES).unwrap_or_default());
        } else {
            out.extend_from_slice(&self.san);
        }
        match &self.tally {
            Tally::One(game) => {
                match short_ply {
                    Some(ply) => out.push(ply),
                    None => out.extend_from_slice(&game.ply.to_le_bytes()),
                }
                for n in [game.white_elo, game.black_elo, game.year] {
                    out.extend_from_slice(&n.to_le_bytes());
                }
            }
            Tally::Many(s) => {
                s.results.encode(out);
                s.elo.encode(out);
                for n in [
                    s.first_year.unwrap_or(NO_YEAR),
                    s.last_year.unwrap_or(NO_YEAR),
                    s.ply,
                ] {
                    out.extend_from_slice(&n.to_le_bytes());
                }
            }
        }
    }

    /// Reads one record from the front of `bytes`; the rest after it.
    pub(crate) fn decode(bytes: &[u8]) -> Option<((EdgeKey, Edge), &[u8])> {
        let (&header, rest) = bytes.split_first()?;
        let mut input = Fields(rest);
        let key = EdgeKey {
            position: input.u64()?,
            mv: input.u16()?,
            dims: Dimensions::decode(&mut input)?,
        };
        let next = input.u64()?;
        let board = input.bytes::<BOARD_BYTES>()?;
        let san = if header & WIDE != 0 {
            input.bytes::<SAN_BYTES>()?
        } else {
            let mut san = [0u8; SAN_BYTES];
            for (to, from) in san.iter_mut().zip(input.bytes::<SHORT_SAN_BYTES>()?) {
                *to = from;
            }
            san
        };
        let year = |y: u16| (y != NO_YEAR).then_some(y);
        let tally = if header & ONE_GAME != 0 {
            let ply = if header & SHORT_PLY != 0 {
                u16::from(input.bytes::<1>()?[0])
            } else {
                input.u16()?
            };
            Tally::One(OneGame {
                result: (header >> RESULT_SHIFT) & 3,
                white_elo: input.u16()?,
                black_elo: input.u16()?,
                year: input.u16()?,
                ply,
            })
        } else {
            Tally::from_stats(EdgeStats {
                results: Counts::decode(&mut input)?,
                elo: Ratings::decode(&mut input)?,
                first_year: year(input.u16()?),
                last_year: year(input.u16()?),
                ply: input.u16()?,
            })
        };
        Some((
            (
                key,
                Edge {
                    tally,
                    next,
                    board,
                    san,
                },
            ),
            input.rest(),
        ))
    }
}

#[cfg(test)]
impl Edge {
    /// A row of `games` games (all white wins in `year`) whose board and
    /// move are made up from `seed`.
    pub(crate) fn made_up(seed: u64, games: u64, ply: u16, year: u16) -> Edge {
        let mut board = [0u8; BOARD_BYTES];
        for (i, byte) in board.iter_mut().enumerate() {
            *byte = (seed >> (i % 8 * 8)) as u8;
        }
        Edge {
            tally: Tally::from_stats(EdgeStats {
                results: Counts {
                    games,
                    white_wins: games,
                    ..Counts::default()
                },
                elo: Ratings {
                    white_sum: 1500 * games,
                    white_count: games,
                    ..Ratings::default()
                },
                first_year: Some(year),
                last_year: Some(year),
                ply,
            }),
            next: seed.rotate_left(7),
            board,
            san: *b"Nf3\0\0\0\0\0",
        }
    }
}

/// A position of one game inside the window: where it was first reached,
/// and the move that left it the last time (loops are cut out, so each
/// position counts once per game).
#[derive(Debug, Clone, Copy)]
struct Visit {
    key: u64,
    first_ply: usize,
    last_move: usize,
}

/// A worker's part of the opening tree.
pub struct OpeningTree<'s> {
    plies: usize,
    map: TreePart<'s>,
    visits: Vec<Visit>,
    /// The game's rows: key, move, next position key, first ply.
    edges: Vec<(EdgeKey, Move, u64, usize)>,
}

impl<'s> OpeningTree<'s> {
    /// `plies`: the window (moves 1..=plies count); `budget`: bytes.
    pub fn new(plies: usize, budget: usize, runs: &'s TreeRuns) -> Self {
        OpeningTree {
            plies,
            map: TreePart::new(budget, runs),
            visits: Vec::with_capacity(plies),
            edges: Vec::with_capacity(plies),
        }
    }

    /// Adds a standard-start game: `keys[ply]` is the position key after
    /// `ply` plies, `moves[ply]` the move played from it.
    pub(crate) fn add_game(&mut self, keys: &[u64], moves: &[Move], game: &GameFacts) {
        let window = self.plies.min(moves.len());
        self.visits.clear();
        for (ply, &key) in keys.iter().take(window).enumerate() {
            match self.visits.iter_mut().find(|v| v.key == key) {
                Some(visit) => visit.last_move = ply,
                None => self.visits.push(Visit {
                    key,
                    first_ply: ply,
                    last_move: ply,
                }),
            }
        }
        let mut walk = Walk {
            pos: Chess::default(),
            ply: 0,
            moves,
        };
        // Each row's key, move and next position once, for the lookups
        // ahead and the upserts.
        self.edges.clear();
        self.edges.extend(self.visits.iter().filter_map(|visit| {
            let m = *moves.get(visit.last_move)?;
            let next = *keys.get(visit.last_move + 1)?;
            let key = EdgeKey {
                position: visit.key,
                mv: pack_move(m),
                dims: game.dims,
            };
            Some((key, m, next, visit.first_ply))
        }));
        self.map.prefetch(self.edges.iter().map(|(key, ..)| key));
        for &(key, m, next, first_ply) in &self.edges {
            let ply = u16::try_from(first_ply).unwrap_or(u16::MAX);
            self.map.upsert(
                key,
                || Edge::new(walk.at(first_ply), m, next, Tally::of_game(game, ply)),
                |edge| edge.add_game(game, ply),
            );
        }
    }

    /// The rows left in memory; the first spill error.
    pub fn finish(self) -> std::io::Result<InMemory> {
        self.map.finish()
    }
}

/// The SAN of the legal move `m`, as `SanPlus::from_move` gives it, for a
/// fraction of its cost: that asks the position after the move for its
/// outcome, which generates every legal move there, while only a position
/// in check can be checkmate. This runs for every new row of the tree.
fn san_plus(pos: &Chess, m: Move) -> SanPlus {
    let san = San::from_move(pos, m);
    let mut after = pos.clone();
    after.play_unchecked(m);
    let suffix = if !after.checkers().any() {
        None
    } else if after.legal_moves().is_empty() {
        Some(Suffix::Checkmate)
    } else {
        Some(Suffix::Check)
    };
    SanPlus { san, suffix }
}

/// Replays a game forward on demand, to pack positions only for new edges.
struct Walk<'a> {
    pos: Chess,
    ply: usize,
    moves: &'a [Move],
}

impl Walk<'_> {
    fn at(&mut self, ply: usize) -> &Chess {
        while self.ply < ply {
            if let Some(&m) = self.moves.get(self.ply) {
                self.pos.play_unchecked(m);
            }
            self.ply += 1;
        }
        &self.pos
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::time_control::TimeClass;
    use crate::replay::openings::position_key;
    use shakmaty::san::San;

    fn game(sans: &str) -> (Vec<u64>, Vec<Move>) {
        let mut pos = Chess::default();
        let mut keys = vec![position_key(&pos)];
        let mut moves = Vec::new();
        for token in sans.split_whitespace() {
            let san: San = token.parse().unwrap_or_else(|e| panic!("{token}: {e}"));
            let m = san.to_move(&pos).unwrap_or_else(|e| panic!("{token}: {e}"));
            pos.play_unchecked(m);
            keys.push(position_key(&pos));
            moves.push(m);
        }
        (keys, moves)
    }

    proptest::proptest! {
        /// Sort bits order keys as keys order: by stored (signed) position
        /// key, move, speed, band, month.
        #[test]
        fn sort_bits_order_as_the_keys(
            keys in proptest::collection::vec(
                (proptest::prelude::any::<u64>(), 0u16..64, 0usize..7, 0i32..3200, 1800i64..2030, 0i64..13),
                2..40,
            ),
        ) {
            let keys: Vec<EdgeKey> = keys
                .into_iter()
                .map(|(position, mv, speed, elo, year, month)| EdgeKey {
                    // Few distinct positions and moves, so that keys tie on them.
                    position: position % 5 * (u64::MAX / 4),
                    mv: mv % 3,
                    dims: Dimensions::of(
                        TimeClass::ALL[speed],
                        (elo % 7 != 0).then_some(elo),
                        Some(elo / 2),
                        (month > 0).then_some((year, Some(month))),
                        crate::stats::dimensions::OpeningPeriod::Month,
                    ),
                })
                .collect();
            let mut by_key = keys.clone();
            by_key.sort();
            let mut by_bits = keys;
            by_bits.sort_by_key(EdgeKey::sort_bits);
            proptest::prop_assert_eq!(by_key, by_bits);
        }
    }

    fn tree_of(games: &[(&str, GameFacts)], plies: usize) -> Vec<(EdgeKey, Edge)> {
        let runs = TreeRuns::new(std::path::PathBuf::from("unused"));
        let mut tree = OpeningTree::new(plies, 1 << 20, &runs);
        for (sans, facts) in games {
            let (keys, moves) = game(sans);
            tree.add_game(&keys, &moves, facts);
        }
        let memory = tree.finish().unwrap_or_else(|e| panic!("{e}"));
        super::super::partitioned::SortedTree::new(vec![memory], &runs, 1, 1 << 20)
            .and_then(|mut tree| tree.all_rows())
            .unwrap_or_else(|e| panic!("{e}"))
    }

    fn no_games() -> Tally {
        Tally::from_stats(EdgeStats::default())
    }

    fn facts(result: GameResult, elos: (u32, u32), year: u16) -> GameFacts {
        GameFacts {
            result: Some(result),
            white_elo: Some(elos.0),
            black_elo: Some(elos.1),
            year: Some(year),
            dims: Dimensions::default(),
        }
    }

    #[test]
    fn a_repeated_position_counts_once_with_the_move_that_left_it_last() {
        let rows = tree_of(
            &[(
                "Nf3 Nf6 Ng1 Ng8 e4",
                facts(GameResult::Draw, (2000, 1900), 1999),
            )],
            20,
        );
        // Start (→ e4, not Nf3), after Nf3, after Nf6, after Ng1.
        assert_eq!(rows.len(), 4);
        let start = position_key(&Chess::default());
        let root: Vec<_> = rows.iter().filter(|(k, _)| k.position == start).collect();
        assert_eq!(root.len(), 1);
        let (key, edge) = root[0];
        assert_eq!(unpack_move(key.mv).to_string(), "e2e4");
        assert_eq!(edge.stats().results.games, 1);
        assert_eq!(edge.ply(), 0);
        let mut epd = String::new();
        edge.write_epd(&mut epd);
        assert_eq!(epd, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
        assert_eq!(edge.san(), "e4");
    }

    #[test]
    fn transposed_games_share_the_node_and_stats_add_up() {
        let rows = tree_of(
            &[
                (
                    "d4 Nf6 c4 e6 Nc3",
                    facts(GameResult::WhiteWins, (2500, 2400), 2001),
                ),
                (
                    "c4 e6 d4 Nf6 Nc3",
                    facts(GameResult::BlackWins, (2300, 2600), 1995),
                ),
            ],
            20,
        );
        let (keys, _) = game("d4 Nf6 c4 e6");
        let node: Vec<_> = rows.iter().filter(|(k, _)| k.position == keys[4]).collect();
        assert_eq!(node.len(), 1);
        let s = node[0].1.stats();
        let r = s.results;
        assert_eq!((r.games, r.white_wins, r.draws, r.black_wins), (2, 1, 0, 1));
        assert_eq!((s.elo.white_sum, s.elo.white_count), (4800, 2));
        assert_eq!((s.elo.black_sum, s.elo.black_count), (5000, 2));
        assert_eq!(
            (s.first_year, s.last_year, s.ply),
            (Some(1995), Some(2001), 4)
        );
        assert_eq!(unpack_move(node[0].0.mv).to_string(), "b1c3");
    }

    #[test]
    fn a_row_past_u32_max_games_adds_up_and_survives_a_run_file() {
        let big = u64::from(u32::MAX);
        let mut edge = Edge::made_up(7, big, 3, 2020);
        edge.combine(Edge::made_up(7, 5, 2, 2021));
        let s = edge.stats();
        assert_eq!((s.results.games, s.results.white_wins), (big + 5, big + 5));
        assert_eq!(s.elo.white_count, big + 5);
        assert_eq!(
            (s.ply, s.first_year, s.last_year),
            (2, Some(2020), Some(2021))
        );
        let key = EdgeKey {
            position: 9,
            mv: 4,
            dims: Dimensions::default(),
        };
        let mut record = Vec::new();
        edge.encode(&key, &mut record);
        assert!(record.len() <= RECORD_MAX_BYTES);
        let ((read_key, read), rest) = Edge::decode(&record).unwrap_or_else(|| panic!("decode"));
        assert!(rest.is_empty());
        assert_eq!((read_key, read), (key, edge));
    }

    #[test]
    fn the_window_limits_the_plies() {
        let rows = tree_of(&[("e4 e5 Nf3 Nc6", GameFacts::default())], 2);
        assert_eq!(rows.len(), 2);
        let s = rows[0].1.stats();
        assert_eq!(
            (s.results.games, s.results.unfinished(), s.first_year),
            (1, 1, None)
        );
    }

    #[test]
    fn a_mating_move_is_spelled_with_its_mark() {
        let (_, moves) = game("f3 e5 g4");
        let mut pos = Chess::default();
        for &m in &moves {
            pos.play_unchecked(m);
        }
        let mate = San::from_ascii(b"Qh4")
            .ok()
            .and_then(|san| san.to_move(&pos).ok());
        let Some(mate) = mate else {
            panic!("no Qh4 after 1. f3 e5 2. g4");
        };
        assert_eq!(Edge::new(&pos, mate, 0, no_games()).san(), "Qh4#");
        let check = San::from_ascii(b"Bb4")
            .ok()
            .and_then(|san| san.to_move(&pos).ok());
        assert!(check.is_some_and(|m| Edge::new(&pos, m, 0, no_games()).san() == "Bb4"));
    }

    #[test]
    fn hand_written_epd_and_san_agree_with_shakmaty() {
        use shakmaty::fen::Epd;
        let mut checked = 0;
        crate::replay::random_walk(7, 60, 100, |pos| {
            for m in pos.legal_moves() {
                let edge = Edge::new(pos, m, 0, no_games());
                let mut epd = String::new();
                edge.write_epd(&mut epd);
                assert_eq!(
                    epd,
                    Epd::from_position(pos, EnPassantMode::Legal).to_string()
                );
                assert_eq!(edge.san(), SanPlus::from_move(pos.clone(), m).to_string());
                assert_eq!(unpack_move(pack_move(m)), m.to_uci(CastlingMode::Standard));
                checked += 1;
            }
        });
        assert!(checked > 100_000, "{checked}");
    }

    #[test]
    fn records_round_trip_through_run_files() {
        let rows = tree_of(
            &[
                ("e4 c5 Nf3", facts(GameResult::Draw, (1500, 1600), 2024)),
                ("e4 c5 Nc3", GameFacts::default()),
                ("e4 e5", facts(GameResult::WhiteWins, (70_000, 1600), 2024)),
            ],
            20,
        );
        let mut lengths = Vec::new();
        for (key, edge) in rows {
            let mut bytes = Vec::new();
            edge.encode(&key, &mut bytes);
            lengths.push(bytes.len());
            bytes.push(99);
            assert_eq!(Edge::decode(&bytes), Some(((key, edge), &[99u8][..])));
            assert_eq!(Edge::decode(&bytes[..bytes.len() - 2]), None);
        }
        // Three games share e4 and two c5; e5 has an Elo too large for the
        // short record; Nf3 and Nc3 are rows of one game.
        lengths.sort_unstable();
        assert_eq!(lengths, vec![63, 63, 126, 126, 126]);
    }

    #[test]
    fn a_row_of_one_game_holds_its_facts_and_boxes_its_sums_with_the_second() {
        let rows = tree_of(
            &[
                ("e4 c5", facts(GameResult::Draw, (1500, 1600), 2024)),
                ("e4 e5", facts(GameResult::BlackWins, (1700, 1800), 2023)),
                ("d4", GameFacts::default()),
                ("c4", facts(GameResult::WhiteWins, (70_000, 1600), 2024)),
            ],
            20,
        );
        let start = position_key(&Chess::default());
        let row = |san: &str| {
            rows.iter()
                .find(|(key, edge)| key.position == start && edge.san() == san)
                .map(|(_, edge)| edge)
                .unwrap_or_else(|| panic!("no {san} from the start"))
        };
        let e4 = row("e4");
        assert!(e4.is_boxed());
        let s = e4.stats();
        assert_eq!(
            (s.results.games, s.results.draws, s.results.black_wins),
            (2, 1, 1)
        );
        assert_eq!((s.elo.white_sum, s.elo.black_count), (3200, 2));
        assert_eq!((s.first_year, s.last_year), (Some(2023), Some(2024)));
        // Unknown facts fit the small form; a rating past u16 does not.
        let d4 = row("d4");
        assert!(!d4.is_boxed());
        assert_eq!(d4.stats(), {
            let mut one = EdgeStats::default();
            one.add_game(&GameFacts::default(), 0);
            one
        });
        let c4 = row("c4");
        assert!(c4.is_boxed());
        assert_eq!(c4.stats().elo.white_sum, 70_000);
        assert!(rows.iter().filter(|(_, e)| !e.is_boxed()).count() >= 3);
    }

    proptest::proptest! {
        /// However a row holds its games, its sums are those of
        /// EdgeStats, game by game and combined.
        #[test]
        fn one_game_rows_sum_as_edge_stats_do(
            games in proptest::collection::vec(
                (0u8..5, proptest::option::of(0u32..70_000), proptest::option::of(0u32..3000),
                 proptest::option::of(1900u16..u16::MAX), 0u16..300),
                1..6,
            ),
        ) {
            let facts: Vec<(GameFacts, u16)> = games
                .iter()
                .map(|&(result, white_elo, black_elo, year, ply)| {
                    let result = [GameResult::WhiteWins, GameResult::Draw, GameResult::BlackWins, GameResult::Unfinished]
                        .get(usize::from(result))
                        .copied();
                    (GameFacts { result, white_elo, black_elo, year, dims: Dimensions::default() }, ply)
                })
                .collect();
            let mut expected = EdgeStats::default();
            let mut edges: Vec<Edge> = Vec::new();
            for (game, ply) in &facts {
                expected.add_game(game, *ply);
                edges.push(Edge { tally: Tally::of_game(game, *ply), ..Edge::made_up(1, 1, 0, 2000) });
            }
            let mut one_by_one = edges[0].clone();
            for (game, ply) in facts.iter().skip(1) {
                one_by_one.add_game(game, *ply);
            }
            let mut combined = edges[0].clone();
            for edge in edges.iter().skip(1) {
                combined.combine(edge.clone());
            }
            proptest::prop_assert_eq!(one_by_one.stats(), expected);
            proptest::prop_assert_eq!(combined.stats(), expected);
            let key = EdgeKey { position: 3, mv: 1, dims: Dimensions::default() };
            for edge in edges.iter().chain([&one_by_one]) {
                let mut record = Vec::new();
                edge.encode(&key, &mut record);
                let decoded = Edge::decode(&record).map(|((_, e), _)| e.stats());
                proptest::prop_assert_eq!(decoded, Some(edge.stats()));
            }
        }
    }

    #[test]
    fn a_san_of_eight_bytes_is_written_wide() {
        let edge = Edge {
            san: *b"Qa1xb2+!",
            ..Edge::made_up(9, 1, 3, 2020)
        };
        let key = EdgeKey {
            position: 7,
            mv: 3,
            dims: Dimensions::default(),
        };
        let mut bytes = Vec::new();
        edge.encode(&key, &mut bytes);
        assert_eq!(bytes.len(), 64);
        assert_eq!(Edge::decode(&bytes), Some(((key, edge), &[][..])));
    }
}
