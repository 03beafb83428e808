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

use std::collections::hash_map::Entry;
use std::collections::{HashMap, VecDeque};

use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, Color, EnPassantMode, Move, Position, Role, Square};

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

/// The deepest helpmate the guided search tries, in plies.
const GUIDED_DEPTH: u32 = 24;

/// Whether `winner` can checkmate from `pos`, within `nodes` positions
/// visited: first a guided search for a short helpmate (half the budget),
/// then every reachable position, breadth first (the rest).
pub fn can_mate(pos: &Chess, winner: Color, nodes: u64) -> Verdict {
    if mated_by(pos, winner) {
        return Verdict::Winnable(Vec::new());
    }
    if pos.has_insufficient_material(winner) {
        return Verdict::Unwinnable;
    }
    let mut guided = Guided {
        winner,
        left: nodes / 2,
        failed: HashMap::new(),
        line: Vec::new(),
    };
    if let Some(line) = guided.search(pos) {
        return Verdict::Winnable(line);
    }
    exhaustive(pos, winner, nodes - nodes / 2 + guided.left)
}

/// `pos` is checkmate, delivered by `winner`.
fn mated_by(pos: &Chess, winner: Color) -> bool {
    pos.turn() != winner && pos.is_checkmate()
}

fn key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// Once `winner` has too little material and no pawn is left on the board,
/// nothing can give it more: no mate lies past this position.
fn hopeless(pos: &Chess, winner: Color) -> bool {
    pos.board().pawns().is_empty() && pos.has_insufficient_material(winner)
}

/// Iterative deepening over cooperative lines, the moves most likely to
/// lead to a mate tried first.
struct Guided {
    winner: Color,
    left: u64,
    /// Positions searched to this many plies without a mate.
    failed: HashMap<u64, u32>,
    line: Vec<Move>,
}

impl Guided {
    fn search(&mut self, pos: &Chess) -> Option<Vec<Move>> {
        for depth in 1..=GUIDED_DEPTH {
            match self.dive(pos, depth) {
                Some(true) => return Some(std::mem::take(&mut self.line)),
                Some(false) => {}
                None => return None,
            }
        }
        None
    }

    /// Some(true): a helpmate within `depth` plies (in `line`); Some(false):
    /// none; None: out of budget.
    fn dive(&mut self, pos: &Chess, depth: u32) -> Option<bool> {
        self.left = self.left.checked_sub(1)?;
        if mated_by(pos, self.winner) {
            return Some(true);
        }
        // The last move of a helpmate is the winner's.
        let plies_needed = if pos.turn() == self.winner { 1 } else { 2 };
        if depth < plies_needed || hopeless(pos, self.winner) {
            return Some(false);
        }
        let key = key(pos);
        if self.failed.get(&key).is_some_and(|&d| d >= depth) {
            return Some(false);
        }
        let mut moves: Vec<(i32, Move)> = pos
            .legal_moves()
            .into_iter()
            .map(|m| (self.score(pos, m), m))
            .collect();
        moves.sort_by_key(|&(score, _)| std::cmp::Reverse(score));
        for (_, m) in moves {
            let mut next = pos.clone();
            next.play_unchecked(m);
            self.line.push(m);
            if self.dive(&next, depth - 1)? {
                return Some(true);
            }
            self.line.pop();
        }
        self.failed.insert(key, depth);
        Some(false)
    }

    /// Higher first. The winner checks, promotes and closes in on the
    /// loser's king; the loser keeps the winner's pieces on the board and
    /// walks its king to an edge, where mates are.
    fn score(&self, pos: &Chess, m: Move) -> i32 {
        let board = pos.board();
        let loser = !self.winner;
        let Some(loser_king) = board.king_of(loser) else {
            return 0;
        };
        if pos.turn() == self.winner {
            let mut score = -10 * distance(m.to(), loser_king);
            if let Some(promotion) = m.promotion() {
                score += if promotion == Role::Queen { 300 } else { 100 };
            }
            let mut after = pos.clone();
            after.play_unchecked(m);
            if after.is_check() {
                score += 200;
            }
            score
        } else {
            let mut score = 0;
            if m.is_capture() {
                score -= 300;
            }
            if m.role() == Role::King {
                score += 20 - 10 * edge_distance(m.to());
            }
            score
        }
    }
}

/// King steps between two squares.
fn distance(a: Square, b: Square) -> i32 {
    i32::try_from(a.distance(b)).unwrap_or(i32::MAX)
}

/// Steps from a square to the nearest edge.
fn edge_distance(sq: Square) -> i32 {
    let (file, rank) = (sq.file().to_u32(), sq.rank().to_u32());
    let (file, rank) = (file.min(7) as i32, rank.min(7) as i32);
    file.min(7 - file).min(rank).min(7 - rank)
}

/// Every position reachable from `pos`, breadth first: a mate by `winner`
/// gives its line (the shortest), none at all proves the position
/// unwinnable for `winner`.
fn exhaustive(pos: &Chess, winner: Color, nodes: u64) -> Verdict {
    // Each position's parent and the move from it; the root has none.
    let mut parents: HashMap<u64, Option<(u64, Move)>> = HashMap::new();
    let mut queue = VecDeque::new();
    let root = key(pos);
    parents.insert(root, None);
    queue.push_back((pos.clone(), root));
    let mut left = nodes;
    while let Some((current, current_key)) = queue.pop_front() {
        let Some(rest) = left.checked_sub(1) else {
            return Verdict::Undetermined;
        };
        left = rest;
        for m in current.legal_moves() {
            let mut next = current.clone();
            next.play_unchecked(m);
            let next_key = key(&next);
            let Entry::Vacant(slot) = parents.entry(next_key) else {
                continue;
            };
            slot.insert(Some((current_key, m)));
            if mated_by(&next, winner) {
                return Verdict::Winnable(line_to(&parents, next_key));
            }
            if !hopeless(&next, winner) {
                queue.push_back((next, next_key));
            }
        }
    }
    Verdict::Unwinnable
}

/// The moves from the root to the position `key`.
fn line_to(parents: &HashMap<u64, Option<(u64, Move)>>, mut key: u64) -> Vec<Move> {
    let mut line = Vec::new();
    while let Some(Some((parent, m))) = parents.get(&key) {
        line.push(*m);
        key = *parent;
    }
    line.reverse();
    line
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
