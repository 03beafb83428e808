//! Serve, what every request shares: the folders served, the footers of
//! their tables kept open (`read::keyed`), and the permits of the readers.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::sync::Semaphore;

use super::ServeOptions;
use super::error::ApiError;
use crate::error::Error;
use crate::read::keyed::KeyedFiles;
use crate::read::source::{Data, DataCache};
use crate::sink::schema;

/// The server's state.
#[derive(Debug)]
pub(crate) struct State {
    pub data: PathBuf,
    pub masters: PathBuf,
    pub files: KeyedFiles,
    /// The folders' summaries, kept until a folder changes.
    pub opened: DataCache,
    /// Readers of the tables at once, granted in the order asked.
    pub readers: Arc<Semaphore>,
    /// `/player` streams read at once (each on a thread of its own, at a
    /// lower priority than the answers' readers); more wait their turn.
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
            opened: DataCache::default(),
            readers: Arc::new(Semaphore::new(options.readers.max(1))),
            players: Arc::new(Semaphore::new(options.threads.max(1))),
        })
    }

    /// A reader's permit, when one is free.
    pub(crate) async fn reader(&self) -> Result<tokio::sync::OwnedSemaphorePermit, ApiError> {
        permit(&self.readers).await
    }

    /// A `/player` stream's permit, when one is free.
    pub(crate) async fn player(&self) -> Result<tokio::sync::OwnedSemaphorePermit, ApiError> {
        permit(&self.players).await
    }

    /// The data in `dir` (one of the folders served), its summaries read
    /// again only when the folder changed.
    pub(crate) fn data_at(&self, dir: &Path) -> Result<Arc<Data>, ApiError> {
        Ok(self.opened.get(dir)?)
    }
}

async fn permit(semaphore: &Arc<Semaphore>) -> Result<tokio::sync::OwnedSemaphorePermit, ApiError> {
    semaphore
        .clone()
        .acquire_owned()
        .await
        .map_err(|_| ApiError::internal("the server is stopping"))
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
