//! Replay stage, repetition: the position history of a game, a cheap filter
//! that rules most positions out as repeats, the draw rules watched move by
//! move, and the perpetual-check test.

use shakmaty::{Move, Position};

use super::EndState;

/// What the repetition and move-count rules saw through a game: the first
/// threefold repetition and fifty-move plies, the first automatic end
/// (fivefold repetition, 75 moves) and the final position's repetitions.
pub(super) struct DrawWatch {
    /// Where the positions that can still recur begin in the history.
    pub window_start: usize,
    seen: SeenFilter,
    pub threefold_first_ply: Option<u32>,
    pub fifty_first_ply: Option<u32>,
    pub automatic_end_ply: Option<u32>,
    pub automatic_end: Option<EndState>,
    pub final_repetitions: u32,
}

impl DrawWatch {
    /// The start position: its hash, its halfmove clock and whether it is
    /// already decided (the 75-move rule yields to a checkmate; asked only
    /// past 150 halfmoves).
    #[inline]
    pub(crate) fn start(hash: u64, halfmoves: u32, decided: impl FnOnce() -> bool) -> DrawWatch {
        let mut seen = SeenFilter::default();
        seen.insert(hash);
        let automatic_end_ply = (halfmoves >= 150 && !decided()).then_some(0);
        DrawWatch {
            window_start: 0,
            seen,
            threefold_first_ply: None,
            fifty_first_ply: (halfmoves >= 100).then_some(0),
            automatic_end_ply,
            automatic_end: automatic_end_ply.map(|_| EndState::SeventyfiveMoves),
            final_repetitions: 1,
        }
    }

    /// After the move of `ply`, whose position's hash ends `history`.
    /// `irreversible`: no earlier position can recur. `decided` is asked
    /// only past 150 halfmoves.
    #[inline]
    pub(crate) fn after_move(
        &mut self,
        history: &[u64],
        ply: u32,
        halfmoves: u32,
        irreversible: bool,
        decided: impl FnOnce() -> bool,
    ) {
        let Some((&hash, _)) = history.split_last() else {
            return;
        };
        let current = history.len() - 1;
        if irreversible {
            self.window_start = current;
            self.seen.clear();
        }
        // Most positions are new: a 256-bit filter of hash bytes since the
        // last zeroing move skips the scan for them.
        let repetitions = if self.seen.insert(hash) {
            1
        } else {
            1 + count_earlier(history, self.window_start, current)
        };
        self.final_repetitions = repetitions;
        if repetitions >= 3 && self.threefold_first_ply.is_none() {
            self.threefold_first_ply = Some(ply);
        }
        if halfmoves >= 100 && self.fifty_first_ply.is_none() {
            self.fifty_first_ply = Some(ply);
        }
        if self.automatic_end_ply.is_none()
            && (repetitions >= 5 || (halfmoves >= 150 && !decided()))
        {
            self.automatic_end_ply = Some(ply);
            self.automatic_end = Some(if repetitions >= 5 {
                EndState::FivefoldRepetition
            } else {
                EndState::SeventyfiveMoves
            });
        }
    }

    /// The game's position was dead from `ply` on (`kind`: insufficient
    /// material or a dead position): FIDE 5.2.2 ended it there, unless an
    /// earlier rule already had.
    pub(crate) fn dead_from(&mut self, ply: u32, kind: EndState) {
        if self.automatic_end_ply.is_none_or(|end| ply < end) {
            self.automatic_end_ply = Some(ply);
            self.automatic_end = Some(kind);
        }
    }

    /// A rule that ends the game by itself (fivefold repetition, the
    /// 75-move rule, a dead position) ended it before its last move.
    pub(crate) fn drawn_before(&self, plies: u32) -> bool {
        self.automatic_end_ply.is_some_and(|ply| ply < plies)
    }
}

/// Which top hash bytes occurred since the last zeroing move. `insert`
/// answers true when the byte is new, so the position cannot be a repeat.
#[derive(Default)]
struct SeenFilter([u64; 4]);

impl SeenFilter {
    fn insert(&mut self, hash: u64) -> bool {
        let byte = (hash >> 56) as usize;
        let (word, bit) = (byte / 64, 1u64 << (byte % 64));
        let Some(slot) = self.0.get_mut(word) else {
            return false;
        };
        let new = *slot & bit == 0;
        *slot |= bit;
        new
    }

    fn clear(&mut self) {
        self.0 = [0; 4];
    }
}

/// Occurrences of `history[current]` among earlier positions with the same
/// side to move, since `window_start`.
fn count_earlier(history: &[u64], window_start: usize, current: usize) -> u32 {
    let Some(&target) = history.get(current) else {
        return 0;
    };
    let mut count = 0;
    let mut i = current;
    while i >= window_start + 2 {
        i -= 2;
        if history.get(i) == Some(&target) {
            count += 1;
        }
    }
    count
}

/// The game ends in a repetition (final position seen three times): is every
/// move of one side, from the first occurrence of that position to the end,
/// a check? Re-walks the game, which is rare enough not to track checks on
/// every move.
pub(super) fn is_perpetual(
    history: &[u64],
    window_start: usize,
    start: impl Position,
    moves: &[Move],
) -> bool {
    let Some((&target, _)) = history.split_last() else {
        return false;
    };
    let last = history.len() - 1;
    let first = (window_start..last)
        .find(|&i| (last - i).is_multiple_of(2) && history.get(i) == Some(&target))
        .unwrap_or(last);
    if first == last {
        return false;
    }
    // gave_check[k]: the move of ply k (1-based) gave check.
    let mut pos = start;
    let mut gave_check = Vec::with_capacity(moves.len() + 1);
    gave_check.push(false);
    for &m in moves {
        pos.play_unchecked(m);
        gave_check.push(pos.is_check());
    }
    // Plies first+1..=last alternate between the two sides.
    let all_checks = |offset: usize| {
        (first + 1 + offset..=last)
            .step_by(2)
            .all(|k| gave_check.get(k).copied().unwrap_or(false))
    };
    all_checks(0) || all_checks(1)
}
