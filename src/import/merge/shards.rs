//! The import, merge, shards: the shards' folders read and checked before
//! anything is written. Merging tables of different imports, or of the
//! same import split differently, would write plausible but wrong sums, so
//! every shard must be there once, imported with the same options, and cut
//! from the same inputs.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::input::shard::Shard;
use crate::lake::Listing;
use crate::sink::summary::{InputSummary, SUMMARY_FILE, Summary, SummaryError};

/// One shard's output folder and its summary.
pub(super) struct ShardDir {
    pub(super) dir: PathBuf,
    pub(super) summary: Summary,
    /// `K` of `--shard K/N`, and `N`.
    pub(super) shard: Shard,
}

/// The summary of an import's folder `dir` (a missing one: not an
/// import's folder), checked against the tables in the folder: a table it
/// lists must be there and a table there must be listed, or `merge` and
/// `lake --add` would sum or commit rows the summary does not account for.
pub fn read_folder_summary(dir: &Path) -> Result<Summary, Error> {
    let path = dir.join(SUMMARY_FILE);
    let summary = Summary::read(&path).map_err(|e| match e {
        e if e.is_missing() => Error::Usage(format!(
            "{}: cannot read (no such file): not an import's folder",
            path.display()
        )),
        e => Error::Summary(e),
    })?;
    match crate::lake::check_folder_listing(dir, &summary) {
        None => Ok(summary),
        // The folder lacks a table: named as `lake --add` names it.
        Some(Listing::Missing { table }) => Err(Error::Usage(format!(
            "{}: missing (summary.json lists {} rows of {})",
            dir.join(table.file_name()).display(),
            summary
                .tables
                .get(&table.file_name())
                .copied()
                .unwrap_or_default(),
            table.name
        ))),
        Some(unlisted) => Err(Error::Summary(SummaryError::Inconsistent {
            path: path.display().to_string(),
            what: unlisted.describe(),
        })),
    }
}

/// Reads and checks the shards' summaries: one import split N ways, every
/// shard there once, with the same options; sorted by shard.
pub(super) fn read_shards(dirs: &[PathBuf]) -> Result<Vec<ShardDir>, Error> {
    let mut shards = Vec::with_capacity(dirs.len());
    for dir in dirs {
        let summary = read_folder_summary(dir)?;
        let Some(shard) = summary.shard else {
            return Err(Error::Usage(format!(
                "{}: not a shard (no `shard` in summary.json; import with --shard K/N)",
                dir.join(SUMMARY_FILE).display()
            )));
        };
        // A shard run records the part of every input it read (a whole
        // one as `start` 0, `end` null): without it, the input would be
        // taken as read whole by this shard alone.
        if let Some((i, input)) = summary
            .inputs
            .iter()
            .enumerate()
            .find(|(_, input)| input.part.is_none())
        {
            return Err(Error::Summary(SummaryError::Inconsistent {
                path: dir.join(SUMMARY_FILE).display().to_string(),
                what: format!(
                    "inputs[{i}] ({}) has no `part`, which every input of a shard has",
                    input.path
                ),
            }));
        }
        shards.push(ShardDir {
            dir: dir.clone(),
            summary,
            shard,
        });
    }
    shards.sort_by_key(|s| s.shard.index);
    let Some(first) = shards.first() else {
        return Ok(shards);
    };
    let count = first.shard.count;
    for shard in &shards {
        let place = shard.dir.display();
        if shard.shard.count != count {
            return Err(Error::Usage(format!(
                "{place}: a shard of {} shards, the others of {count}",
                shard.shard.count
            )));
        }
        let (ours, theirs) = (&first.summary, &shard.summary);
        let differs = ours.options.piece_values != theirs.options.piece_values
            || ours.opening_tree.plies != theirs.opening_tree.plies
            || ours.opening_tree.period != theirs.opening_tree.period;
        if differs {
            return Err(Error::Usage(format!(
                "{place}: imported with other --piece-values, --opening-plies or --opening-period than the first shard"
            )));
        }
        if ours.options.unwinnable_nodes != theirs.options.unwinnable_nodes {
            return Err(Error::Usage(format!(
                "{place}: imported with --unwinnable-nodes {}, the first shard with {}",
                theirs.options.unwinnable_nodes, ours.options.unwinnable_nodes
            )));
        }
        // A table of games read strictly cannot be summed with one of
        // games read through repair, nor one with moves with one without.
        let flags = [
            ("--moves", ours.options.moves, theirs.options.moves),
            ("--repair", ours.options.repair, theirs.options.repair),
        ];
        for (flag, first_has, this_has) in flags {
            if first_has != this_has {
                let with = |on: bool| if on { "with" } else { "without" };
                return Err(Error::Usage(format!(
                    "{place}: imported {} {flag}, the first shard {}",
                    with(this_has),
                    with(first_has),
                )));
            }
        }
    }
    check_one_input(&shards)?;
    // Game ids are rebased by the games read before each shard, and every
    // count of games adds up to them: their total must fit.
    let mut games = 0u64;
    for shard in &shards {
        games = games.checked_add(shard.summary.games_read).ok_or_else(|| {
            Error::Usage(format!(
                "{}: games_read {}: the shards' games add up past 2^64 (edited or damaged?)",
                shard.dir.join(SUMMARY_FILE).display(),
                shard.summary.games_read
            ))
        })?;
    }
    let indexes: Vec<u32> = shards.iter().map(|s| s.shard.index).collect();
    if let Some(missing) = (1..=count).find(|k| !indexes.contains(k)) {
        return Err(Error::Usage(format!(
            "shards of {count}: shard {missing} is missing ({} folders given; merge needs all of them)",
            shards.len()
        )));
    }
    if indexes.len() != count as usize {
        return Err(Error::Usage(format!(
            "shards of {count}: {} folders given, some shard twice",
            shards.len()
        )));
    }
    Ok(shards)
}

/// Do the shards (in shard order) cut one input? Each file has one size
/// in every shard that read part of it, and a shard whose last part stops
/// inside a file is followed by a shard that goes on in that file.
fn check_one_input(shards: &[ShardDir]) -> Result<(), Error> {
    let not_one = |place: &Path, what: String| {
        Error::Usage(format!(
            "{}: {what}: not a shard of the same inputs as the others",
            place.display()
        ))
    };
    let mut sizes: HashMap<&str, Option<u64>> = HashMap::new();
    let mut before: Option<&InputSummary> = None;
    for shard in shards {
        let inputs = &shard.summary.inputs;
        for input in inputs {
            let size = *sizes.entry(&input.path).or_insert(input.bytes);
            if size != input.bytes {
                return Err(not_one(
                    &shard.dir,
                    format!(
                        "{} has {:?} bytes here, {size:?} in another shard",
                        input.path, input.bytes
                    ),
                ));
            }
        }
        let inside = before.filter(|last| last.part.as_ref().is_some_and(|p| p.end.is_some()));
        if let (Some(last), Some(first)) = (inside, inputs.first())
            && first.path != last.path
        {
            return Err(not_one(
                &shard.dir,
                format!(
                    "it starts in {}, the shard before it stopped inside {}",
                    first.path, last.path
                ),
            ));
        }
        before = inputs.last().or(before);
    }
    Ok(())
}

pub(super) fn moves_of_first(shards: &[ShardDir]) -> bool {
    shards.first().is_some_and(|s| s.summary.options.moves)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sink::summary::InputPart;

    /// The summary of an import of no games: shard `K/N` of it, if given.
    fn summary(shard: Option<(u32, u32)>, inputs: Vec<InputSummary>) -> Summary {
        let mut summary = Summary::of_nothing("out", inputs);
        summary.shard = shard.map(|(index, count)| Shard { index, count });
        summary
    }

    /// Part `start..end` of `path` (`end` None: to its end).
    fn part(path: &str, bytes: u64, start: u64, end: Option<u64>) -> InputSummary {
        InputSummary {
            path: path.into(),
            bytes: Some(bytes),
            uncompressed_bytes: bytes,
            games: 0,
            truncated: None,
            part: Some(InputPart {
                start: Some(start),
                end,
            }),
        }
    }

    /// Shards 1.. of `inputs.len()`, each reading the inputs given.
    fn shard_dirs(inputs: Vec<Vec<InputSummary>>) -> Vec<ShardDir> {
        let count = inputs.len() as u32;
        (1..=count)
            .zip(inputs)
            .map(|(index, inputs)| ShardDir {
                dir: PathBuf::from(format!("shard{index}")),
                summary: summary(Some((index, count)), inputs),
                shard: Shard { index, count },
            })
            .collect()
    }

    fn refusal<T>(result: Result<T, Error>) -> String {
        match result {
            Ok(_) => panic!("accepted"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn shards_that_cut_one_input_in_order_are_one_input() {
        let shards = shard_dirs(vec![
            vec![part("a.pgn", 300, 0, Some(100))],
            vec![],
            vec![
                part("a.pgn", 300, 100, None),
                part("b.pgn", 50, 0, Some(20)),
            ],
            vec![part("b.pgn", 50, 20, None)],
        ]);
        assert!(check_one_input(&shards).is_ok());
    }

    #[test]
    fn an_input_of_another_size_is_another_input() {
        let shards = shard_dirs(vec![
            vec![part("a.pgn", 300, 0, Some(100))],
            vec![part("a.pgn", 299, 100, None)],
        ]);
        let why = refusal(check_one_input(&shards));
        assert!(
            why.starts_with("shard2: a.pgn has Some(299) bytes here, Some(300)"),
            "{why}"
        );
        assert!(
            why.ends_with("not a shard of the same inputs as the others"),
            "{why}"
        );
    }

    #[test]
    fn a_shard_must_go_on_in_the_input_the_one_before_stopped_inside() {
        // Shard 2 read nothing: shard 3 must go on where shard 1 stopped.
        let shards = shard_dirs(vec![
            vec![part("a.pgn", 300, 0, Some(100))],
            vec![],
            vec![part("b.pgn", 50, 0, None)],
        ]);
        let why = refusal(check_one_input(&shards));
        assert!(
            why.starts_with("shard3: it starts in b.pgn, the shard before it stopped inside a.pgn"),
            "{why}"
        );
    }

    /// Folders holding `summaries`, in the order given.
    fn folders(summaries: Vec<Summary>) -> (tempfile::TempDir, Vec<PathBuf>) {
        let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let dirs = summaries
            .iter()
            .enumerate()
            .map(|(i, summary)| {
                let dir = root.path().join(format!("out{i}"));
                let json = serde_json::to_string(summary).unwrap_or_else(|e| panic!("{e}"));
                std::fs::create_dir(&dir)
                    .and_then(|()| std::fs::write(dir.join(SUMMARY_FILE), json))
                    .unwrap_or_else(|e| panic!("{e}"));
                dir
            })
            .collect();
        (root, dirs)
    }

    fn shard(index: u32, count: u32) -> Summary {
        summary(Some((index, count)), Vec::new())
    }

    #[test]
    fn every_shard_once_is_read_in_shard_order() {
        let (_root, dirs) = folders(vec![shard(3, 3), shard(1, 3), shard(2, 3)]);
        let shards = read_shards(&dirs).unwrap_or_else(|e| panic!("{e}"));
        let order: Vec<(u32, &Path)> = shards
            .iter()
            .map(|s| (s.shard.index, s.dir.as_path()))
            .collect();
        assert_eq!(
            order,
            [(1, dirs[1].as_path()), (2, &dirs[2]), (3, &dirs[0])]
        );
        assert!(read_shards(&[]).is_ok_and(|s| s.is_empty()));
    }

    #[test]
    fn folders_that_are_not_every_shard_of_one_import_are_refused() {
        let refused = |summaries: Vec<Summary>| {
            let (_root, dirs) = folders(summaries);
            refusal(read_shards(&dirs))
        };
        let why = refused(vec![shard(1, 2), summary(None, Vec::new())]);
        assert!(
            why.contains("not a shard (no `shard` in summary.json"),
            "{why}"
        );
        let why = refused(vec![shard(1, 2), shard(2, 3)]);
        assert!(
            why.ends_with("a shard of 3 shards, the others of 2"),
            "{why}"
        );
        let why = refused(vec![shard(1, 3), shard(3, 3)]);
        assert_eq!(
            why,
            "shards of 3: shard 2 is missing (2 folders given; merge needs all of them)"
        );
        let why = refused(vec![shard(1, 2), shard(2, 2), shard(2, 2)]);
        assert_eq!(why, "shards of 2: 3 folders given, some shard twice");
        let mut moves = shard(2, 2);
        moves.options.moves = true;
        let why = refused(vec![shard(1, 2), moves]);
        assert!(
            why.ends_with("imported with --moves, the first shard without"),
            "{why}"
        );
        let mut plies = shard(2, 2);
        plies.opening_tree.plies = 12;
        let why = refused(vec![shard(1, 2), plies]);
        assert!(why.contains("--opening-plies"), "{why}");
        let mut cut = shard(2, 2);
        cut.inputs = vec![part("b.pgn", 50, 0, None)];
        let mut first = shard(1, 2);
        first.inputs = vec![part("a.pgn", 300, 0, Some(100))];
        let why = refused(vec![first, cut]);
        assert!(
            why.contains("the shard before it stopped inside a.pgn"),
            "{why}"
        );
    }

    #[test]
    fn a_folder_without_a_summary_is_not_an_import() {
        let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let why = refusal(read_shards(&[root.path().to_path_buf()]));
        assert!(
            why.ends_with("summary.json: cannot read (no such file): not an import's folder"),
            "{why}"
        );
    }
}
