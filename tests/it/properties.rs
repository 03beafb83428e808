//! Property tests over whole imports of random games: the tables do not
//! depend on the thread count, on how the aggregates were grouped, spilled
//! and merged (a tiny memory budget spills every few games), or on how the
//! input was split into files — apart from the columns that say where a
//! game was (`source`, `game_index`, `offset`, `line`, `token_line`).

use crate::common;

use std::path::{Path, PathBuf};

use common::games::{layout, render};
use common::table_names;
use polars::prelude::*;
use proptest::prelude::*;

/// Columns that depend on how the input was split into files.
const PLACE_COLUMNS: [&str; 5] = ["source", "game_index", "offset", "line", "token_line"];

fn tables(run: &common::Imported) -> Vec<DataFrame> {
    table_names()
        .map(|name| {
            let frame = run.table(name);
            let keep: Vec<String> = frame
                .get_column_names()
                .into_iter()
                .filter(|c| !PLACE_COLUMNS.contains(&c.as_str()))
                .map(|c| c.to_string())
                .collect();
            frame.select(keep).unwrap_or_else(|e| panic!("{name}: {e}"))
        })
        .collect()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
    path
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 12,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn splitting_threads_and_spilling_do_not_change_the_tables(
        layouts in proptest::collection::vec(layout(), 2..40),
        split in 1usize..6,
    ) {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (whole, _) = render(&layouts);
        let one = write(dir.path(), "all.pgn", &whole);
        // The same games in `split + 1` files (in name order = game order).
        let per_file = layouts.len().div_ceil(split + 1);
        let parts: Vec<PathBuf> = layouts
            .chunks(per_file)
            .enumerate()
            .map(|(i, chunk)| {
                let (text, _) = render(chunk);
                // Re-number the events as in the whole file.
                let offset = i * per_file;
                let text = (0..chunk.len()).rev().fold(text, |t, k| {
                    t.replace(&format!("[Event \"game {k}\"]"), &format!("[Event \"game#{}\"]", k + offset))
                });
                write(dir.path(), &format!("part-{i:02}.pgn"), &text.replace("game#", "game "))
            })
            .collect();

        let reference = common::import_with_moves(std::slice::from_ref(&one), 1, 20, 1 << 30);
        let threads = common::import_with_moves(&[one], 2, 20, 1 << 30);
        let spilled = common::import_with_moves(&parts, 2, 20, 16 << 10);
        let expected = tables(&reference);
        prop_assert_eq!(&tables(&threads), &expected);
        prop_assert_eq!(&tables(&spilled), &expected);
        prop_assert_eq!(reference.summary.games_read, layouts.len() as u64);
    }
}
