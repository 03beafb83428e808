//! Replay stage, unwinnability: can a side still checkmate by some sequence
//! of legal moves of both sides (a helpmate)? The question behind FIDE 5.2.2
//! (a dead position ends the game) and 6.9 (a flag fall is a draw when the
//! opponent cannot mate "by any possible series of legal moves").
//!
//! Sound by construction: `Winnable` comes with a helpmate that replays to a
//! checkmate, `Unwinnable` only from shakmaty's material rule (which
//! promises that no position with that material can be won), from the
//! static analysis of locked pawns (`blocked`, every set it builds an
//! over-approximation) or from a search that visited every position
//! reachable from this one without meeting a mate (`search`); anything
//! else is `Undetermined` when the node budget runs out.

use shakmaty::{Chess, Color, Move, Position};

/// The answer for one side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// These moves, from the position, end with the side checkmating.
    Winnable(Vec<Move>),
    /// No sequence of legal moves lets the side checkmate.
    Unwinnable,
    /// The node budget ran out before either was shown.
    Undetermined,
}

impl Verdict {
    pub fn as_str(&self) -> &'static str {
        match self {
            Verdict::Winnable(_) => "winnable",
            Verdict::Unwinnable => "unwinnable",
            Verdict::Undetermined => "undetermined",
        }
    }
}

mod blocked;
mod search;

/// Whether `winner` can checkmate from `pos`, within `nodes` positions
/// visited. First what needs no search: a mate on the board, the material
/// rule, pawns locked for good (the only stage when `nodes` is 0). Then a
/// helpmate hunt on 30 % of the budget (most winnable positions fall to it
/// in a few thousand nodes), then every reachable position, breadth first,
/// on the rest (it proves the dead positions whose space is small enough,
/// and measured on CHA's vectors it pays more there than in the hunt).
pub fn can_mate(pos: &Chess, winner: Color, nodes: u64) -> Verdict {
    if mated_by(pos, winner) {
        return Verdict::Winnable(Vec::new());
    }
    if pos.has_insufficient_material(winner) || blocked::is_dead_for(pos, winner) {
        return Verdict::Unwinnable;
    }
    if nodes == 0 {
        return Verdict::Undetermined;
    }
    let hunt = nodes / 10 * 3;
    let mut helpmate = search::Helpmate::new(pos, winner, hunt);
    if let Some(line) = helpmate.search(pos) {
        return Verdict::Winnable(line);
    }
    search::exhaustive(pos, winner, nodes - hunt + helpmate.left())
}

/// `pos` is checkmate, delivered by `winner`.
fn mated_by(pos: &Chess, winner: Color) -> bool {
    pos.turn() != winner && pos.is_checkmate()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(fen: &str) -> Chess {
        crate::replay::test_position(fen)
    }

    /// The helpmate replays legally and ends with `winner` mating.
    fn replays_to_mate(pos: &Chess, winner: Color, line: &[Move]) -> bool {
        let mut pos = pos.clone();
        for &m in line {
            if !pos.is_legal(m) {
                return false;
            }
            pos.play_unchecked(m);
        }
        mated_by(&pos, winner)
    }

    #[test]
    fn helpmates_are_found_and_replay() {
        for (fen, winner) in [
            // The start position: a fool's mate for black, a helpmate for white.
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                Color::Black,
            ),
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                Color::White,
            ),
            // A lone queen mates with the loser's help.
            ("8/8/8/4k3/8/8/3QK3/8 w - - 0 1", Color::White),
        ] {
            let pos = position(fen);
            match can_mate(&pos, winner, 200_000) {
                Verdict::Winnable(line) => {
                    assert!(replays_to_mate(&pos, winner, &line), "{fen}: {line:?}");
                }
                other => panic!("{fen} {winner:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn dead_positions_are_proven() {
        // Material alone: a lone king, king and knight.
        let pos = position("8/8/8/4k3/8/8/3NK3/8 w - - 0 1");
        assert_eq!(can_mate(&pos, Color::White, 1000), Verdict::Unwinnable);
        assert_eq!(can_mate(&pos, Color::Black, 1000), Verdict::Unwinnable);
        // Locked pawns, bishops that can never attack them: every reachable
        // position is visited (CHA's first test vector).
        let pos = position("2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - - 0 1");
        assert_eq!(can_mate(&pos, Color::White, 2_000_000), Verdict::Unwinnable);
        assert_eq!(can_mate(&pos, Color::Black, 2_000_000), Verdict::Unwinnable);
    }

    #[test]
    fn a_small_budget_says_undetermined() {
        // Dead (the rook and the king block each other in the h-file
        // pocket), but only a walk over the reachable positions shows it.
        let pos = position("2k5/6p1/6P1/6PK/6P1/6PR/7P/8 b - - 0 1");
        assert_eq!(can_mate(&pos, Color::White, 100), Verdict::Undetermined);
    }

    #[test]
    fn locked_pawns_and_bishops_are_dead_without_search() {
        for fen in [
            // The bishops never reach the colour of the enemy pawns.
            "2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - - 0 1",
            "8/4kb2/8/1p1p1p1p/1P1P1P1P/1b6/3B1K2/8 b - - 0 1",
            // Kings alone behind a locked chain.
            "8/4k3/8/1p1p1p1p/1P1P1P1P/8/5K2/8 b - - 0 1",
        ] {
            let pos = position(fen);
            for side in [Color::White, Color::Black] {
                assert_eq!(
                    can_mate(&pos, side, 0),
                    Verdict::Unwinnable,
                    "{fen} {side:?}"
                );
            }
        }
    }

    #[test]
    fn no_budget_means_no_search() {
        let start = position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert_eq!(can_mate(&start, Color::White, 0), Verdict::Undetermined);
        // The fool's mate on the board.
        let mated = position("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
        assert_eq!(
            can_mate(&mated, Color::Black, 0),
            Verdict::Winnable(Vec::new())
        );
        assert_eq!(can_mate(&mated, Color::White, 0), Verdict::Undetermined);
    }

    #[test]
    fn a_long_helpmate_is_found() {
        // The pawn has to walk up and promote before any mate: 15 plies at
        // least.
        let pos = position("k7/8/8/8/8/8/P7/7K w - - 0 1");
        match can_mate(&pos, Color::White, 100_000) {
            Verdict::Winnable(line) => {
                assert!(line.len() >= 15, "{line:?}");
                assert!(replays_to_mate(&pos, Color::White, &line), "{line:?}");
            }
            other => panic!("{other:?}"),
        }
    }

    /// A few of CHA's labelled positions (W: white can mate, B: black can).
    #[test]
    fn verdicts_agree_with_cha() {
        for (label, fen) in [
            ("--", "2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - -"),
            ("W-", "Bb1k1b2/bKp1p1p1/1pP1P1P1/pP6/6P1/P7/8/8 w - -"),
            ("WB", "8/1p4p1/1Pp3p1/k1P3p1/1pP3Pb/1P4p1/6P1/7K w - -"),
            ("--", "8/8/8/8/8/1kB5/1B6/BKB5 w - -"),
            ("WB", "8/2pN4/3p4/3k4/r7/8/5K2/8 b - -"),
            ("--", "8/4k3/4p2p/p2pP2P/P2P3K/8/8/8 w - -"),
            ("--", "2k5/2p1p1p1/p1P1P1P1/P1P4K/8/8/8/8 w - -"),
            ("WB", "8/5p1p/k4p2/1p1p1PpP/1P1P2P1/8/8/K7 b - -"),
        ] {
            let pos = position(&format!("{fen} 0 1"));
            for (side, cha_can) in [
                (Color::White, label.starts_with('W')),
                (Color::Black, label.ends_with('B')),
            ] {
                match can_mate(&pos, side, 100_000) {
                    Verdict::Winnable(line) => {
                        assert!(cha_can, "{fen} {side:?}: winnable");
                        assert!(replays_to_mate(&pos, side, &line), "{fen}: {line:?}");
                    }
                    Verdict::Unwinnable => assert!(!cha_can, "{fen} {side:?}: unwinnable"),
                    Verdict::Undetermined => {}
                }
            }
        }
    }
}
