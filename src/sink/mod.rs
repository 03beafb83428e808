//! Sink stage: rows to Parquet tables (streamed in row groups, written under
//! a temporary name and renamed at the end) and the run summary.

pub mod openings;
pub mod outcomes;
pub mod parquet;
pub mod pgn;
pub mod results;
pub mod rows;
pub mod summary;
