//! The import, on a worker: a batch's games and rejects rows turned into
//! table pieces (polars frames) on the thread that replayed them, so the
//! ordered writer only stacks them.

use polars::prelude::{DataFrame, PolarsResult};

use crate::check::BatchOutput;
use crate::profile::{self, Stage, Timer};
use crate::sink::moves::moves_frame;
use crate::sink::parquet::{games_frame, rejects_frame};
use crate::stats::RunCounts;

/// One batch's rows as table pieces, built on the worker that replayed it.
pub(super) struct BatchTables {
    pub(super) games: DataFrame,
    pub(super) rejects: DataFrame,
    /// With `--moves`.
    pub(super) moves: Option<DataFrame>,
    pub(super) counts: RunCounts,
}

impl BatchTables {
    pub(super) fn new(
        output: BatchOutput,
        names: &[String],
        moves: bool,
    ) -> PolarsResult<BatchTables> {
        let mut timer = Timer::start();
        let tables = BatchTables {
            games: games_frame(&output.games, names)?,
            rejects: rejects_frame(&output.rejects, names)?,
            moves: moves.then(|| moves_frame(&output.moves)).transpose()?,
            counts: output.counts,
        };
        profile::lap(&mut timer, Stage::Rows);
        Ok(tables)
    }
}
