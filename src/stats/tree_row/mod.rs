//! Statistics stage, the opening tree's row: the key of an edge (position,
//! move, dimensions), what its games add up to, the position and move it
//! spells out as EPD and SAN, and its run-file record. The worker's table,
//! the run files and the gather ([`super::partitioned`]), the tree's
//! accumulation ([`super::tree`]), `merge` and the `openings` table all
//! move these rows; none of them knows how a row is held or written.

mod board;
mod edge;
mod record;

// `unpack_move` serves the `tables` build's merge alone.
#[cfg_attr(not(feature = "tables"), allow(unused_imports))]
pub(crate) use edge::{
    Edge, EdgeKey, EdgeStats, GameFacts, give_earliest_ply, pack_move, unpack_move,
};
