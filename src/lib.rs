//! pgnlake: PGN archives in, verified Parquet tables out.
//!
//! The pipeline, in the order data flows: [`input`] opens and decompresses,
//! [`pgn`] frames, parses and audits tokens, [`replay`] proves legality and
//! outcomes, [`stats`] counts, [`sink`] writes tables. [`import`] drives them;
//! [`cmd`] and [`cli`] are the command line.
//!
//! Everything that touches polars (the Parquet tables, SQL, the commands)
//! sits behind the default feature `tables`; without it the crate is the
//! per-game path alone (framing, parsing, replay, audit, aggregates, repair),
//! which is what the fuzz targets build.

#[cfg(feature = "tables")]
pub mod clean;
#[cfg(feature = "tables")]
pub mod cli;
#[cfg(feature = "tables")]
pub mod cmd;
pub mod dedupe;
#[cfg(feature = "tables")]
pub mod explore;
pub mod fuzzing;
pub mod game;
#[cfg(feature = "tables")]
pub mod import;
pub mod input;
pub mod interrupt;
pub mod pgn;
#[cfg(feature = "tables")]
pub mod pipeline;
#[cfg(feature = "tables")]
pub mod query;
pub mod repair;
pub mod replay;
pub mod sink;
pub mod stats;
