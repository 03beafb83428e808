//! pgnlake: PGN archives in, verified Parquet tables out.
//!
//! The pipeline, in the order data flows: [`input`] opens and decompresses,
//! [`pgn`] frames, parses and audits tokens, [`replay`] proves legality and
//! outcomes, [`stats`] counts, [`sink`] writes tables. [`import`] drives them;
//! [`cmd`] and [`cli`] are the command line.

pub mod clean;
pub mod cli;
pub mod cmd;
pub mod dedupe;
pub mod explore;
pub mod game;
pub mod import;
pub mod input;
pub mod pgn;
pub mod pipeline;
pub mod query;
pub mod repair;
pub mod replay;
pub mod sink;
pub mod stats;
