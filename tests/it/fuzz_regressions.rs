//! The fuzz harnesses of `pgnlake::fuzzing`, run on known inputs: every file
//! of `sample-data/`, `tests/fuzz-regressions/` (where each input a fuzzer
//! or a fault test found goes) and, when present, the parser test inputs of
//! `../shared/data/edge/`. The harnesses assert their own invariants (every
//! framed game accounted for once, repaired moves legal).

use crate::common;

use std::path::{Path, PathBuf};

use pgnlake::fuzzing::{
    RepairInput, ReplayInput, StartInput, TokenInput, import_bytes, repair_movetext, replay_tokens,
};

fn manifest(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

#[test]
fn import_harness_accounts_for_every_game_of_the_known_inputs() {
    let mut inputs = common::files_under(&manifest("sample-data"));
    inputs.extend(common::files_under(&manifest("tests/fuzz-regressions")));
    if let Some(shared) = common::shared_data() {
        let edge = common::files_under(&shared.join("edge"));
        inputs.extend(
            edge.into_iter()
                .filter(|p| p.extension().is_some_and(|e| e == "pgn")),
        );
    } else {
        eprintln!("NOTICE: ../shared/data is absent; edge inputs skipped");
    }
    let mut total = 0;
    for input in &inputs {
        let bytes = std::fs::read(input).unwrap_or_default();
        let (framed, accepted, rejected) = import_bytes(&bytes);
        assert_eq!(framed, accepted + rejected, "{}", input.display());
        total += framed;
    }
    assert!(total >= 91, "{total}");
}

#[test]
fn replay_and_repair_harnesses_hold_on_hand_made_inputs() {
    let legal = |n: u16| TokenInput::Legal(n);
    for start in [
        StartInput::Standard,
        StartInput::Setup {
            index: 0,
            chess960: false,
        },
        StartInput::Setup {
            index: 3,
            chess960: true,
        },
        StartInput::Fen {
            text: String::new(),
            chess960: false,
        },
        StartInput::Fen {
            text: "8/8/8/8/8/8/8/8 w - - 0 1".into(),
            chess960: true,
        },
    ] {
        replay_tokens(&ReplayInput {
            start,
            tokens: (0..300)
                .map(legal)
                .chain([TokenInput::San("Qxh9".into())])
                .collect(),
        });
    }
    for movetext in [
        "1. e2e4 e7e5 2. Ng1-f3 Nb8c6 3. 0-0 *",
        "1. e4 e5 2. Sf3 Sc6 3. Lb5 a6 *",
        "1. 炮二平五 马8进7 *",
        "( ( ( { $$$ ; \u{0}",
    ] {
        for start in 0..=6 {
            repair_movetext(&RepairInput {
                start,
                movetext: movetext.into(),
            });
        }
    }
}
