//! Reading an import back: SQL over its tables (`query`), one position
//! of its opening tree (`explore`), and the one reader of a table's
//! columns once read (`columns`), which the report and merge share.

pub mod explore;
pub(crate) mod game_ref;
pub(crate) mod keyed;
pub mod novelty;
pub mod query;
pub mod search;
pub(crate) mod source;

impl From<crate::sink::columns::ColumnError> for crate::error::ExploreError {
    fn from(e: crate::sink::columns::ColumnError) -> crate::error::ExploreError {
        crate::error::ExploreError::Table {
            path: e.path,
            message: e.message,
        }
    }
}
