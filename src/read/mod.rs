//! Reading an import back: SQL over its tables (`query`), one position
//! of its opening tree (`explore`), and the one reader of a table's
//! columns once read (`columns`), which the report and merge share.

pub(crate) mod columns;
pub mod explore;
pub mod query;
pub(crate) mod source;
