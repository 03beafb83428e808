//! The per-game path, `import --moves`: an accepted game's mainline plies
//! as moves rows, the replay's facts of each move joined with what its
//! comments say (clock, move time, evaluation) and its NAGs.

use shakmaty::ByColor;
use shakmaty::variant::VariantPosition;

use crate::pgn::annotations::Annotation;
use crate::replay::Replayer;
use crate::replay::material::PieceValues;
use crate::replay::moves::for_each_move;
use crate::sink::rows::MoveRow;

/// What the moves rows of one game are made of.
pub(super) struct GameMoves<'a> {
    pub game_id: u64,
    pub start: &'a VariantPosition,
    pub chess960: bool,
    /// The `TimeControl` increment, when the tag has a simple one.
    pub increment_ms: Option<i64>,
    /// By ply, in ply order.
    pub annotations: &'a [(u32, Annotation)],
    pub nags: &'a [(u32, u8)],
}

impl GameMoves<'_> {
    /// Appends one row per ply of the game `replayer` replayed last.
    pub(crate) fn push_rows(
        &self,
        replayer: &Replayer,
        values: &PieceValues,
        rows: &mut Vec<MoveRow>,
    ) {
        let keys = replayer.keys();
        let mut annotations = self.annotations.iter().peekable();
        let mut nags = self.nags.iter().peekable();
        // Each side's clock after its previous move (None: not known).
        let mut previous_clock: ByColor<Option<i64>> = ByColor::default();
        for_each_move(
            self.start,
            replayer.moves(),
            self.chess960,
            values,
            |facts| {
                let ply = facts.ply;
                let annotation = annotations
                    .next_if(|(at, _)| *at == ply)
                    .map_or_else(Annotation::default, |(_, a)| *a);
                let mut move_nags = Vec::new();
                while let Some((_, nag)) = nags.next_if(|(at, _)| *at == ply) {
                    move_nags.push(*nag);
                }
                let clock_ms = annotation.clock_ms;
                let previous = std::mem::replace(previous_clock.get_mut(facts.mover), clock_ms);
                let move_time_ms = annotation
                    .move_time_ms
                    .or_else(|| spent(previous, clock_ms, self.increment_ms));
                rows.push(MoveRow {
                    game_id: self.game_id,
                    facts,
                    // The keys start with the start position: one per ply more.
                    position_key: keys[ply as usize - 1],
                    clock_ms,
                    move_time_ms,
                    eval_cp: annotation.eval_cp,
                    eval_mate: annotation.eval_mate,
                    eval_depth: annotation.depth,
                    nags: move_nags,
                });
            },
        );
    }
}

/// Time a move took from the mover's clock before and after it and the
/// increment: `before − after + increment`. Not known without all three,
/// nor when the clock gained more than the increment (time given by the
/// opponent, a clock set by an arbiter).
fn spent(before: Option<i64>, after: Option<i64>, increment: Option<i64>) -> Option<i64> {
    let spent = before?.checked_sub(after?)?.checked_add(increment?)?;
    (spent >= 0).then_some(spent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_time_from_clocks_and_increment() {
        assert_eq!(
            spent(Some(300_000), Some(301_000), Some(3_000)),
            Some(2_000)
        );
        assert_eq!(spent(Some(300_000), Some(290_000), Some(0)), Some(10_000));
        assert_eq!(spent(None, Some(290_000), Some(0)), None);
        assert_eq!(spent(Some(300_000), None, Some(0)), None);
        assert_eq!(spent(Some(300_000), Some(290_000), None), None);
        assert_eq!(spent(Some(300_000), Some(320_000), Some(2_000)), None);
    }
}
