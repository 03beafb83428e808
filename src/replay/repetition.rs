//! Replay stage, repetition: the position history of a game, a cheap filter
//! that rules most positions out as repeats, counts by position key once the
//! positions since the last zeroing move are many (so a game's cost stays
//! linear in its length), the draw rules watched move by move, and the
//! perpetual-check test.

use std::collections::HashMap;

use shakmaty::{Move, Position};

use super::EndState;
use super::keyhash::KeyHasher;

/// Plies since the last zeroing move up to which a repeat is counted by
/// scanning the earlier positions (after the filter let it through); past
/// them by the counts kept per position key. Real games seldom go this far
/// without a capture or a pawn move, and short windows scan as cheaply as
/// they hash (a window of 64 cost 1 % more replay work on engine games).
const SCAN_WINDOW: usize = 256;

/// Occurrences of each position key since the last zeroing move, by the
/// parity of its ply (index 0: even plies).
type Counts = HashMap<u64, [u32; 2], KeyHasher>;

/// What the repetition and move-count rules saw through a game: the first
/// threefold repetition and fifty-move plies, the first automatic end
/// (fivefold repetition, 75 moves) and the final position's repetitions.
pub(super) struct DrawWatch {
    /// Where the positions that can still recur begin in the history.
    pub window_start: usize,
    seen: SeenFilter,
    /// The occurrences since `window_start`, kept once the window is longer
    /// than [`SCAN_WINDOW`]: the scan would make a long game quadratic.
    counts: Option<Counts>,
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
            counts: None,
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
            // Dropped rather than cleared: clearing costs its capacity.
            self.counts = None;
        }
        // Most positions are new: a 256-bit filter of hash bytes since the
        // last zeroing move skips the scan for them. A long window keeps
        // counts instead.
        let repetitions = match &mut self.counts {
            Some(counts) => count_in(counts, hash, current),
            None if self.seen.insert(hash) => 1,
            None => 1 + count_earlier(history, self.window_start, current),
        };
        if self.counts.is_none() && current - self.window_start >= SCAN_WINDOW {
            self.counts = Some(counts_since(history, self.window_start));
        }
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

/// Adds the position of ply `current` to `counts`: its occurrences with
/// the same side to move since the window's start, itself included.
fn count_in(counts: &mut Counts, hash: u64, current: usize) -> u32 {
    let slot = &mut counts.entry(hash).or_default()[current % 2];
    *slot += 1;
    *slot
}

/// The counts of the positions `history[window_start..]`.
fn counts_since(history: &[u64], window_start: usize) -> Counts {
    let window = history.get(window_start..).unwrap_or_default();
    let mut counts = Counts::with_capacity_and_hasher(window.len(), KeyHasher);
    for (offset, &hash) in window.iter().enumerate() {
        count_in(&mut counts, hash, window_start + offset);
    }
    counts
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

#[cfg(test)]
mod tests {
    use super::*;

    /// What the rules count, by the definition: the positions since the
    /// last zeroing move equal to the current one, with the same side to
    /// move, the current one included.
    fn repetitions_by_definition(history: &[u64], window_start: usize) -> u32 {
        let current = history.len() - 1;
        let target = history[current];
        (window_start..=current)
            .filter(|&i| (current - i).is_multiple_of(2) && history[i] == target)
            .count() as u32
    }

    #[test]
    fn counts_agree_with_the_definition_over_long_windows() {
        // Few distinct keys (many repeats), zeroing moves now and then, so
        // windows both short (scanned) and far past SCAN_WINDOW (counted).
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut history = vec![7u64];
        let mut watch = DrawWatch::start(7, 0, || false);
        let mut window_start = 0;
        let (mut threefold, mut fivefold) = (None, None);
        let mut counted_plies = 0;
        for ply in 1..=20_000u32 {
            let r = next();
            // Runs of a few hundred plies without a zeroing move.
            let irreversible = r % 300 == 0;
            let keys = if r % 7 == 0 { 40 } else { 6 };
            history.push((r >> 16) % keys);
            if irreversible {
                window_start = history.len() - 1;
            }
            watch.after_move(&history, ply, 1, irreversible, || false);
            let expected = repetitions_by_definition(&history, window_start);
            assert_eq!(watch.final_repetitions, expected, "ply {ply}");
            assert_eq!(watch.window_start, window_start);
            counted_plies += usize::from(watch.counts.is_some());
            if expected >= 3 && threefold.is_none() {
                threefold = Some(ply);
            }
            if expected >= 5 && fivefold.is_none() {
                fivefold = Some(ply);
            }
        }
        assert_eq!(watch.threefold_first_ply, threefold);
        assert_eq!(watch.automatic_end_ply, fivefold);
        // Both ways of counting were asked, many times.
        assert!(
            counted_plies > 1000 && counted_plies < 19_000,
            "{counted_plies}"
        );
    }
}
