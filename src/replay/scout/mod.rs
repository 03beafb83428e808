//! Replay stage, search: scoutfish's JSON queries (positions, material,
//! moves, sequences and streaks) read once and tested on a game's
//! positions as it is replayed; the scan over an import's games is
//! `read::search`'s.

pub mod game;
pub mod prefilter;
pub mod query;
pub mod rules;

pub use game::{decided_at_start, search_game};
pub use prefilter::Prefilter;
pub use query::{BadQuery, Condition, Query};
pub use rules::{ResultCode, Rule};
