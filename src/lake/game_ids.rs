//! Lake, game ids: where the games named by the compacted opening tree
//! are. An import's partition names its games by their `games.game_id`;
//! the compacted partition sums many imports, so it numbers their games
//! one after another (each import's ids shifted by the games read before
//! it), and a reader maps such an id back to its import and own id here.

use std::path::Path;

use super::{LakeError, covered, summary_path};
use crate::sink::summary::Summary;

/// The imports the compacted partition covers, in the order their games
/// are numbered there (`_compacted/imports.json`), each with its offset:
/// the games read (`games_read` of its summary) by the imports before it.
/// An import's game id plus its offset is the game's id in the compacted
/// partition, as [`crate::lake::Compaction::game_offsets`] numbered them.
pub fn game_offsets(lake: &Path) -> Result<Vec<(String, u64)>, LakeError> {
    let names = covered(lake)?;
    running_offsets(&names, |name| {
        let path = summary_path(lake, name);
        // A covered import always has its summary: a removed one is first
        // uncovered. Without it the ids after it cannot be placed.
        let summary = Summary::read(&path)?;
        Ok(summary.games_read)
    })
}

/// Each of `names` with the sum of `games_read` of the names before it.
pub(super) fn running_offsets(
    names: &[String],
    games_read: impl Fn(&str) -> Result<u64, LakeError>,
) -> Result<Vec<(String, u64)>, LakeError> {
    let mut before = 0u64;
    let mut offsets = Vec::with_capacity(names.len());
    for name in names {
        offsets.push((name.clone(), before));
        before = before.saturating_add(games_read(name)?);
    }
    Ok(offsets)
}

/// The import and own game id of `id`, a game id of the compacted
/// partition numbered by `offsets` (as [`game_offsets`] gives them): the
/// last import whose offset is at most `id` (an import that read no games
/// shares its offset with the next and holds none of its ids). None
/// before the first offset (no import covered).
pub fn import_of_game(offsets: &[(String, u64)], id: u64) -> Option<(&str, u64)> {
    let after = offsets.partition_point(|(_, offset)| *offset <= id);
    let (name, offset) = offsets.get(after.checked_sub(1)?)?;
    Some((name.as_str(), id - offset))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offsets(games: &[(&str, u64)]) -> Vec<(String, u64)> {
        let names: Vec<String> = games.iter().map(|(n, _)| (*n).to_owned()).collect();
        let read = |name: &str| {
            let found = games.iter().find(|(n, _)| *n == name).map(|(_, g)| *g);
            Ok(found.unwrap_or_else(|| panic!("{name}")))
        };
        running_offsets(&names, read).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn each_import_starts_after_the_games_of_those_before_it() {
        let offsets = offsets(&[("b", 10), ("a", 0), ("c", 5)]);
        assert_eq!(
            offsets,
            [
                ("b".to_owned(), 0),
                ("a".to_owned(), 10),
                ("c".to_owned(), 10)
            ]
        );
        assert_eq!(import_of_game(&offsets, 0), Some(("b", 0)));
        assert_eq!(import_of_game(&offsets, 9), Some(("b", 9)));
        // `a` read no games: 10 is `c`'s first.
        assert_eq!(import_of_game(&offsets, 10), Some(("c", 0)));
        assert_eq!(import_of_game(&offsets, 14), Some(("c", 4)));
        assert_eq!(import_of_game(&[], 3), None);
    }

    #[test]
    fn a_covered_import_without_its_summary_is_an_error() {
        let lake = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let archive = lake.path().join(super::super::journal::ARCHIVE_DIR);
        std::fs::create_dir_all(&archive).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(
            archive.join(super::super::journal::COVERED_FILE),
            r#"["gone"]"#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let error = game_offsets(lake.path()).err().map(|e| e.to_string());
        assert!(
            error.as_deref().is_some_and(|e| e.contains("gone.json")),
            "{error:?}"
        );
        assert_eq!(game_offsets(&lake.path().join("none")).ok(), Some(vec![]));
    }
}
