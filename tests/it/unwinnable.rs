//! The unwinnability procedure against CHA's labelled positions
//! (`../shared/data/unwinnable/cha-test-vectors.txt`, 902 positions, many of
//! them hard): every answer that is not `undetermined` must agree with CHA,
//! never `unwinnable` where CHA knows a helpmate, and every helpmate must
//! replay legally to a checkmate by the side asked about. At `NODES` (the
//! CLI default) 1.5 % of the 1,722 answers were `undetermined` when it was
//! set (15 where CHA knows a helpmate, 11 where CHA says dead), about 40 ms
//! per side.

use crate::common;

use pgnlake::replay::unwinnable::{Verdict, can_mate};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, Position};

/// The budget per side and position here, the CLI default: the helpmate
/// hunt and the exhaustive walk share it.
const NODES: u64 = 700_000;

fn replays_to_mate(pos: &Chess, winner: Color, line: &[shakmaty::Move]) -> bool {
    let mut pos = pos.clone();
    for &m in line {
        if !pos.is_legal(m) {
            return false;
        }
        pos.play_unchecked(m);
    }
    pos.turn() != winner && pos.is_checkmate()
}

#[test]
fn every_verdict_agrees_with_cha_and_every_helpmate_mates() {
    let Some(data) = common::shared_data() else {
        eprintln!("skipped: ../shared/data is absent");
        return;
    };
    let text = std::fs::read_to_string(data.join("unwinnable/cha-test-vectors.txt"))
        .unwrap_or_else(|e| panic!("{e}"));
    let (mut answered, mut undetermined, mut positions) = (0u32, 0u32, 0u32);
    let mut disagreements = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && l.len() > 3) {
        let (label, fen) = line.split_at(2);
        // A few vectors need Chess960 castling or are not legal chess.
        let Some(pos) = Fen::from_ascii(fen.trim().as_bytes())
            .ok()
            .and_then(|f| f.into_position::<Chess>(CastlingMode::Chess960).ok())
        else {
            continue;
        };
        positions += 1;
        for (side, cha_says_can) in [
            (Color::White, label.starts_with('W')),
            (Color::Black, label.ends_with('B')),
        ] {
            match can_mate(&pos, side, NODES) {
                Verdict::Winnable(helpmate) => {
                    assert!(
                        replays_to_mate(&pos, side, &helpmate),
                        "{fen} {side:?}: {helpmate:?}"
                    );
                    answered += 1;
                    if !cha_says_can {
                        disagreements.push(format!("{label}{fen} {side:?} winnable"));
                    }
                }
                Verdict::Unwinnable => {
                    answered += 1;
                    if cha_says_can {
                        disagreements.push(format!("{label}{fen} {side:?} unwinnable"));
                    }
                }
                Verdict::Undetermined => undetermined += 1,
            }
        }
    }
    assert!(disagreements.is_empty(), "{disagreements:#?}");
    eprintln!(
        "{positions} positions: {answered} answers agree with CHA, {undetermined} undetermined ({:.1} %)",
        100.0 * f64::from(undetermined) / f64::from(2 * positions)
    );
    assert!(positions > 850);
}
