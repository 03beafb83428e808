//! Input stage, shards: `--shard K/N` splits a run's inputs into N parts
//! deterministically, so that N runs (a Spark job's tasks) import every game
//! exactly once and `merge` puts their tables back together as one run's.
//!
//! The inputs are laid end to end by size on disk, and shard K owns the
//! K-th of N equal stretches of that line. A file wholly inside a stretch
//! goes to its shard whole; a plain (uncompressed) file that a boundary
//! crosses is cut there: each shard keeps the games whose first byte lies in
//! its stretch of the file. A compressed file, an archive entry or standard
//! input cannot be cut without reading what comes before the cut, so it goes
//! whole to the shard that owns its middle byte.

use std::fmt;
use std::ops::Range;
use std::str::FromStr;

use super::{Compression, InputSource};

/// `K/N`: this run is shard K (1-based) of N.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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

/// One input as a shard sees it: the source and which games to keep, by the
/// uncompressed offset of their first byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub source: InputSource,
    pub keep: Range<u64>,
}

/// What the planner needs to know of an input: its size on disk and
/// whether a shard boundary may cut it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extent {
    pub size: u64,
    pub cuttable: bool,
}

/// The size of `source` and whether it is a plain file (cuttable). Standard
/// input has no size: it cannot be sharded.
pub fn extent(source: &InputSource) -> Option<Extent> {
    match source {
        InputSource::Stdin => None,
        InputSource::File(path) => {
            let size = std::fs::metadata(path).ok()?.len();
            Some(Extent {
                size,
                cuttable: is_plain(path),
            })
        }
        InputSource::ZipEntry { size, .. } => Some(Extent {
            size: *size,
            cuttable: false,
        }),
    }
}

/// Is the file plain text as stored (no compression we would undo)?
fn is_plain(path: &std::path::Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 8];
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    let mut filled = 0;
    while filled < head.len() {
        match file.read(head.get_mut(filled..).unwrap_or_default()) {
            Ok(0) | Err(_) => break,
            Ok(n) => filled += n,
        }
    }
    Compression::sniff(head.get(..filled).unwrap_or_default()) == Compression::None
}

/// The parts of `sources` (with their extents) that `shard` imports, in
/// input order.
pub fn plan(sources: &[(InputSource, Extent)], shard: Shard) -> Vec<Part> {
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
        let keep = if extent.cuttable {
            // The file's own cut for bound k: none before it (0), none
            // after it (the part with its last byte runs to the end, as
            // far as its text goes), else the bound's offset in the file.
            let cut = |k: u32| -> u64 {
                match k {
                    0 => 0,
                    k if k == shard.count => u64::MAX,
                    k if bound(k) >= end => u64::MAX,
                    k => bound(k).saturating_sub(start),
                }
            };
            cut(shard.index - 1)..cut(shard.index)
        } else {
            let middle = start + extent.size / 2;
            let owns = lo <= middle && (middle < hi || last);
            if owns { 0..u64::MAX } else { 0..0 }
        };
        if !keep.is_empty() {
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
    use std::path::PathBuf;

    fn file(name: &str) -> InputSource {
        InputSource::File(PathBuf::from(name))
    }

    fn shard(index: u32, count: u32) -> Shard {
        Shard { index, count }
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
                    .any(|p| &p.source == source && p.keep.contains(&offset))
            })
            .collect()
    }

    #[test]
    fn every_offset_of_every_input_is_in_exactly_one_shard() {
        let plain = |size| Extent {
            size,
            cuttable: true,
        };
        let packed = |size| Extent {
            size,
            cuttable: false,
        };
        let sources = vec![
            (file("a.pgn"), plain(1000)),
            (file("b.pgn.zst"), packed(300)),
            (file("c.pgn"), plain(0)),
            (file("d.pgn"), plain(7)),
            (file("e.pgn.gz"), packed(5000)),
            (file("f.pgn"), plain(2500)),
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
    fn compressed_inputs_go_whole_to_the_shard_of_their_middle() {
        let sources = vec![
            (
                file("a.pgn.zst"),
                Extent {
                    size: 100,
                    cuttable: false,
                },
            ),
            (
                file("b.pgn.zst"),
                Extent {
                    size: 300,
                    cuttable: false,
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
                cuttable: true,
            },
        )];
        let keeps: Vec<_> = (1..=3)
            .map(|k| plan(&sources, shard(k, 3))[0].keep.clone())
            .collect();
        assert_eq!(keeps, vec![0..300, 300..600, 600..u64::MAX]);
    }
}
