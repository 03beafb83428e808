//! Statistics stage, opening tree: for each (position, move) within the first
//! plies of accepted standard-start games, and each speed, rating band and
//! month of those games, the games, results, ratings and years. Keyed by
//! position, so move orders that transpose meet in one node. This file
//! walks a game's window into rows; the rows are [`super::tree_row`]'s,
//! held and spilled by [`super::partitioned`].

use shakmaty::{Chess, Move, Position};

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
                || Edge::of_game(walk.at(first_ply), m, next, game, ply),
                |edge| edge.add_game(game, ply),
            );
        }
    }

    /// The rows left in memory; the first spill error.
    pub fn finish(self) -> std::io::Result<InMemory> {
        self.map.finish()
    }
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
    use crate::pgn::result::GameResult;
    use crate::replay::openings::position_key;
    use crate::stats::dimensions::Dimensions;
    use crate::stats::partitioned::SortedTree;
    use crate::stats::tree_row::{EdgeStats, unpack_move};
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

    fn tree_of(games: &[(&str, GameFacts)], plies: usize) -> Vec<(EdgeKey, Edge)> {
        let runs = TreeRuns::new(std::path::PathBuf::from("unused"));
        let mut tree = OpeningTree::new(plies, 1 << 20, &runs);
        for (sans, facts) in games {
            let (keys, moves) = game(sans);
            tree.add_game(&keys, &moves, facts);
        }
        let memory = tree.finish().unwrap_or_else(|e| panic!("{e}"));
        SortedTree::new(vec![memory], &runs, 1, 1 << 20)
            .and_then(|mut tree| tree.all_rows())
            .unwrap_or_else(|e| panic!("{e}"))
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
}
