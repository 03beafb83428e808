//! Per-game material columns against an independent python-chess
//! implementation of the README's definitions (`tests/oracle/material.py`):
//! signature, material, differences at the checkpoints, largest leads, the
//! first endgame and the bishop pairs, game by game.

use crate::common;

use std::path::Path;

use common::{bool_at, i32_at, import, sample, str_at, u32_at};

fn cell<T: ToString>(value: Option<T>) -> String {
    value.map_or("-".to_owned(), |v| v.to_string())
}

fn ours(pgn: &Path) -> Vec<String> {
    let games = import(&[pgn.to_path_buf()], 2).table("games");
    (0..games.height())
        .map(|i| {
            let mut fields = vec![
                cell(str_at(&games, "final_material", i)),
                cell(i32_at(&games, "white_material", i)),
                cell(i32_at(&games, "black_material", i)),
                cell(i32_at(&games, "material_diff", i)),
            ];
            for ply in [20, 40, 60, 80] {
                fields.push(cell(i32_at(&games, &format!("material_diff_at_{ply}"), i)));
            }
            fields.extend([
                cell(i32_at(&games, "max_white_lead", i)),
                cell(i32_at(&games, "max_black_lead", i)),
                cell(u32_at(&games, "endgame_ply", i)),
                cell(str_at(&games, "endgame_signature", i)),
                cell(bool_at(&games, "bishop_pair_white", i).map(u8::from)),
                cell(bool_at(&games, "bishop_pair_black", i).map(u8::from)),
            ]);
            fields.join("\t")
        })
        .collect()
}

fn oracle(pgn: &Path) -> Vec<String> {
    common::run_oracle("material.py", &[pgn.as_os_str()])
}

fn assert_same(pgn: &Path) -> usize {
    let (ours, expected) = (ours(pgn), oracle(pgn));
    assert_eq!(ours.len(), expected.len(), "{}", pgn.display());
    for (i, (a, b)) in ours.iter().zip(&expected).enumerate() {
        assert_eq!(a, b, "{} game {}", pgn.display(), i + 1);
    }
    ours.len()
}

#[test]
fn material_of_the_sample_games_equals_python_chess() {
    // Files where every game is accepted, so that games line up.
    assert_eq!(assert_same(&sample("lichess-2025-05-30games.pgn")), 30);
    assert_eq!(assert_same(&sample("results.pgn")), 23);
    assert_eq!(assert_same(&sample("openings.pgn")), 6);
}

#[test]
#[cfg_attr(shared_data_absent, ignore = "needs ../shared/data")]
fn material_of_a_corpus_file_equals_python_chess() {
    let data = common::corpus_data();
    assert_eq!(
        assert_same(&data.join("corpus/lichess-2025-05-sample.pgn")),
        438
    );
}
