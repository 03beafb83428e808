//! Reading an import back: SQL over its tables (`query`) and one position
//! of its opening tree (`explore`).

pub mod explore;
pub mod query;
pub(crate) mod source;
