//! Archivist mode, `pgnlake clean`: every accepted game written back as
//! standard PGN, every rejected game set aside byte for byte, duplicates
//! found and wrong results fixed with provenance. The notation repair and the
//! duplicate keys need no tables (the fuzz targets build them alone).

pub mod dedupe;
pub mod repair;
#[cfg(feature = "tables")]
mod run;

#[cfg(feature = "tables")]
pub use run::*;
