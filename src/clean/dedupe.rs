//! Archivist mode, duplicates (`clean --dedupe`): a first pass over the
//! inputs keys every clean game; games that share a key form a group, whose
//! richest copy is kept and the others marked as its duplicates. Keys are
//! collected in a spilling map, so the first pass stays within the memory
//! budget; only the duplicates found are held in memory for the second pass.

use std::collections::HashMap;

use crate::pgn::result::GameResult;
use crate::sink::pgn::ExportGame;
use crate::stats::spill::{Codec, Fields};

/// What makes two games the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum DedupeMode {
    /// No duplicate search.
    #[default]
    None,
    /// Same tags (in any order) and same moves.
    Exact,
    /// Same start position and same mainline, whatever the tags (a game
    /// without moves: as `exact`).
    Moves,
    /// As `moves`, and also a game whose mainline is a strict prefix of
    /// another game's with the same players (a truncated copy).
    Contained,
}

/// What the first pass learns of a clean game.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct DupFacts {
    pub exact: u64,
    pub moves: u64,
    /// White and black, trimmed and lower-cased.
    pub players: u64,
    /// The start FEN and the mainline as text (`contained` only).
    pub line: Option<String>,
    /// Higher is richer: a finished result, then more tags, then both
    /// ratings, then more annotations, then more plies.
    pub richness: u64,
}

impl DupFacts {
    /// `with_line`: also keep the mainline text, for `contained`.
    pub(crate) fn of(game: &ExportGame, with_line: bool) -> DupFacts {
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
        let finished = u64::from(game.result != GameResult::Unfinished.as_str());
        let ratings = u64::from(has("WhiteElo") && has("BlackElo"));
        let richness = (finished << 63)
            | ((game.tags.len().min(255) as u64) << 55)
            | (ratings << 54)
            | ((annotations.min(0xFFFF) as u64) << 38)
            | ((game.moves.len().min(0xFFFF) as u64) << 22);
        let mut players = Fnv::default();
        for name in ["White", "Black"] {
            let value = game
                .tags
                .iter()
                .find(|(n, _)| n == name)
                .map_or(String::new(), |(_, v)| v.trim().to_lowercase());
            players.add(value.as_bytes());
        }
        let line = with_line.then(|| {
            let mut text = format!("{fen}|");
            for (i, m) in game.moves.iter().enumerate() {
                if i > 0 {
                    text.push(' ');
                }
                text.push_str(&m.san);
            }
            text
        });
        DupFacts {
            exact: exact.0,
            // A game without moves has no line to be the same by (every
            // forfeit would be one game): it is a duplicate of its exact
            // copies only.
            moves: if game.moves.is_empty() {
                exact.0
            } else {
                moves.0
            },
            players: players.0,
            line,
            richness,
        }
    }

    pub(crate) fn key(&self, mode: DedupeMode) -> Option<u64> {
        match mode {
            DedupeMode::None => None,
            DedupeMode::Exact => Some(self.exact),
            DedupeMode::Moves => Some(self.moves),
            DedupeMode::Contained => Some(self.players),
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
pub(crate) struct DupKey {
    pub key: u64,
    pub game_id: u64,
}

/// Its richness and input position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DupValue {
    pub richness: u64,
    pub source: u32,
    pub game_index: u64,
}

pub(crate) struct DupCodec;

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
        let mut fields = Fields(bytes);
        let (key, value) = decode_dup(&mut fields)?;
        fields.rest().is_empty().then_some((key, value))
    }

    /// Keys are unique (one per game): nothing to add up.
    fn combine(_into: &mut DupValue, _from: DupValue) {}
}

/// The fixed part both codecs write: key, game number, richness, position.
fn decode_dup(fields: &mut Fields<'_>) -> Option<(DupKey, DupValue)> {
    let key = DupKey {
        key: fields.u64()?,
        game_id: fields.u64()?,
    };
    let value = DupValue {
        richness: fields.u64()?,
        source: fields.u32()?,
        game_index: fields.u64()?,
    };
    Some((key, value))
}

/// The duplicates of a group sorted by key: every game but the richest
/// (earliest on a tie), each with the kept game's input position.
pub(crate) fn losers_of(
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

/// A game of a `contained` search: richness, position and mainline text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LineValue {
    pub richness: u64,
    pub source: u32,
    pub game_index: u64,
    pub line: String,
}

pub(crate) struct LineCodec;

impl Codec for LineCodec {
    type Key = DupKey;
    type Value = LineValue;

    fn encode(key: &DupKey, value: &LineValue, out: &mut Vec<u8>) {
        let fixed = DupValue {
            richness: value.richness,
            source: value.source,
            game_index: value.game_index,
        };
        DupCodec::encode(key, &fixed, out);
        out.extend_from_slice(value.line.as_bytes());
    }

    fn decode(bytes: &[u8]) -> Option<(DupKey, LineValue)> {
        let mut fields = Fields(bytes);
        let (key, fixed) = decode_dup(&mut fields)?;
        let line = std::str::from_utf8(fields.rest()).ok()?.to_owned();
        let value = LineValue {
            richness: fixed.richness,
            source: fixed.source,
            game_index: fixed.game_index,
            line,
        };
        Some((key, value))
    }

    fn combine(_into: &mut LineValue, _from: LineValue) {}

    fn heap_bytes(value: &LineValue) -> usize {
        value.line.capacity()
    }
}

/// The duplicates among the games of one pair of players: equal mainlines
/// keep their richest copy; a mainline that is a strict prefix of another
/// is a duplicate of that line's kept game (following the chain to the
/// longest line).
pub(crate) fn contained_losers(
    group: &mut [(DupKey, LineValue)],
    sources: &[String],
    losers: &mut HashMap<u64, String>,
) {
    group.sort_by(|a, b| {
        a.1.line
            .cmp(&b.1.line)
            .then(b.1.richness.cmp(&a.1.richness))
            .then(a.0.game_id.cmp(&b.0.game_id))
    });
    // Runs of equal lines; the first of each run is its richest copy.
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for (i, (_, value)) in group.iter().enumerate() {
        match runs.last_mut() {
            Some((start, end)) if group[*start].1.line == value.line => *end = i + 1,
            _ => runs.push((i, i + 1)),
        }
    }
    let position = |i: usize| {
        let value = &group[i].1;
        let source = sources
            .get(value.source as usize)
            .map_or("", String::as_str);
        format!("{source} game {}", value.game_index)
    };
    // The kept game of each run, from the last run back.
    let mut kept: Vec<usize> = runs.iter().map(|&(start, _)| start).collect();
    for r in (0..runs.len().saturating_sub(1)).rev() {
        let (this, next) = (runs[r].0, runs[r + 1].0);
        let prefix = format!("{} ", group[this].1.line);
        if group[next].1.line.starts_with(&prefix) {
            kept[r] = kept[r + 1];
        }
    }
    for (r, &(start, end)) in runs.iter().enumerate() {
        let keeper = kept[r];
        for (i, (key, _)) in group.iter().enumerate().take(end).skip(start) {
            if i != keeper {
                losers.insert(key.game_id, position(keeper));
            }
        }
    }
}

/// `text` (one game in export format) with a tag naming the kept game,
/// added after the other tags.
pub(crate) fn mark_duplicate(text: &str, kept: &str) -> String {
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
    fn truncated_copies_are_duplicates_of_the_longest_line() {
        let sources = vec!["a.pgn".to_owned()];
        let game = |id: u64, line: &str| {
            (
                DupKey {
                    key: 1,
                    game_id: id,
                },
                LineValue {
                    richness: 0,
                    source: 0,
                    game_index: id + 1,
                    line: line.to_owned(),
                },
            )
        };
        let mut group = vec![
            game(0, "|e4 e5"),
            game(1, "|e4 e5 Nf3 Nc6"),
            game(2, "|e4 e5 Nf3"),
            game(3, "|d4"),
            game(4, "|e4 e5 Nf3 Nc6"),
        ];
        let mut losers = HashMap::new();
        contained_losers(&mut group, &sources, &mut losers);
        let mut found: Vec<(u64, String)> = losers.into_iter().collect();
        found.sort();
        assert_eq!(
            found,
            [
                (0, "a.pgn game 2".to_owned()),
                (2, "a.pgn game 2".to_owned()),
                (4, "a.pgn game 2".to_owned()),
            ]
        );
    }

    #[test]
    fn records_round_trip_through_run_files() {
        let key = DupKey { key: 3, game_id: 9 };
        let mut bytes = Vec::new();
        DupCodec::encode(&key, &value(5, 2), &mut bytes);
        assert_eq!(DupCodec::decode(&bytes), Some((key, value(5, 2))));
        assert_eq!(DupCodec::decode(&bytes[1..]), None);
        let line = LineValue {
            richness: 5,
            source: 1,
            game_index: 2,
            line: "|e4 e5".into(),
        };
        bytes.clear();
        LineCodec::encode(&key, &line, &mut bytes);
        assert_eq!(LineCodec::decode(&bytes), Some((key, line)));
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
