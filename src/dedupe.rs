//! Archivist mode, duplicates (`clean --dedupe`): a first pass over the
//! inputs keys every clean game; games that share a key form a group, whose
//! richest copy is kept and the others marked as its duplicates. Keys are
//! collected in a spilling map, so the first pass stays within the memory
//! budget; only the duplicates found are held in memory for the second pass.

use std::collections::HashMap;

use crate::sink::pgn::ExportGame;
use crate::stats::spill::Codec;

/// What makes two games the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum DedupeMode {
    /// No duplicate search.
    #[default]
    None,
    /// Same tags (in any order) and same moves.
    Exact,
    /// Same start position and same mainline, whatever the tags.
    Moves,
}

/// What the first pass learns of a clean game.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DupFacts {
    pub exact: u64,
    pub moves: u64,
    /// Higher is richer: a finished result, then more tags, then both
    /// ratings, then more annotations, then more plies.
    pub richness: u64,
}

impl DupFacts {
    pub fn of(game: &ExportGame) -> DupFacts {
        let fen = game
            .tags
            .iter()
            .find(|(n, _)| n == "FEN")
            .map_or("", |(_, v)| v.as_str());
        let mut moves = Fnv::default();
        moves.add(fen.as_bytes());
        for m in &game.moves {
            moves.add(m.san.as_bytes());
        }
        let mut tags: Vec<&(String, String)> = game.tags.iter().collect();
        tags.sort();
        let mut exact = moves;
        for (name, value) in tags {
            exact.add(name.as_bytes());
            exact.add(value.as_bytes());
        }
        let has = |name: &str| {
            game.tags
                .iter()
                .any(|(n, v)| n == name && !v.trim().is_empty())
        };
        let annotations: usize = game.leading_comments.len()
            + game
                .moves
                .iter()
                .map(|m| m.comments.len() + m.nags.len() + m.variations.len())
                .sum::<usize>();
        let finished = u64::from(game.result != "*");
        let ratings = u64::from(has("WhiteElo") && has("BlackElo"));
        let richness = (finished << 63)
            | ((game.tags.len().min(255) as u64) << 55)
            | (ratings << 54)
            | ((annotations.min(0xFFFF) as u64) << 38)
            | ((game.moves.len().min(0xFFFF) as u64) << 22);
        DupFacts {
            exact: exact.0,
            moves: moves.0,
            richness,
        }
    }

    pub fn key(&self, mode: DedupeMode) -> Option<u64> {
        match mode {
            DedupeMode::None => None,
            DedupeMode::Exact => Some(self.exact),
            DedupeMode::Moves => Some(self.moves),
        }
    }
}

/// FNV-1a over length-prefixed fields (stable, so runs agree).
#[derive(Debug, Clone, Copy)]
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn add(&mut self, bytes: &[u8]) {
        for b in (bytes.len() as u32).to_le_bytes().iter().chain(bytes) {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// A game in the first pass: its group key and its number in the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DupKey {
    pub key: u64,
    pub game_id: u64,
}

/// Its richness and input position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DupValue {
    pub richness: u64,
    pub source: u32,
    pub game_index: u64,
}

pub struct DupCodec;

impl Codec for DupCodec {
    type Key = DupKey;
    type Value = DupValue;

    fn encode(key: &DupKey, value: &DupValue, out: &mut Vec<u8>) {
        out.extend_from_slice(&key.key.to_le_bytes());
        out.extend_from_slice(&key.game_id.to_le_bytes());
        out.extend_from_slice(&value.richness.to_le_bytes());
        out.extend_from_slice(&value.source.to_le_bytes());
        out.extend_from_slice(&value.game_index.to_le_bytes());
    }

    fn decode(bytes: &[u8]) -> Option<(DupKey, DupValue)> {
        let word = |at: usize| Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?));
        let source = u32::from_le_bytes(bytes.get(24..28)?.try_into().ok()?);
        Some((
            DupKey {
                key: word(0)?,
                game_id: word(8)?,
            },
            DupValue {
                richness: word(16)?,
                source,
                game_index: word(28)?,
            },
        ))
    }

    /// Keys are unique (one per game): nothing to add up.
    fn combine(_into: &mut DupValue, _from: DupValue) {}
}

/// The duplicates of a group sorted by key: every game but the richest
/// (earliest on a tie), each with the kept game's input position.
pub fn losers_of(
    group: &[(DupKey, DupValue)],
    sources: &[String],
    losers: &mut HashMap<u64, String>,
) {
    let Some(kept) = group.iter().max_by(|a, b| {
        a.1.richness
            .cmp(&b.1.richness)
            .then(b.0.game_id.cmp(&a.0.game_id))
    }) else {
        return;
    };
    let source = sources
        .get(kept.1.source as usize)
        .map_or("", String::as_str);
    let position = format!("{source} game {}", kept.1.game_index);
    for (key, _) in group {
        if key.game_id != kept.0.game_id {
            losers.insert(key.game_id, position.clone());
        }
    }
}

/// `text` (one game in export format) with a tag naming the kept game,
/// added after the other tags.
pub fn mark_duplicate(text: &str, kept: &str) -> String {
    let tag = format!(
        "[DuplicateOf \"{}\"]\n",
        crate::sink::pgn::escape_tag_value(kept)
    );
    match text.find("\n\n") {
        Some(end) => format!("{}\n{}{}", &text[..end], tag, &text[end + 1..]),
        None => format!("{tag}{text}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(richness: u64, game_index: u64) -> DupValue {
        DupValue {
            richness,
            source: 0,
            game_index,
        }
    }

    #[test]
    fn the_richest_copy_is_kept_and_the_earliest_on_a_tie() {
        let sources = vec!["a.pgn".to_owned()];
        let mut losers = HashMap::new();
        let group = [
            (DupKey { key: 7, game_id: 1 }, value(5, 2)),
            (DupKey { key: 7, game_id: 4 }, value(9, 5)),
            (DupKey { key: 7, game_id: 6 }, value(9, 7)),
        ];
        losers_of(&group, &sources, &mut losers);
        assert_eq!(losers.len(), 2);
        assert_eq!(losers.get(&1).map(String::as_str), Some("a.pgn game 5"));
        assert_eq!(losers.get(&6).map(String::as_str), Some("a.pgn game 5"));
    }

    #[test]
    fn the_tag_goes_after_the_others() {
        let text = "[Event \"x\"]\n[Result \"*\"]\n\n1. e4 *\n\n";
        assert_eq!(
            mark_duplicate(text, "a.pgn game 5"),
            "[Event \"x\"]\n[Result \"*\"]\n[DuplicateOf \"a.pgn game 5\"]\n\n1. e4 *\n\n"
        );
    }
}
