//! Statistics stage, the opening tree's row: an edge (a position, a move
//! played from it, and the speed, rating band and month of the games
//! counted) and what its games add up to, held small for a row of one
//! game. Run files, the tree's gather and merge all move these rows.

use shakmaty::packed::PackedUciMove;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Move};

use crate::pgn::result::GameResult;
use crate::replay::openings::stored_key;
use crate::stats::counts::{Counts, Ratings};
use crate::stats::dimensions::Dimensions;

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
    /// sorting the rows without moving rows of 48 bytes about.
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

/// What one game contributes besides its moves.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct GameFacts {
    /// The game's `game_id`: what a row of one game holds instead of its
    /// spelling, and what top and latest games name.
    pub game_id: u64,
    /// The result counted: see [`counted_result`](crate::check::counted_result).
    pub result: Option<GameResult>,
    pub white_elo: Option<u32>,
    pub black_elo: Option<u32>,
    pub year: Option<u16>,
    /// The speed, rating band and month the game counts under.
    pub dims: Dimensions,
}

impl GameFacts {
    /// What orders top games: the sum of both ratings, when both are known.
    fn elo_sum(&self) -> Option<u64> {
        Some(u64::from(self.white_elo?) + u64::from(self.black_elo?))
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
    /// The earliest ply at which a game of the row reached the position.
    pub ply: u16,
    /// The witness: the game of the least (`ply`, game id), whose first
    /// `ply` moves reach the position (the row is spelled from it).
    pub game_id: u64,
    /// The best-rated game: the greatest (both ratings' sum, game id) of
    /// the games with both ratings.
    pub top: Option<(u64, u64)>,
    /// The first game: the least game id (what a move's first game is
    /// read from).
    pub first: u64,
    /// The latest game: the greatest game id.
    pub last: u64,
}

impl Default for EdgeStats {
    /// No game: the identity of [`EdgeStats`]'s `+=`.
    fn default() -> Self {
        EdgeStats {
            results: Counts::default(),
            elo: Ratings::default(),
            first_year: None,
            last_year: None,
            ply: u16::MAX,
            game_id: u64::MAX,
            top: None,
            first: u64::MAX,
            last: 0,
        }
    }
}

impl EdgeStats {
    pub(crate) fn add_game(&mut self, game: &GameFacts, ply: u16) {
        self.results.add_game(game.result);
        self.elo.add_game(game.white_elo, game.black_elo);
        self.add_year(game.year, game.year);
        self.add_witness(ply, game.game_id);
        self.top = self.top.max(game.elo_sum().map(|sum| (sum, game.game_id)));
        self.first = self.first.min(game.game_id);
        self.last = self.last.max(game.game_id);
    }

    fn add_year(&mut self, first: Option<u16>, last: Option<u16>) {
        self.first_year = min_some(self.first_year, first);
        self.last_year = self.last_year.max(last);
    }

    fn add_witness(&mut self, ply: u16, game_id: u64) {
        (self.ply, self.game_id) = (self.ply, self.game_id).min((ply, game_id));
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
        self.add_witness(other.ply, other.game_id);
        self.top = self.top.max(other.top);
        self.first = self.first.min(other.first);
        self.last = self.last.max(other.last);
    }
}

/// A row of the tree: what its games add up to. It holds no text: a row
/// is spelled (EPD, SAN, the next position's key) only when it is written
/// with two games or more, from its witness game's first moves
/// ([`super::Spelling`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edge {
    pub(super) tally: Tally,
}

/// What an edge's games add up to, held small: a row of one game (97 % of
/// the rows of a tree of online games) keeps that game's facts inline, a
/// row of more games its sums in a box. The boxes are counted in the
/// tree's memory budget.
#[derive(Debug, Clone)]
pub(super) enum Tally {
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

/// A year unknown, in [`OneGame`] and in a run file's record.
pub(super) const NO_YEAR: u16 = u16::MAX;
/// A rating unknown, in [`OneGame`].
pub(super) const NO_ELO: u16 = u16::MAX;

/// A game as a row of one game holds it, as a run file's short record does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct OneGame {
    pub(super) game_id: u64,
    /// 0: unfinished or no result; 1 white wins, 2 draw, 3 black wins.
    pub(super) result: u8,
    /// [`NO_ELO`] when unknown.
    pub(super) white_elo: u16,
    pub(super) black_elo: u16,
    /// [`NO_YEAR`] when unknown.
    pub(super) year: u16,
    pub(super) ply: u16,
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
            game_id: game.game_id,
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
        let one = OneGame {
            game_id: s.game_id,
            result,
            white_elo: elo(s.elo.white_sum, s.elo.white_count)?,
            black_elo: elo(s.elo.black_sum, s.elo.black_count)?,
            year: s.first_year.unwrap_or(NO_YEAR),
            ply: s.ply,
        };
        // The top, first and latest game of one game are that game.
        (one.stats() == *s).then_some(one)
    }

    fn stats(&self) -> EdgeStats {
        // An unknown rating adds nothing to the sum, as to the count.
        let known = |e: u16| (e != NO_ELO).then_some(u64::from(e));
        let year = (self.year != NO_YEAR).then_some(self.year);
        let (white, black) = (known(self.white_elo), known(self.black_elo));
        EdgeStats {
            results: Counts {
                games: 1,
                white_wins: u64::from(self.result == 1),
                draws: u64::from(self.result == 2),
                black_wins: u64::from(self.result == 3),
            },
            elo: Ratings {
                white_sum: white.unwrap_or(0),
                white_count: u64::from(white.is_some()),
                black_sum: black.unwrap_or(0),
                black_count: u64::from(black.is_some()),
            },
            first_year: year,
            last_year: year,
            ply: self.ply,
            game_id: self.game_id,
            top: white.zip(black).map(|(w, b)| (w + b, self.game_id)),
            first: self.game_id,
            last: self.game_id,
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

    pub(super) fn from_stats(stats: EdgeStats) -> Tally {
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

impl Edge {
    /// The edge's first game, played at `ply`.
    pub(crate) fn of_game(game: &GameFacts, ply: u16) -> Edge {
        Edge {
            tally: Tally::of_game(game, ply),
        }
    }

    /// A row of these sums (read back from a table or a run file).
    pub(crate) fn of_stats(stats: EdgeStats) -> Edge {
        Edge {
            tally: Tally::from_stats(stats),
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

    /// The earliest ply at which a game of the row reached the position.
    pub(crate) fn ply(&self) -> u16 {
        match &self.tally {
            Tally::One(game) => game.ply,
            Tally::Many(stats) => stats.ply,
        }
    }

    /// Whether the sums are in a box on the heap (bytes besides the row).
    pub(crate) fn is_boxed(&self) -> bool {
        matches!(self.tally, Tally::Many(_))
    }

    /// Adds one more game to the row.
    pub(crate) fn add_game(&mut self, game: &GameFacts, ply: u16) {
        self.tally.add(|sums| sums.add_game(game, ply));
    }

    /// Adds another part's row of the same key.
    pub(crate) fn combine(&mut self, from: Edge) {
        match &from.tally {
            Tally::One(game) => self.tally.add(|sums| *sums += &game.stats()),
            Tally::Many(stats) => self.tally.add(|sums| *sums += stats),
        }
    }
}

/// The move of an edge key.
pub(crate) fn unpack_move(mv: u16) -> UciMove {
    PackedUciMove::from_bytes(mv.to_le_bytes()).unpack()
}

/// The edge key's form of a move written in UCI (a table's `move_uci`);
/// None unless it is a move of standard chess.
pub(crate) fn pack_uci(text: &str) -> Option<u16> {
    match UciMove::from_ascii(text.as_bytes()).ok()? {
        uci @ UciMove::Normal { .. } => Some(pack_uci_move(uci)),
        UciMove::Put { .. } | UciMove::Null => None,
    }
}

/// The edge key's form of a move.
pub(crate) fn pack_move(m: Move) -> u16 {
    pack_uci_move(m.to_uci(CastlingMode::Standard))
}

/// A UCI move as 2 bytes (never 0: a move has two different squares).
fn pack_uci_move(uci: UciMove) -> u16 {
    u16::from_le_bytes(PackedUciMove::pack(uci).to_bytes())
}

#[cfg(test)]
impl Edge {
    /// A row of `games` games (all white wins in `year`, the latest
    /// `seed`), reached first at `ply` by game `seed`.
    pub(crate) fn made_up(seed: u64, games: u64, ply: u16, year: u16) -> Edge {
        Edge::of_stats(EdgeStats {
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
            game_id: seed,
            top: None,
            first: seed,
            last: seed,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TimeClass;
    use shakmaty::Position;

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

    #[test]
    fn moves_pack_and_unpack() {
        let mut checked = 0;
        crate::replay::random_walk(3, 60, 20, |pos| {
            for m in pos.legal_moves() {
                assert_eq!(unpack_move(pack_move(m)), m.to_uci(CastlingMode::Standard));
                checked += 1;
            }
        });
        assert!(checked > 1000, "{checked}");
    }

    #[test]
    fn a_row_past_u32_max_games_adds_up() {
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
    }

    proptest::proptest! {
        /// However a row holds its games, its sums are those of
        /// EdgeStats, game by game and combined.
        #[test]
        fn one_game_rows_sum_as_edge_stats_do(
            games in proptest::collection::vec(
                (0u8..5, proptest::option::of(0u32..70_000), proptest::option::of(0u32..3000),
                 proptest::option::of(1900u16..u16::MAX), 0u16..300, 0u64..1 << 40),
                1..6,
            ),
        ) {
            let facts: Vec<(GameFacts, u16)> = games
                .iter()
                .map(|&(result, white_elo, black_elo, year, ply, game_id)| {
                    let result = [GameResult::WhiteWins, GameResult::Draw, GameResult::BlackWins, GameResult::Unfinished]
                        .get(usize::from(result))
                        .copied();
                    (GameFacts { game_id, result, white_elo, black_elo, year, dims: Dimensions::default() }, ply)
                })
                .collect();
            let mut expected = EdgeStats::default();
            let mut edges: Vec<Edge> = Vec::new();
            for (game, ply) in &facts {
                expected.add_game(game, *ply);
                edges.push(Edge::of_game(game, *ply));
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
}
