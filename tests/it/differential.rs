//! Differential test against python-chess: every game of real archives is
//! replayed by both tools and compared game by game (accepted or not,
//! plies, end state, threefold repetition and fifty-move rule at the end).
//! The known differences, where pgnlake is right by design, are pinned on a
//! fixture (`tests/oracle/differences.pgn`), so any new disagreement fails.

use crate::common;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use common::{Imported, import, run_oracle};
use pgnlake::pgn::framer::{Batch, Framer};

/// One game as a tool saw it: `ok` with its facts, or the reason it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Verdict {
    Ok {
        plies: u32,
        end_state: String,
        threefold: bool,
        fifty: bool,
    },
    /// pgnlake's reject reason, or python-chess's `error` / `raised`.
    Failed(String),
}

fn pgnlake_verdicts(run: &Imported) -> BTreeMap<u64, Verdict> {
    let games = run.table("games");
    let rejects = run.table("rejects");
    let mut verdicts = BTreeMap::new();
    for row in 0..games.height() {
        let index = common::u64_at(&games, "game_index", row).unwrap_or_default();
        verdicts.insert(
            index,
            Verdict::Ok {
                plies: common::u32_at(&games, "plies", row).unwrap_or_default(),
                end_state: common::str_at(&games, "end_state", row).unwrap_or_default(),
                threefold: common::bool_at(&games, "threefold_final", row).unwrap_or_default(),
                fifty: common::bool_at(&games, "fifty_final", row).unwrap_or_default(),
            },
        );
    }
    for row in 0..rejects.height() {
        let index = common::u64_at(&rejects, "game_index", row).unwrap_or_default();
        let reason = common::str_at(&rejects, "reason", row).unwrap_or_default();
        verdicts.insert(index, Verdict::Failed(reason));
    }
    verdicts
}

fn python_verdicts(pgn: &Path) -> BTreeMap<u64, Verdict> {
    run_oracle("differential.py", &[pgn.as_os_str()])
        .iter()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let [index, ref verdict @ ..] = fields[..] else {
                return None;
            };
            Some((index.parse().unwrap_or_default(), python_verdict(verdict)?))
        })
        .collect()
}

/// status, plies, end state, threefold, fifty of an oracle line.
fn python_verdict(fields: &[&str]) -> Option<Verdict> {
    let [status, plies, end_state, threefold, fifty, ..] = fields[..] else {
        return None;
    };
    Some(match status {
        "ok" => Verdict::Ok {
            plies: plies.parse().unwrap_or_default(),
            end_state: end_state.to_owned(),
            threefold: threefold == "1",
            fifty: fifty == "1",
        },
        other => Verdict::Failed(other.to_owned()),
    })
}

type Disagreement = (u64, Option<Verdict>, Option<Verdict>);

/// Games on which the two tools disagree: (index, pgnlake, python-chess).
fn disagreements(pgn: &Path) -> Vec<Disagreement> {
    compare(pgn).0
}

/// The disagreements and the number of games python-chess read.
fn compare(pgn: &Path) -> (Vec<Disagreement>, usize) {
    let run = import(&[pgn.to_path_buf()], 2);
    let ours = pgnlake_verdicts(&run);
    let theirs = python_verdicts(pgn);
    assert!(!ours.is_empty());
    let indexes: std::collections::BTreeSet<u64> =
        ours.keys().chain(theirs.keys()).copied().collect();
    let found = indexes
        .into_iter()
        .filter_map(|i| {
            let (a, b) = (ours.get(&i).cloned(), theirs.get(&i).cloned());
            (a != b && !dead_where_python_sees_no_end(&a, &b)).then_some((i, a, b))
        })
        .collect();
    (found, theirs.len())
}

/// python-chess has no dead-position test beyond material: where pgnlake
/// proves a final position dead, python-chess sees the rule below it in
/// the order (none, fivefold, 75 moves), everything else equal.
fn dead_where_python_sees_no_end(ours: &Option<Verdict>, theirs: &Option<Verdict>) -> bool {
    match (ours, theirs) {
        (
            Some(Verdict::Ok {
                plies,
                end_state,
                threefold,
                fifty,
            }),
            Some(Verdict::Ok {
                plies: their_plies,
                end_state: their_end,
                threefold: their_threefold,
                fifty: their_fifty,
            }),
        ) => {
            end_state == "dead_position"
                && ["none", "fivefold_repetition", "seventyfive_moves"]
                    .contains(&their_end.as_str())
                && (plies, threefold, fifty) == (their_plies, their_threefold, their_fifty)
        }
        _ => false,
    }
}

fn accepted(plies: u32, end_state: &str) -> Option<Verdict> {
    Some(Verdict::Ok {
        plies,
        end_state: end_state.to_owned(),
        threefold: false,
        fifty: false,
    })
}

fn failed(reason: &str) -> Option<Verdict> {
    Some(Verdict::Failed(reason.to_owned()))
}

/// The documented differences (README, "Compared with python-chess"), each
/// pinned: pgnlake rejects what python-chess reads past.
#[test]
fn the_known_differences_are_exactly_these() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/differences.pgn");
    assert_eq!(
        disagreements(&fixture),
        [
            // python-chess skips a token it cannot read and plays on.
            (1, failed("unknown_token"), accepted(4, "none")),
            // python-chess plays `--` as a null move.
            (2, failed("null_move"), accepted(4, "none")),
            // python-chess reads `a8Q`, a promotion without `=`.
            (3, failed("unparsable_san"), accepted(1, "none")),
            // python-chess raises on an empty FEN tag.
            (5, failed("invalid_fen"), failed("raised")),
            // Both refuse the illegal move (python-chess logs an error).
            (6, failed("illegal_move"), failed("error")),
        ]
    );
}

/// A corpus file (the test is ignored without `../shared/data`; run
/// anyway, it fails naming what is missing).
fn corpus(name: &str) -> PathBuf {
    let path = common::corpus_data().join("corpus").join(name);
    assert!(path.is_file(), "{} is missing", path.display());
    path
}

fn assert_no_disagreement(pgn: &Path, expected_games: usize) {
    let (found, games) = compare(pgn);
    assert!(
        found.is_empty(),
        "{}: {} disagreements, first: {:?}",
        pgn.display(),
        found.len(),
        found.iter().take(5).collect::<Vec<_>>()
    );
    assert_eq!(games, expected_games, "{}", pgn.display());
}

#[test]
#[cfg_attr(shared_data_absent, ignore = "needs ../shared/data")]
fn twic0920_agrees_game_by_game() {
    let pgn = corpus("twic0920.pgn");
    assert_no_disagreement(&pgn, 2245);
}

#[test]
#[cfg_attr(shared_data_absent, ignore = "needs ../shared/data")]
fn the_lichess_sample_agrees_game_by_game() {
    let pgn = corpus("lichess-2025-05-sample.pgn");
    assert_no_disagreement(&pgn, 438);
}

/// The first `games` games of a compressed archive, framed by pgnlake's own
/// framer, written to a plain file for both tools.
fn first_games(archive: &Path, games: usize, out: &Path) {
    let reader =
        pgnlake::input::decompress(std::fs::File::open(archive).unwrap_or_else(|e| panic!("{e}")));
    let mut framer = Framer::new(reader);
    let mut file =
        std::io::BufWriter::new(std::fs::File::create(out).unwrap_or_else(|e| panic!("{e}")));
    let (mut id, mut written) = (0, 0);
    while written < games {
        let mut batch = Batch::default();
        let more = framer
            .fill_batch(&mut batch, &mut id, 1 << 20, games - written)
            .unwrap_or(false);
        if !more {
            break;
        }
        for game in &batch.games {
            file.write_all(batch.game_bytes(game))
                .and_then(|()| file.write_all(b"\n\n"))
                .unwrap_or_else(|e| panic!("{e}"));
            written += 1;
        }
    }
    file.flush().unwrap_or_else(|e| panic!("{e}"));
}

#[test]
#[cfg_attr(shared_data_absent, ignore = "needs ../shared/data")]
fn the_first_20000_pgnmentor_games_agree_game_by_game() {
    let archive = corpus("pgnmentor-players.pgn.zst");
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let pgn = dir.path().join("pgnmentor-20000.pgn");
    first_games(&archive, 20_000, &pgn);
    assert_no_disagreement(&pgn, 20_000);
}

/// A final position as both tools can be compared on it: the halfmove
/// clock left out (python-chess does not reset it on a pawn drop, shakmaty
/// does, as python-chess's own `is_zeroing` says) and the pieces in hand
/// sorted (the two write them in different orders).
fn comparable_fen(fen: &str) -> String {
    let mut fields: Vec<String> = fen.split(' ').map(str::to_owned).collect();
    if let Some(board) = fields.first_mut()
        && let Some((placement, pocket)) = board.split_once('[')
    {
        let mut pieces: Vec<char> = pocket.trim_end_matches(']').chars().collect();
        pieces.sort_unstable();
        *board = format!("{placement}[{}]", pieces.into_iter().collect::<String>());
    }
    // Halfmove clock: the second-last field.
    let halfmove = fields.len().saturating_sub(2);
    fields.remove(halfmove);
    fields.join(" ")
}

/// One game of the variant fixture as a tool saw it: the verdict, the final
/// position and the result the board proves.
type VariantVerdict = (Verdict, String, String);

fn pgnlake_variant_verdicts(run: &Imported) -> BTreeMap<u64, VariantVerdict> {
    let games = run.table("games");
    let mut verdicts: BTreeMap<u64, VariantVerdict> = pgnlake_verdicts(run)
        .into_iter()
        .map(|(index, verdict)| (index, (verdict, "-".to_owned(), "*".to_owned())))
        .collect();
    for row in 0..games.height() {
        let index = common::u64_at(&games, "game_index", row).unwrap_or_default();
        if let Some(entry) = verdicts.get_mut(&index) {
            entry.1 = comparable_fen(&common::str_at(&games, "final_fen", row).unwrap_or_default());
            entry.2 = common::str_at(&games, "result_by_rule", row).unwrap_or_else(|| "*".into());
        }
    }
    verdicts
}

fn python_variant_verdicts(pgn: &Path) -> BTreeMap<u64, VariantVerdict> {
    let positions = std::ffi::OsStr::new("--positions");
    run_oracle("differential.py", &[pgn.as_os_str(), positions])
        .iter()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let [index, ref verdict @ .., fen, result] = fields[..] else {
                return None;
            };
            let status = verdict.first().copied().unwrap_or_default();
            let verdict = python_verdict(verdict)?;
            let fen = if status == "ok" {
                comparable_fen(fen)
            } else {
                "-".to_owned()
            };
            Some((
                index.parse().unwrap_or_default(),
                (verdict, fen, result.to_owned()),
            ))
        })
        .collect()
}

/// The lichess variants, game by game against python-chess's
/// `chess.variant` boards: acceptance, plies, end state (a variant's own
/// end, seen from the side to move), repetition, the final position with
/// its pockets and check counters, and the result the board proves.
#[test]
fn the_variant_fixture_agrees_with_chess_variant_game_by_game() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data/variants.pgn");
    let run = import(std::slice::from_ref(&fixture), 2);
    let ours = pgnlake_variant_verdicts(&run);
    let theirs = python_variant_verdicts(&fixture);
    assert_eq!(ours.len(), 25);
    assert_eq!(theirs.len(), 25);
    let differences: Vec<(u64, String, String)> = ours
        .iter()
        .filter_map(|(index, mine)| {
            let other = theirs.get(index);
            (Some(mine) != other).then(|| (*index, format!("{mine:?}"), format!("{other:?}")))
        })
        .collect();
    let failed_as = |index: u64| {
        differences
            .iter()
            .find(|(i, _, _)| *i == index)
            .map(|(_, mine, other)| (mine.clone(), other.clone()))
    };
    // Both refuse the illegal moves (a drop in Atomic, a king capture, a
    // capture skipped in Antichess); python-chess raises on Shogi.
    for (index, ours, theirs) in [
        (22, "illegal_move", "error"),
        (23, "illegal_move", "error"),
        (24, "illegal_move", "error"),
        (25, "unsupported_variant", "raised"),
    ] {
        let (mine, other) = failed_as(index).unwrap_or_default();
        assert!(
            mine.contains(ours) && other.contains(theirs),
            "{index}: {mine} / {other}"
        );
    }
    let unexpected: Vec<_> = differences.iter().filter(|(i, _, _)| *i < 22).collect();
    assert!(unexpected.is_empty(), "{unexpected:#?}");
}
