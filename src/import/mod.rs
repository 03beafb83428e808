//! The import, `pgnlake import`: the ordered parallel pipeline
//! ([`crate::pipeline`]) with parse, audit and replay on the workers
//! (`worker`: each batch's rows as table pieces), the statistics aggregated
//! per worker and merged at the end, and the tables written in input order
//! (`tables`), so they are identical whatever the thread count; `run` drives
//! it and writes `summary.json`; `merge` puts the tables of an import's
//! shards (`--shard K/N`) back together.

mod compact;
mod merge;
mod run;
mod tables;
mod worker;

pub use compact::{Compacted, run_compact};
pub use merge::{MergeOptions, read_folder_summary, run_merge};
pub use run::{
    DEFAULT_MEMORY_LIMIT, DEFAULT_OPENING_MIN_GAMES, DEFAULT_OPENING_PLIES, ImportOptions,
    run_import,
};
