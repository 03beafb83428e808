//! Serve, what every request shares: the folders served, the footers of
//! their tables kept open (`read::keyed`), and the permits of the readers.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::sync::Semaphore;

use super::{PLAYER_READERS, READERS, ServeOptions};
use crate::error::Error;
use crate::read::keyed::KeyedFiles;
use crate::read::source::Data;
use crate::sink::schema;

/// The server's state.
#[derive(Debug)]
pub(crate) struct State {
    pub data: PathBuf,
    pub masters: PathBuf,
    pub files: KeyedFiles,
    pub readers: Arc<Semaphore>,
    /// `/player`'s own readers.
    pub players: Arc<Semaphore>,
}

impl State {
    /// Checks that each folder is an import or a lake with an opening tree
    /// and games: a wrong path is one line at start, not a 500 per request.
    pub(crate) fn open(options: &ServeOptions) -> Result<State, Error> {
        let masters = options
            .masters
            .clone()
            .unwrap_or_else(|| options.data.clone());
        for dir in [&options.data, &masters] {
            check_folder(dir)?;
        }
        Ok(State {
            data: options.data.clone(),
            masters,
            files: KeyedFiles::default(),
            readers: Arc::new(Semaphore::new(READERS)),
            players: Arc::new(Semaphore::new(PLAYER_READERS)),
        })
    }
}

fn check_folder(dir: &Path) -> Result<(), Error> {
    if !dir.is_dir() {
        return Err(Error::Usage(format!(
            "{}: no such folder (give an import's folder or a lake)",
            dir.display()
        )));
    }
    let data = Data::open(dir)?;
    for table in [&schema::openings::TABLE, &schema::games::TABLE] {
        if data.files(table).is_empty() {
            return Err(Error::Usage(format!(
                "{}: no {} table here (run `pgnlake import --out {}` first)",
                dir.display(),
                table.name,
                dir.display()
            )));
        }
    }
    Ok(())
}
