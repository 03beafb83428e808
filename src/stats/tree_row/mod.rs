//! Statistics stage, the opening tree's row: the key of an edge (position,
//! move, dimensions), what its games add up to (with the games it names),
//! the position and move spelled out as EPD and SAN when it is written
//! with two games or more, and its run-file record. The worker's table,
//! the run files and the gather ([`super::partitioned`]), the tree's
//! accumulation ([`super::tree`]), `merge` and the `openings` table all
//! move these rows; none of them knows how a row is held or written.

mod board;
mod edge;
mod record;

// `Spelling`, `pack_uci` and `unpack_move` serve the `tables` build's
// sink and merge alone.
#[cfg_attr(not(feature = "tables"), allow(unused_imports))]
pub(crate) use board::Spelling;
#[cfg_attr(not(feature = "tables"), allow(unused_imports))]
pub(crate) use edge::{Edge, EdgeKey, EdgeStats, GameFacts, pack_move, pack_uci, unpack_move};
