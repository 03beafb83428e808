//! Sink stage: rows to Parquet tables (streamed in row groups, written under
//! a temporary name and renamed at the end) and the run summary.

#[cfg(feature = "tables")]
pub(crate) mod columns;
pub mod compression;
#[cfg(feature = "tables")]
pub mod encode;
#[cfg(feature = "tables")]
pub mod file;
pub mod lock;
#[cfg(feature = "tables")]
pub mod moves;
#[cfg(feature = "tables")]
pub mod openings;
#[cfg(feature = "tables")]
pub mod outcomes;
#[cfg(feature = "tables")]
pub mod output;
#[cfg(feature = "tables")]
pub mod parquet;
pub mod pgn;
#[cfg(feature = "tables")]
pub mod results;
pub mod rows;
pub mod schema;
pub mod staged;
pub mod summary;
pub mod tables;
