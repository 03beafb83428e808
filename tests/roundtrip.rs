//! Property test: games written as PGN in many layouts (comments that hide
//! blank lines and brackets, variations, NAGs, CRLF, no blank line before the
//! next header) are framed, parsed, audited and replayed back to exactly the
//! moves they were written from.

use pgn_reader::shakmaty::san::San;
use pgn_reader::shakmaty::{CastlingMode, Chess, Position};
use pgnlake::game::process_batch;
use pgnlake::pgn::framer::{Batch, Framer};
use pgnlake::stats::{AggregateOptions, Aggregates, SpillDirs};
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct Layout {
    seed: u64,
    plies: usize,
    comments: bool,
    variations: bool,
    crlf: bool,
    blank_before_next: bool,
}

fn layout() -> impl Strategy<Value = Layout> {
    (
        any::<u64>(),
        0usize..80,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(seed, plies, comments, variations, crlf, blank_before_next)| Layout {
                seed,
                plies,
                comments,
                variations,
                crlf,
                blank_before_next,
            },
        )
}

/// A pseudo-random legal game: its PGN movetext and its moves in UCI.
fn write_game(layout: &Layout) -> (String, Vec<String>) {
    let mut pos = Chess::default();
    let mut seed = layout.seed | 1;
    let mut text = String::new();
    let mut uci = Vec::new();
    for ply in 0..layout.plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let Some(&m) = moves.get((seed % moves.len() as u64) as usize) else {
            break;
        };
        if ply.is_multiple_of(2) {
            text.push_str(&format!("{}. ", ply / 2 + 1));
        }
        text.push_str(&San::from_move(&pos, m).to_string());
        text.push(' ');
        if layout.comments && seed.is_multiple_of(5) {
            // A blank line followed by a full tag pair would end the comment:
            // that is how the framer survives unterminated comments.
            text.push_str("{ a comment with (brackets) ; and\n\n[%clk 0:01:00] [x] } ");
        }
        if layout.variations && seed.is_multiple_of(7) {
            text.push_str("( 1. Nf3 {not replayed} $3 (Nc6) ) ");
        }
        if seed.is_multiple_of(11) {
            text.push_str("$1 !? ");
        }
        if seed.is_multiple_of(13) {
            text.push('\n');
        }
        uci.push(m.to_uci(CastlingMode::Standard).to_string());
        pos.play_unchecked(m);
    }
    text.push('*');
    (text, uci)
}

fn render(layouts: &[Layout]) -> (String, Vec<Vec<String>>) {
    let mut pgn = String::new();
    let mut expected = Vec::new();
    for (i, layout) in layouts.iter().enumerate() {
        let (movetext, uci) = write_game(layout);
        let nl = if layout.crlf { "\r\n" } else { "\n" };
        pgn.push_str(&format!("[Event \"game {i}\"]{nl}[Result \"*\"]{nl}{nl}"));
        pgn.push_str(&movetext.replace('\n', nl));
        pgn.push_str(nl);
        if layout.blank_before_next {
            pgn.push_str(nl);
        }
        expected.push(uci);
    }
    (pgn, expected)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn written_games_come_back_move_for_move(layouts in proptest::collection::vec(layout(), 1..12)) {
        let (pgn, expected) = render(&layouts);
        let mut framer = Framer::new(pgn.as_bytes());
        let mut next_id = 0;
        let mut got = Vec::new();
        let spill = SpillDirs::new(std::path::Path::new("unused"));
        let options = AggregateOptions {
            opening_plies: 20,
            budget: 1 << 20,
            piece_values: Default::default(),
        };
        let mut aggregates = Aggregates::new(options, &spill);
        loop {
            let mut batch = Batch::default();
            // Tiny batches exercise the reader restarting between frames.
            match framer.fill_batch(&mut batch, &mut next_id, 1 << 10, 3) {
                Ok(true) => {}
                _ => break,
            }
            let out = process_batch(&batch, &mut aggregates);
            prop_assert!(out.rejects.is_empty(), "rejected: {:?}", out.rejects.first().map(|r| &r.message));
            got.extend(out.games.into_iter().map(|g| g.replayed.moves_uci));
        }
        let expected: Vec<String> = expected.iter().map(|m| m.join(" ")).collect();
        prop_assert_eq!(got, expected);
    }
}
