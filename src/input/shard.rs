//! Input stage, shards: `--shard K/N` splits a run's inputs into N parts
//! deterministically, so that N runs (a Spark job's tasks) import every game
//! exactly once and `merge` puts their tables back together as one run's.
//!
//! The inputs are laid end to end by size on disk, and shard K owns the
//! K-th of N equal stretches of that line. A file goes whole to the shard
//! that owns its middle byte, unless it is larger than a stretch and can be
//! cut: then each bound inside it cuts it, a plain file at the bound's byte,
//! a multi-frame `.zst` (pzstd's layout, as lichess ships) at the first
//! frame that starts at or after it. Each shard keeps the games whose first byte lies in its stretch
//! of the text. The text before a shard's stretch is framed (not parsed), so
//! that cuts fall at real game starts, as a whole-file framing finds them.
//! A single-frame `.zst`, `.gz`, `.bz2` or an archive entry is never cut;
//! standard input cannot be sharded.

use std::fmt;
use std::io::{BufReader, Read};
use std::str::FromStr;

pub use super::keep::{Cut, Keep};
use super::zstd_frames;
use super::{Compression, InputSource};

/// `K/N`: this run is shard K (1-based) of N.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> Result<Shard, String> {
        let wrong = || format!("{text:?}: expected K/N with 1 <= K <= N (e.g. 2/8)");
        let (k, n) = text.split_once('/').ok_or_else(wrong)?;
        let index: u32 = k.trim().parse().map_err(|_| wrong())?;
        let count: u32 = n.trim().parse().map_err(|_| wrong())?;
        if index == 0 || index > count {
            return Err(wrong());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// One input as a shard sees it: the source and which games to keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Part {
    pub source: InputSource,
    pub keep: Cut,
}

/// How an input may be cut between shards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cuttable {
    No,
    /// Plain text: at any byte.
    Bytes,
    /// Several zstd frames: at frame starts.
    Frames,
}

/// What the planner needs to know of an input: its size on disk and how a
/// shard boundary may cut it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Extent {
    pub size: u64,
    pub cuttable: Cuttable,
}

/// The size of `source` and how it may be cut. Standard input has no size:
/// it cannot be sharded.
pub(crate) fn extent(source: &InputSource) -> Option<Extent> {
    match source {
        InputSource::Stdin => None,
        InputSource::File(path) => {
            let size = std::fs::metadata(path).ok()?.len();
            Some(Extent {
                size,
                cuttable: cuttable(path),
            })
        }
        InputSource::ZipEntry { size, .. } => Some(Extent {
            size: *size,
            cuttable: Cuttable::No,
        }),
    }
}

/// Plain text, several zstd frames, or neither (read from the head).
fn cuttable(path: &std::path::Path) -> Cuttable {
    let Ok(file) = std::fs::File::open(path) else {
        return Cuttable::No;
    };
    let mut head = Vec::with_capacity(8);
    if file.take(8).read_to_end(&mut head).is_err() {
        return Cuttable::No;
    }
    match Compression::sniff(&head) {
        Compression::None => Cuttable::Bytes,
        Compression::Zstd => {
            let frames = std::fs::File::open(path)
                .is_ok_and(|file| zstd_frames::starts_with_frames(BufReader::new(file)));
            if frames {
                Cuttable::Frames
            } else {
                Cuttable::No
            }
        }
        Compression::Gzip | Compression::Bzip2 => Cuttable::No,
    }
}

/// The parts of `sources` (with their extents) that `shard` imports, in
/// input order.
pub(crate) fn plan(sources: &[(InputSource, Extent)], shard: Shard) -> Vec<Part> {
    let total: u64 = sources.iter().map(|(_, e)| e.size).sum();
    let count = u128::from(shard.count);
    // Stretch k is [bound(k-1), bound(k)) on the line of all inputs.
    let bound = |k: u32| -> u64 {
        u64::try_from(u128::from(total) * u128::from(k) / count).unwrap_or(u64::MAX)
    };
    let (lo, hi) = (bound(shard.index - 1), bound(shard.index));
    let last = shard.index == shard.count;
    let mut parts = Vec::new();
    let mut at = 0u64;
    for (source, extent) in sources {
        let (start, end) = (at, at + extent.size);
        at = end;
        // The file's own cut for bound k: none before it (0), none after it
        // (the part with its last byte runs to the end, as far as its text
        // goes), else the bound's offset in the file.
        let cut = |k: u32| -> u64 {
            match k {
                0 => 0,
                k if k == shard.count => u64::MAX,
                k if bound(k) >= end => u64::MAX,
                k => bound(k).saturating_sub(start),
            }
        };
        let range = cut(shard.index - 1)..cut(shard.index);
        // Only a file larger than a shard's stretch is cut: a shard that
        // starts inside a file reads the file up to its part first.
        let larger = u128::from(extent.size) * count > u128::from(total);
        let keep = match extent.cuttable {
            Cuttable::Bytes if larger => Cut::Text(range),
            Cuttable::Frames if larger => Cut::Frames(range),
            Cuttable::Bytes | Cuttable::Frames | Cuttable::No => {
                let middle = start + extent.size / 2;
                let owns = lo <= middle && (middle < hi || last);
                Cut::Text(if owns { 0..u64::MAX } else { 0..0 })
            }
        };
        let empty = match &keep {
            Cut::Text(range) | Cut::Frames(range) => range.is_empty(),
        };
        if !empty {
            parts.push(Part {
                source: source.clone(),
                keep,
            });
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ops::Range;
    use std::path::PathBuf;

    fn file(name: &str) -> InputSource {
        InputSource::File(PathBuf::from(name))
    }

    fn shard(index: u32, count: u32) -> Shard {
        Shard { index, count }
    }

    fn range(cut: &Cut) -> Range<u64> {
        match cut {
            Cut::Text(range) | Cut::Frames(range) => range.clone(),
        }
    }

    #[test]
    fn shards_parse_as_k_of_n() {
        assert_eq!("2/8".parse(), Ok(shard(2, 8)));
        assert_eq!(" 1 / 1 ".parse(), Ok(shard(1, 1)));
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", "-1/2"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        assert_eq!(shard(3, 7).to_string(), "3/7");
    }

    /// Which shard keeps a game at `offset` of input `i`, for every shard.
    fn owners(sources: &[(InputSource, Extent)], count: u32, i: usize, offset: u64) -> Vec<u32> {
        let (source, _) = &sources[i];
        (1..=count)
            .filter(|&k| {
                plan(sources, shard(k, count))
                    .iter()
                    .any(|p| &p.source == source && range(&p.keep).contains(&offset))
            })
            .collect()
    }

    #[test]
    fn every_offset_of_every_input_is_in_exactly_one_shard() {
        let plain = |size| Extent {
            size,
            cuttable: Cuttable::Bytes,
        };
        let frames = |size| Extent {
            size,
            cuttable: Cuttable::Frames,
        };
        let packed = |size| Extent {
            size,
            cuttable: Cuttable::No,
        };
        let sources = vec![
            (file("a.pgn"), plain(1000)),
            (file("b.pgn.zst"), packed(300)),
            (file("c.pgn"), plain(0)),
            (file("d.pgn"), plain(7)),
            (file("e.pgn.gz"), packed(5000)),
            (file("f.pgn"), plain(2500)),
            (file("g.pgn.zst"), frames(1800)),
        ];
        for count in [1, 2, 3, 7, 64] {
            for (i, (_, extent)) in sources.iter().enumerate() {
                // Offsets past the size too: a file may grow, or its text
                // be longer than its size on disk.
                for offset in (0..extent.size + 3).chain([u64::MAX - 1]) {
                    let who = owners(&sources, count, i, offset);
                    assert_eq!(
                        who.len(),
                        1,
                        "input {i} offset {offset} of {count}: {who:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn files_no_larger_than_a_shard_go_whole() {
        let names: Vec<String> = (0..10).map(|i| format!("{i}.pgn")).collect();
        let sources: Vec<_> = names
            .iter()
            .map(|name| {
                let extent = Extent {
                    size: 100,
                    cuttable: Cuttable::Bytes,
                };
                (file(name), extent)
            })
            .collect();
        let parts: Vec<Part> = (1..=3).flat_map(|k| plan(&sources, shard(k, 3))).collect();
        assert_eq!(parts.len(), 10);
        assert!(parts.iter().all(|p| p.keep == Cut::WHOLE));
    }

    #[test]
    fn compressed_inputs_go_whole_to_the_shard_of_their_middle() {
        let sources = vec![
            (
                file("a.pgn.zst"),
                Extent {
                    size: 100,
                    cuttable: Cuttable::No,
                },
            ),
            (
                file("b.pgn.zst"),
                Extent {
                    size: 300,
                    cuttable: Cuttable::No,
                },
            ),
        ];
        // Line 0..400; shards of 2: [0,200) and [200,400). Middles 50, 250.
        assert_eq!(plan(&sources, shard(1, 2)).len(), 1);
        assert_eq!(plan(&sources, shard(1, 2))[0].source, file("a.pgn.zst"));
        assert_eq!(plan(&sources, shard(2, 2))[0].source, file("b.pgn.zst"));
        // More shards than inputs: some shards import nothing.
        let empty = (1..=8).filter(|&k| plan(&sources, shard(k, 8)).is_empty());
        assert_eq!(empty.count(), 6);
    }

    #[test]
    fn a_plain_file_is_cut_at_the_shard_bounds() {
        let sources = vec![(
            file("a.pgn"),
            Extent {
                size: 900,
                cuttable: Cuttable::Bytes,
            },
        )];
        let keeps: Vec<_> = (1..=3)
            .map(|k| plan(&sources, shard(k, 3))[0].keep.clone())
            .collect();
        assert_eq!(
            keeps,
            vec![
                Cut::Text(0..300),
                Cut::Text(300..600),
                Cut::Text(600..u64::MAX)
            ]
        );
    }
}
