//! Replay stage, unwinnability: can a side still checkmate by some sequence
//! of legal moves of both sides (a helpmate)? The question behind FIDE 5.2.2
//! (a dead position ends the game) and 6.9 (a flag fall is a draw when the
//! opponent cannot mate "by any possible series of legal moves").
//!
//! Sound by construction: `Winnable` comes with a helpmate that replays to a
//! checkmate, `Unwinnable` only from shakmaty's material rule (which
//! promises that no position with that material can be won) or from a search
//! that visited every position reachable from this one without meeting a
//! mate; anything else is `Undetermined` when the node budget runs out.

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
/// helpmate hunt on half the budget (most winnable positions fall to it in
/// a few thousand nodes), then every reachable position, breadth first, on
/// the rest (small position spaces are proven this way).
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
    let mut helpmate = search::Helpmate::new(pos, winner, nodes / 2);
    if let Some(line) = helpmate.search(pos) {
        return Verdict::Winnable(line);
    }
    search::exhaustive(pos, winner, nodes - nodes / 2 + helpmate.left())
}

/// `pos` is checkmate, delivered by `winner`.
fn mated_by(pos: &Chess, winner: Color) -> bool {
    pos.turn() != winner && pos.is_checkmate()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;

    fn position(fen: &str) -> Chess {
        Fen::from_ascii(fen.as_bytes())
            .ok()
            .and_then(|f| f.into_position(CastlingMode::Standard).ok())
            .unwrap_or_else(|| panic!("test FEN {fen}"))
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
        let pos = position("2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - - 0 1");
        assert_eq!(can_mate(&pos, Color::White, 100), Verdict::Undetermined);
    }
}
