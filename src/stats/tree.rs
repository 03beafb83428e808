//! Statistics stage, opening tree: for each (position, move) within the first
//! plies of accepted standard-start games, and each speed, rating band and
//! month of those games, the games, results, ratings and years. Keyed by
//! position, so move orders that transpose meet in one node. This file
//! walks a game's window into rows; the rows are [`super::tree_row`]'s,
//! held and spilled by [`super::partitioned`].

use shakmaty::Move;

use super::first_moves::FirstMoves;
use super::partitioned::{InMemory, TreePart, TreeRuns};
pub(crate) use super::tree_row::GameFacts;
use super::tree_row::{Edge, EdgeKey, pack_move};

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
    first_moves: &'s FirstMoves,
    /// The first error keeping a game's first moves.
    error: Option<std::io::Error>,
    visits: Vec<Visit>,
    /// The game's rows: key, first ply.
    edges: Vec<(EdgeKey, usize)>,
}

impl<'s> OpeningTree<'s> {
    /// `plies`: the window (moves 1..=plies count); `budget`: bytes. Each
    /// game's first moves go to `first_moves`, to spell its rows later.
    pub fn new(
        plies: usize,
        budget: usize,
        runs: &'s TreeRuns,
        first_moves: &'s FirstMoves,
    ) -> Self {
        OpeningTree {
            plies,
            map: TreePart::new(budget, runs),
            first_moves,
            error: None,
            visits: Vec::with_capacity(plies),
            edges: Vec::with_capacity(plies),
        }
    }

    /// Adds a standard-start game: `keys[ply]` is the position key after
    /// `ply` plies, `moves[ply]` the move played from it.
    pub(crate) fn add_game(&mut self, keys: &[u64], moves: &[Move], game: &GameFacts) {
        let window = self.plies.min(moves.len());
        if window == 0 {
            return;
        }
        if let Err(e) = self.first_moves.put(game.game_id, &moves[..window]) {
            self.error.get_or_insert(e);
        }
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
        // Each row's key once, for the lookups ahead and the upserts.
        self.edges.clear();
        self.edges.extend(self.visits.iter().filter_map(|visit| {
            let m = *moves.get(visit.last_move)?;
            let key = EdgeKey {
                position: visit.key,
                mv: pack_move(m),
                dims: game.dims,
            };
            Some((key, visit.first_ply))
        }));
        self.map.prefetch(self.edges.iter().map(|(key, _)| key));
        for &(key, first_ply) in &self.edges {
            // The window is at most u16::MAX plies (`--opening-plies`).
            let ply = u16::try_from(first_ply).unwrap_or(u16::MAX);
            self.map.upsert(
                key,
                || Edge::of_game(game, ply),
                |edge| edge.add_game(game, ply),
            );
        }
    }

    /// The rows left in memory; the first spill error, or the first error
    /// keeping a game's first moves.
    pub fn finish(self) -> std::io::Result<InMemory> {
        match self.error {
            Some(e) => Err(std::io::Error::new(
                e.kind(),
                format!("{}: {e}", self.first_moves.path().display()),
            )),
            None => self.map.finish(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::result::GameResult;
    use crate::replay::openings::position_key;
    use crate::stats::dimensions::Dimensions;
    use crate::stats::partitioned::SortedTree;
    use crate::stats::tree_row::{EdgeStats, unpack_move};
    use shakmaty::san::San;
    use shakmaty::{Chess, Position};

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

    /// The tree of `games`, the i-th with game id i, and the store of their
    /// first moves.
    fn tree_and_moves(
        games: &[(&str, GameFacts)],
        plies: usize,
        dir: &std::path::Path,
    ) -> (Vec<(EdgeKey, Edge)>, FirstMoves) {
        let runs = TreeRuns::new(dir.join("spill"));
        let first_moves = FirstMoves::new(dir.join("first-moves"), plies);
        let mut tree = OpeningTree::new(plies, 1 << 20, &runs, &first_moves);
        for (i, (sans, facts)) in games.iter().enumerate() {
            let (keys, moves) = game(sans);
            let facts = GameFacts {
                game_id: i as u64,
                ..*facts
            };
            tree.add_game(&keys, &moves, &facts);
        }
        let memory = tree.finish().unwrap_or_else(|e| panic!("{e}"));
        let rows = SortedTree::new(vec![memory], &runs, 1, 1 << 20)
            .and_then(|mut tree| tree.all_rows())
            .unwrap_or_else(|e| panic!("{e}"));
        (rows, first_moves)
    }

    fn tree_of(games: &[(&str, GameFacts)], plies: usize) -> Vec<(EdgeKey, Edge)> {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        tree_and_moves(games, plies, dir.path()).0
    }

    fn facts(result: GameResult, elos: (u32, u32), year: u16) -> GameFacts {
        GameFacts {
            game_id: 0,
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
        assert_eq!(edge.stats().game_id, 0);
    }

    #[test]
    fn a_row_names_the_earliest_game_the_best_rated_and_the_latest() {
        let rows = tree_of(
            &[
                ("e4 e5 Nf3 Nc6", facts(GameResult::Draw, (1500, 1600), 2024)),
                ("Nf3 e5 e4 Nc6", facts(GameResult::Draw, (2500, 2600), 2024)),
                ("e4 e5 Nf3", GameFacts::default()),
            ],
            20,
        );
        let (keys, moves) = game("e4 e5 Nf3 Nc6");
        let after = |ply: usize| {
            rows.iter()
                .find(|(k, _)| k.position == keys[ply] && k.mv == pack_move(moves[ply]))
                .map(|(_, e)| e.stats())
                .unwrap_or_else(|| panic!("no row after {ply} plies"))
        };
        // e4 from the start: games 0 and 2 at ply 0; only game 0 has both
        // ratings; game 2 is the latest.
        let s = after(0);
        assert_eq!((s.results.games, s.ply, s.game_id), (2, 0, 0));
        assert_eq!((s.top, s.last), (Some((3100, 0)), 2));
        let s = after(2);
        assert_eq!((s.results.games, s.ply, s.game_id), (2, 2, 0));
        // Nc6 after the transposition: games 0 and 1, both at ply 3; the
        // witness is the lower id, the top game the higher-rated.
        let s = after(3);
        assert_eq!((s.results.games, s.ply, s.game_id), (2, 3, 0));
        assert_eq!((s.top, s.last), (Some((5100, 1)), 1));
    }

    #[test]
    fn rows_of_two_games_are_spelled_from_their_witness_and_rows_of_one_are_not() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (rows, first_moves) = tree_and_moves(
            &[
                ("d4 Nf6 c4 e6 Nc3", GameFacts::default()),
                ("c4 e6 d4 Nf6 Nc3 Bb4", GameFacts::default()),
            ],
            20,
            dir.path(),
        );
        let (keys, _) = game("d4 Nf6 c4 e6");
        let (key, edge) = rows
            .iter()
            .find(|(k, _)| k.position == keys[4])
            .unwrap_or_else(|| panic!("no Nc3 row"));
        let s = edge.stats();
        assert_eq!((s.results.games, s.ply, s.game_id), (2, 4, 0));
        let pos = first_moves
            .position(s.game_id, s.ply)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(position_key(&pos), key.position);
        let m = unpack_move(key.mv)
            .to_move(&pos)
            .unwrap_or_else(|e| panic!("{e}"));
        let spelled = crate::stats::tree_row::Spelling::of(&pos, m);
        assert_eq!(spelled.san(), "Nc3");
        let mut epd = String::new();
        spelled.write_epd(&mut epd);
        assert_eq!(
            epd,
            "rnbqkb1r/pppp1ppp/4pn2/8/2PP4/8/PP2PPPP/RNBQKBNR w KQkq -"
        );
        let mut after = pos.clone();
        after.play_unchecked(m);
        assert_eq!(spelled.next, position_key(&after));
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
        // Three games share e4 and two c5 (each with a top game); e5 has
        // an Elo too large for the short record; Nf3 and Nc3 are rows of
        // one game.
        lengths.sort_unstable();
        assert_eq!(lengths, vec![30, 30, 125, 125, 125]);
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
        let row = |uci: &str| {
            rows.iter()
                .find(|(key, _)| key.position == start && unpack_move(key.mv).to_string() == uci)
                .map(|(_, edge)| edge)
                .unwrap_or_else(|| panic!("no {uci} from the start"))
        };
        let e4 = row("e2e4");
        assert!(e4.is_boxed());
        let s = e4.stats();
        assert_eq!(
            (s.results.games, s.results.draws, s.results.black_wins),
            (2, 1, 1)
        );
        assert_eq!((s.elo.white_sum, s.elo.black_count), (3200, 2));
        assert_eq!((s.first_year, s.last_year), (Some(2023), Some(2024)));
        // Unknown facts fit the small form; a rating past u16 does not.
        let d4 = row("d2d4");
        assert!(!d4.is_boxed());
        assert_eq!(d4.stats(), {
            let mut one = EdgeStats::default();
            one.add_game(
                &GameFacts {
                    game_id: 2,
                    ..GameFacts::default()
                },
                0,
            );
            one
        });
        let c4 = row("c2c4");
        assert!(c4.is_boxed());
        assert_eq!(c4.stats().elo.white_sum, 70_000);
        assert!(rows.iter().filter(|(_, e)| !e.is_boxed()).count() >= 3);
    }
}
