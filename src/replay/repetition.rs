//! Replay stage, repetition: the position history of a game, a cheap filter
//! that rules most positions out as repeats, and the perpetual-check test.

use shakmaty::{Move, Position};

/// Which top hash bytes occurred since the last zeroing move. `insert`
/// answers true when the byte is new, so the position cannot be a repeat.
#[derive(Default)]
pub(super) struct SeenFilter([u64; 4]);

impl SeenFilter {
    pub(super) fn insert(&mut self, hash: u64) -> bool {
        let byte = (hash >> 56) as usize;
        let (word, bit) = (byte / 64, 1u64 << (byte % 64));
        let Some(slot) = self.0.get_mut(word) else {
            return false;
        };
        let new = *slot & bit == 0;
        *slot |= bit;
        new
    }

    pub(super) fn clear(&mut self) {
        self.0 = [0; 4];
    }
}

/// Occurrences of `history[current]` among earlier positions with the same
/// side to move, since `window_start`.
pub(super) fn count_earlier(history: &[u64], window_start: usize, current: usize) -> u32 {
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
