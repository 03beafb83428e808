//! Export, a game read again: the one way a game the import recorded
//! becomes PGN text again, shared by `export`'s batches (each source read
//! whole) and by one game read at its offset ([`super::game`], the
//! server's PGN and game page). Its bytes are checked against the
//! `raw_hash` the import recorded, then cleaned as `clean` writes games.

use std::collections::HashMap;
use std::path::Path;

use crate::input::InputSource;
use crate::pgn::bytes::raw_hash;
use crate::pgn::framer::Batch;

/// How a game is written: `clean`'s options that `export` offers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Cleaning {
    pub fix_results: bool,
    pub repair: bool,
}

/// Why a selected game found at its offset was not written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Failure {
    /// Its bytes no longer hash to `raw_hash`; its line now.
    Changed { line: u64 },
    /// `clean` rejects it (with other options than the import's): why.
    Rejected(String),
}

/// A game read again: its source, offset and clean text (or why not).
pub(crate) type Cleaned = Vec<(u32, u64, Result<String, Failure>)>;

/// The games of `batch` that `wanted` names by (source, offset), each
/// checked against the hash the import recorded for it and cleaned as
/// `clean` cleans it; the others are passed over.
pub(crate) fn clean_selected(
    batch: &Batch,
    wanted: &HashMap<(u32, u64), u64>,
    cleaning: Cleaning,
) -> Cleaned {
    let mut chosen = Batch {
        source: batch.source,
        data: Vec::new(),
        games: Vec::new(),
    };
    let mut out = Vec::new();
    for (index, raw) in batch.games.iter().enumerate() {
        let Some(&hash) = wanted.get(&(raw.source, raw.offset)) else {
            continue;
        };
        // The game and what follows it up to the next game, as the
        // checks read it in the whole batch (where a game ends is checked
        // against where the next begins).
        let next = batch
            .games
            .get(index + 1)
            .map_or(batch.data.len(), |next| next.start);
        let bytes = batch.game_bytes(raw);
        if raw_hash(bytes) != hash {
            out.push((
                raw.source,
                raw.offset,
                Err(Failure::Changed { line: raw.line }),
            ));
            continue;
        }
        let start = chosen.data.len();
        chosen
            .data
            .extend_from_slice(batch.data.get(raw.start..next).unwrap_or(bytes));
        let mut game = raw.clone();
        game.start = start;
        game.end = start + bytes.len();
        chosen.games.push(game);
    }
    if !chosen.games.is_empty() {
        // One text a game, in order; a batch can hold several sources.
        let sources: Vec<u32> = chosen.games.iter().map(|game| game.source).collect();
        let texts = crate::clean::clean_texts(&chosen, cleaning.fix_results, cleaning.repair);
        for (source, (offset, text)) in sources.into_iter().zip(texts) {
            out.push((source, offset, text.map_err(Failure::Rejected)));
        }
    }
    out
}

/// A source to read again, or the line that says why it cannot be:
/// stdin, a zip entry, a file gone or of another size than `recorded`
/// (its size on disk when it was imported).
pub(crate) fn readable_source(name: &str, recorded: Option<&u64>) -> Result<InputSource, String> {
    let path = Path::new(name);
    if name == "-" {
        return Err("-: stdin cannot be read again; its games were not written".into());
    }
    let metadata = std::fs::metadata(path)
        .map_err(|e| format!("{name}: cannot read ({e}); its games were not written"))?;
    if !metadata.is_file() {
        return Err(format!(
            "{name}: not a file (a zip archive's entries are not exported yet); its games were not written"
        ));
    }
    if let Some(&size) = recorded
        && size != metadata.len()
    {
        return Err(format!(
            "{name}: changed since the import ({size} bytes then, {} now); its games were not written",
            metadata.len()
        ));
    }
    Ok(InputSource::File(path.to_path_buf()))
}
