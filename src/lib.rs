//! pgnlake: PGN archives in, verified Parquet tables out.
//!
//! The stages, in the order data flows (each uses only the ones before it):
//! [`input`] opens, decompresses and checks the sources, [`pgn`] frames,
//! parses and audits tokens, [`replay`] proves legality and outcomes,
//! [`stats`] counts, [`sink`] writes tables and files; below them all,
//! [`model`] holds the dimensions' types (speed, month, rating band). Above them:
//! [`check`] is the per-game path import and clean share, [`pipeline`] the
//! ordered parallel engine, [`error`] the run error; the commands are
//! [`import`], [`clean`], [`read`] (`query`, `explore`) and [`report`]
//! (charts of an import, on `read`); [`cmd`] wires
//! them to the command line ([`cli`]) and maps outcomes to exit codes.
//!
//! Everything that touches polars (the Parquet tables, SQL, the commands)
//! sits behind the default feature `tables`; without it the crate is the
//! per-game path alone (framing, parsing, replay, audit, aggregates, repair),
//! which is what the fuzz targets build.
//!
//! Items used only inside the crate are `pub(crate)`, so that the compiler
//! reports the next one nobody uses; `pub` is what the binary, the
//! integration tests and the fuzz targets reach.

// Without `tables` most of the crate has no caller (only `fuzzing` does):
// dead code is reported for the full build, where it means something.
#![cfg_attr(not(feature = "tables"), allow(dead_code))]

pub mod check;
pub mod clean;
#[cfg(feature = "tables")]
pub mod cli;
#[cfg(feature = "tables")]
pub mod cmd;
pub mod error;
#[cfg(feature = "tables")]
pub mod export;
pub mod fuzzing;
#[cfg(feature = "tables")]
pub mod import;
pub mod input;
pub mod interrupt;
pub mod jobs;
#[cfg(feature = "tables")]
pub mod lake;
pub mod model;
pub mod pgn;
#[cfg(feature = "tables")]
pub mod pipeline;
pub mod profile;
#[cfg(feature = "tables")]
pub mod read;
pub mod replay;
#[cfg(feature = "tables")]
pub mod report;
#[cfg(feature = "tables")]
pub mod serve;
pub mod sink;
pub mod stats;
