//! Property test: random legal games, from the start position, from random
//! legal FEN positions and from Chess960 arrays, written as PGN with random
//! tags, comments, NAGs, variations and line breaks (CRLF too), are framed,
//! parsed, audited and replayed back to exactly the moves, plies and end
//! state that a direct shakmaty replay gives.

use crate::common;

use common::games::{layout, render};
use pgnlake::check::{BatchModes, process_batch};
use pgnlake::pgn::framer::{Batch, Framer};
use pgnlake::stats::{AggregateOptions, Aggregates, SpillDirs};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 96,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn written_games_come_back_move_for_move(layouts in proptest::collection::vec(layout(), 1..12)) {
        let (pgn, expected) = render(&layouts);
        let mut framer = Framer::new(pgn.as_bytes());
        let mut next_id = 0;
        let mut got = Vec::new();
        let spill = SpillDirs::new(std::path::Path::new("unused"), 20);
        let options = AggregateOptions {
            opening_plies: 20,
            opening_period: Default::default(),
            budget: 1 << 20,
            piece_values: Default::default(),
            unwinnable_nodes: pgnlake::replay::dead::DEFAULT_NODES,
        };
        let mut aggregates = Aggregates::new(options, &spill);
        loop {
            let mut batch = Batch::default();
            // Tiny batches exercise the reader restarting between frames.
            match framer.fill_batch(&mut batch, &mut next_id, 1 << 10, 3) {
                Ok(true) => {}
                _ => break,
            }
            let out = process_batch(&batch, &mut aggregates, BatchModes::default());
            prop_assert!(out.rejects.is_empty(), "rejected: {:?}\n{pgn}", out.rejects.first().map(|r| &r.message));
            got.extend(out.games.into_iter().map(|g| {
                (g.replayed.moves_uci, g.replayed.plies, g.replayed.end_state.as_str())
            }));
        }
        let expected: Vec<(String, u32, &str)> = expected
            .into_iter()
            .map(|e| (e.moves_uci, e.plies, e.end_state))
            .collect();
        prop_assert_eq!(got, expected);
    }
}
