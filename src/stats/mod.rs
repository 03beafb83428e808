//! Statistics stage: run counters and aggregates that workers fill per batch
//! and that merge with `+=`, so rayon can fold and reduce them in any
//! grouping. Keyed aggregates that can grow with the input spill to disk.

pub mod counts;
pub mod dimensions;
pub mod first_moves;
pub mod lines;
pub mod outcomes;
pub mod partitioned;
pub mod spill;
pub mod tree;
pub mod tree_row;

use std::collections::BTreeMap;
use std::ops::AddAssign;

use crate::pgn::annotations::AnnotationCounts;
use crate::replay::EndState;
use crate::replay::audit::ResultCheck;
use crate::replay::dead::UnwinnableCounts;
use crate::replay::openings::OpeningMatch;
use crate::replay::reject::RejectReason;
use first_moves::FirstMoves;
use lines::OpeningLines;
use outcomes::Outcomes;
use partitioned::TreeRuns;
use spill::SpillDir;
use tree::{GameFacts, OpeningTree};

/// Games read, accepted and rejected, with their breakdowns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunCounts {
    pub read: u64,
    pub accepted: u64,
    pub rejected: u64,
    by_reason: [u64; RejectReason::ALL.len()],
    by_end_state: [u64; EndState::ALL.len()],
    by_result_check: [u64; ResultCheck::ALL.len()],
    /// Clocks, evaluations and move times read from accepted games.
    pub annotations: AnnotationCounts,
    /// The final positions' who-can-mate answers (standard rules only).
    pub unwinnable: UnwinnableCounts,
    /// Accepted games `--repair` mended, and its repairs by kind.
    pub repaired: u64,
    pub repairs: BTreeMap<&'static str, u64>,
}

impl RunCounts {
    pub(crate) fn count_accepted(&mut self, end_state: EndState, check: ResultCheck) {
        self.read += 1;
        self.accepted += 1;
        self.by_end_state[end_state as usize] += 1;
        self.by_result_check[check as usize] += 1;
    }

    pub(crate) fn count_rejected(&mut self, reason: RejectReason) {
        self.read += 1;
        self.rejected += 1;
        self.by_reason[reason as usize] += 1;
    }

    /// `read = accepted + rejected`, the invariant every run prints.
    pub(crate) fn balanced(&self) -> bool {
        self.read == self.accepted + self.rejected
    }

    pub(crate) fn rejected_by_reason(&self) -> BTreeMap<&'static str, u64> {
        named(&RejectReason::ALL, &self.by_reason, |r| r.as_str())
    }

    pub(crate) fn end_states(&self) -> BTreeMap<&'static str, u64> {
        named(&EndState::ALL, &self.by_end_state, |e| e.as_str())
    }

    pub(crate) fn result_checks(&self) -> BTreeMap<&'static str, u64> {
        named(&ResultCheck::ALL, &self.by_result_check, |c| c.as_str())
    }
}

/// Where the aggregates spill when they pass their budget: one folder each.
pub struct SpillDirs {
    pub tree: TreeRuns,
    /// The tree games' first moves, to spell the tree's rows from.
    pub first_moves: FirstMoves,
    pub lines: SpillDir,
    pub results: SpillDir,
    pub endgames: SpillDir,
}

impl SpillDirs {
    /// `DIR/.spill-PID-tree`, `…-lines`, `…-results`, `…-endgames`, and
    /// the file `…-first-moves` of `plies` moves a game.
    pub fn new(dir: &std::path::Path, plies: usize) -> SpillDirs {
        let pid = std::process::id();
        let at = |name: &str| SpillDir::new(dir.join(format!(".spill-{pid}-{name}")));
        SpillDirs {
            tree: TreeRuns::new(dir.join(format!(".spill-{pid}-tree"))),
            first_moves: FirstMoves::new(dir.join(format!(".spill-{pid}-first-moves")), plies),
            lines: at("lines"),
            results: at("results"),
            endgames: at("endgames"),
        }
    }
}

/// What the workers need to know to aggregate.
#[derive(Debug, Clone, Copy)]
pub struct AggregateOptions {
    /// The opening-tree window.
    pub opening_plies: usize,
    /// How finely the opening statistics are split by date.
    pub opening_period: dimensions::OpeningPeriod,
    /// Bytes one worker may hold.
    pub budget: usize,
    pub piece_values: crate::replay::material::PieceValues,
    /// The dead-position search's budget per side of a flagged final
    /// position (`--unwinnable-nodes`).
    pub unwinnable_nodes: u64,
}

/// A worker's aggregates over the accepted games it replayed.
pub struct Aggregates<'s> {
    pub tree: OpeningTree<'s>,
    pub lines: OpeningLines<'s>,
    pub outcomes: Outcomes<'s>,
    pub options: AggregateOptions,
}

impl<'s> Aggregates<'s> {
    /// The opening tree gets seven eighths of the budget; the opening
    /// lines, results and endgame tables (far smaller in practice) the
    /// rest, half of it to the lines.
    pub fn new(options: AggregateOptions, spill: &'s SpillDirs) -> Self {
        let tree_budget = options.budget / 8 * 7;
        let lines_budget = (options.budget - tree_budget) / 2;
        Aggregates {
            tree: OpeningTree::new(
                options.opening_plies,
                tree_budget,
                &spill.tree,
                &spill.first_moves,
            ),
            lines: OpeningLines::new(lines_budget, &spill.lines),
            outcomes: Outcomes::new(
                options.budget - tree_budget - lines_budget,
                options.piece_values,
                &spill.results,
                &spill.endgames,
            ),
            options,
        }
    }

    /// Adds a game from the standard start position: `keys[ply]` is the
    /// position key after `ply` plies, `moves` the mainline.
    pub(crate) fn add_standard_game(
        &mut self,
        keys: &[u64],
        moves: &[shakmaty::Move],
        opening: Option<OpeningMatch>,
        game: &GameFacts,
    ) {
        self.tree.add_game(keys, moves, game);
        if let Some(opening) = opening {
            self.lines
                .add_game(opening.name_id, game, moves.len() as u32);
        }
    }
}

/// Non-zero counters by name.
fn named<T: Copy>(
    all: &[T],
    counts: &[u64],
    name: impl Fn(T) -> &'static str,
) -> BTreeMap<&'static str, u64> {
    all.iter()
        .zip(counts)
        .filter(|(_, n)| **n > 0)
        .map(|(item, n)| (name(*item), *n))
        .collect()
}

impl AddAssign<&RunCounts> for RunCounts {
    fn add_assign(&mut self, other: &RunCounts) {
        self.read += other.read;
        self.accepted += other.accepted;
        self.rejected += other.rejected;
        add_slots(&mut self.by_reason, &other.by_reason);
        add_slots(&mut self.by_end_state, &other.by_end_state);
        add_slots(&mut self.by_result_check, &other.by_result_check);
        self.annotations += &other.annotations;
        self.unwinnable += &other.unwinnable;
        self.repaired += other.repaired;
        for (kind, n) in &other.repairs {
            *self.repairs.entry(kind).or_default() += n;
        }
    }
}

impl AddAssign for RunCounts {
    fn add_assign(&mut self, other: RunCounts) {
        *self += &other;
    }
}

fn add_slots(into: &mut [u64], from: &[u64]) {
    for (a, b) in into.iter_mut().zip(from) {
        *a += b;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The counters are indexed by discriminant: `ALL` must list every
    /// variant in declaration order.
    #[test]
    fn all_lists_follow_declaration_order() {
        assert!(
            EndState::ALL
                .iter()
                .enumerate()
                .all(|(i, e)| *e as usize == i)
        );
        assert!(
            ResultCheck::ALL
                .iter()
                .enumerate()
                .all(|(i, c)| *c as usize == i)
        );
        assert!(
            RejectReason::ALL
                .iter()
                .enumerate()
                .all(|(i, r)| *r as usize == i)
        );
    }

    #[test]
    fn counts_merge_by_addition() {
        let mut a = RunCounts::default();
        a.count_accepted(EndState::Checkmate, ResultCheck::Consistent);
        let mut b = RunCounts::default();
        b.count_rejected(RejectReason::NullMove);
        b.count_accepted(EndState::None, ResultCheck::Consistent);
        a += b;
        assert_eq!((a.read, a.accepted, a.rejected), (3, 2, 1));
        assert!(a.balanced());
        assert_eq!(a.rejected_by_reason().get("null_move"), Some(&1));
        assert_eq!(a.result_checks().get("consistent"), Some(&2));
        assert_eq!(a.end_states().get("checkmate"), Some(&1));
    }
}
