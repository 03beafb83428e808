//! The opening tree against an independent one computed by python-chess
//! (`tests/oracle/opening_tree.py`; `.ci/run` installs python-chess):
//! every (position, move, time class, rating band, month), its games and
//! the row's earliest ply, from each game's `time_class` and ratings in
//! `games.parquet` and its date headers read by python-chess. Our rows are
//! spelled from their games (`common::tree::spell_tree`, which checks the
//! import's own spelling of the rows of two games or more).

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{dates, import_with, sample, str_at, u32_at, u64_at};

/// (EPD, SAN, time class, band, month) → (games, earliest ply).
type Tree = BTreeMap<(String, String, String, String, String), (u64, u32)>;

/// A value as the oracle prints it: `-` for none.
fn shown(value: Option<impl ToString>) -> String {
    value.map_or("-".to_owned(), |v| v.to_string())
}

/// Our tree, and the accepted standard-start games as oracle input lines.
fn ours(pgn: &Path, plies: usize) -> (Tree, Vec<String>) {
    let run = import_with(&[pgn.to_path_buf()], 2, plies, 1 << 30);
    let games = run.table("games");
    let standard: Vec<String> = (0..games.height())
        .filter(|&i| str_at(&games, "start_fen", i).is_none())
        .filter(|&i| common::bool_at(&games, "chess960", i) == Some(false))
        .filter_map(|i| {
            Some(format!(
                "{}\t{}\t{}\t{}",
                u64_at(&games, "game_index", i)?,
                str_at(&games, "time_class", i)?,
                shown(common::i32_at(&games, "white_elo", i)),
                shown(common::i32_at(&games, "black_elo", i)),
            ))
        })
        .collect();
    let tree = run.table("openings");
    let spelled = common::tree::spell_tree(&tree, &games);
    let months = dates(&tree, "month");
    let rows = (0..tree.height())
        .map(|i| {
            (
                (
                    spelled[i].epd.clone(),
                    spelled[i].san.clone(),
                    str_at(&tree, "time_class", i).unwrap_or_default(),
                    shown(common::i32_at(&tree, "rating_band", i)),
                    shown(months.get(i).cloned().flatten()),
                ),
                (
                    u64_at(&tree, "games", i).unwrap_or_default(),
                    u32_at(&tree, "ply", i).unwrap_or_default(),
                ),
            )
        })
        .collect();
    (rows, standard)
}

fn oracle(pgn: &Path, accepted: &[String], plies: usize) -> Tree {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let list_path = dir.path().join("games.tsv");
    let list: String = accepted.iter().map(|line| format!("{line}\n")).collect();
    std::fs::write(&list_path, list).unwrap_or_else(|e| panic!("{e}"));
    let plies = plies.to_string();
    common::run_oracle(
        "opening_tree.py",
        &[pgn.as_os_str(), list_path.as_os_str(), plies.as_ref()],
    )
    .iter()
    .filter_map(|line| {
        let fields: Vec<&str> = line.split('\t').collect();
        let [epd, san, time_class, band, month, games, ply] = fields.as_slice() else {
            return None;
        };
        Some((
            (
                (*epd).to_owned(),
                (*san).to_owned(),
                (*time_class).to_owned(),
                (*band).to_owned(),
                (*month).to_owned(),
            ),
            (games.parse().ok()?, ply.parse().ok()?),
        ))
    })
    .collect()
}

fn assert_same_tree(pgn: &Path, plies: usize) -> usize {
    let (ours, accepted) = ours(pgn, plies);
    let expected = oracle(pgn, &accepted, plies);
    let first_difference = expected
        .iter()
        .find(|(k, v)| ours.get(*k) != Some(*v))
        .or_else(|| ours.iter().find(|(k, v)| expected.get(*k) != Some(*v)));
    assert!(
        first_difference.is_none(),
        "{}: {first_difference:?}",
        pgn.display()
    );
    assert_eq!(ours.len(), expected.len());
    ours.len()
}

#[test]
fn the_tree_of_the_sample_games_equals_python_chess() {
    // Not edge-cases.pgn: python-chess frames its broken games differently,
    // so game numbers do not line up.
    for name in ["lichess-2025-05-30games.pgn", "openings.pgn"] {
        assert!(assert_same_tree(&sample(name), 20) > 10, "{name}");
    }
    assert_same_tree(&sample("lichess-2025-05-30games.pgn"), 7);
}

#[test]
#[cfg_attr(shared_data_absent, ignore = "needs ../shared/data")]
fn the_tree_of_a_corpus_file_equals_python_chess() {
    let data = common::corpus_data();
    let rows = assert_same_tree(&data.join("corpus/twic0920.pgn"), 20);
    // 24,459 (position, move)s, split by speed, rating band and month.
    assert_eq!(rows, 30_966);
}
