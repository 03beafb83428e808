//! Replay stage, opening names: the lichess chess-openings table, embedded in
//! the binary and indexed by position, so that a game is named by the deepest
//! table position its mainline reaches, whatever the move order.

use std::collections::HashMap;
use std::sync::OnceLock;

use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, EnPassantMode, Position, san::SanPlus};

use crate::replay::keyhash::KeyHasher;

/// lichess-org/chess-openings, CC0-1.0: `eco`, `name`, `pgn` per line.
const TABLES: [&str; 5] = [
    include_str!("../../data/openings/a.tsv"),
    include_str!("../../data/openings/b.tsv"),
    include_str!("../../data/openings/c.tsv"),
    include_str!("../../data/openings/d.tsv"),
    include_str!("../../data/openings/e.tsv"),
];

/// A named opening: one (eco, name) pair of the table. Several table lines
/// (different positions) may share it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OpeningName {
    pub eco: &'static str,
    pub name: &'static str,
}

impl OpeningName {
    /// The part of the name before the `:`, e.g. `Sicilian Defense`.
    pub(crate) fn family(&self) -> &'static str {
        self.name.split(':').next().unwrap_or(self.name).trim()
    }
}

/// A game's opening: the named opening and the ply of the deepest mainline
/// position found in the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpeningMatch {
    /// Index into the opening index's names (sorted by ECO, then name).
    pub name_id: u16,
    pub ply: u32,
}

/// The table, indexed by the position key of each line's final position.
#[derive(Debug)]
pub(crate) struct OpeningIndex {
    names: Vec<OpeningName>,
    by_position: HashMap<u64, u16, KeyHasher>,
    max_plies: usize,
}

/// The index, built on first use and shared by every thread.
pub(crate) fn index() -> &'static OpeningIndex {
    static INDEX: OnceLock<OpeningIndex> = OnceLock::new();
    INDEX.get_or_init(OpeningIndex::build)
}

/// The position key of pgnlake's tables: shakmaty's 64-bit Zobrist hash with
/// the en passant file only when a capture is legal. Its random numbers are
/// those of the Polyglot book format, so the key equals the Polyglot key
/// except when the only pawn able to take en passant is pinned.
pub(crate) fn position_key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// A position key as the tables store it: a signed 64-bit integer holding
/// the same 64 bits (two's complement), because Spark, BigQuery and Trino
/// have no unsigned 64-bit type. The Polyglot key is the column read back as
/// unsigned: `CAST(position_key AS UBIGINT)` in DuckDB, `k & 0xFFFFFFFFFFFFFFFF`
/// in Python.
pub(crate) fn stored_key(key: u64) -> i64 {
    key.cast_signed()
}

impl OpeningIndex {
    fn build() -> OpeningIndex {
        let mut entries: Vec<(OpeningName, u64, usize)> = Vec::new();
        for table in TABLES {
            for line in table.lines().skip(1) {
                let mut fields = line.split('\t');
                let (Some(eco), Some(name), Some(pgn)) =
                    (fields.next(), fields.next(), fields.next())
                else {
                    continue;
                };
                // Lines are replayed once here; a line that does not replay
                // (there is none in the shipped table) is left out.
                if let Some((pos, plies)) = play_line(pgn.split_ascii_whitespace()) {
                    entries.push((OpeningName { eco, name }, position_key(&pos), plies));
                }
            }
        }
        let mut names: Vec<OpeningName> = entries.iter().map(|(n, _, _)| n.clone()).collect();
        names.sort_by(|a, b| (a.eco, a.name).cmp(&(b.eco, b.name)));
        names.dedup();
        let mut by_position = HashMap::with_hasher(KeyHasher);
        let mut max_plies = 0;
        for (name, key, plies) in &entries {
            let Ok(id) = names.binary_search_by(|n| (n.eco, n.name).cmp(&(name.eco, name.name)))
            else {
                continue;
            };
            // The first line of a position wins (the shipped table has no
            // two lines with one position).
            by_position.entry(*key).or_insert(id as u16);
            max_plies = max_plies.max(*plies);
        }
        OpeningIndex {
            names,
            by_position,
            max_plies,
        }
    }

    /// Distinct (eco, name) pairs, sorted by eco then name.
    #[cfg(test)]
    pub fn names(&self) -> &[OpeningName] {
        &self.names
    }

    pub(crate) fn name(&self, id: u16) -> Option<&OpeningName> {
        self.names.get(id as usize)
    }

    /// The id of a name (names are sorted by eco, then name).
    pub(crate) fn id_of(&self, eco: &str, name: &str) -> Option<u16> {
        let at = self
            .names
            .binary_search_by(|n| (n.eco, n.name).cmp(&(eco, name)))
            .ok()?;
        u16::try_from(at).ok()
    }

    /// The named opening of one position, if the table has it.
    pub(crate) fn lookup(&self, key: u64) -> Option<u16> {
        self.by_position.get(&key).copied()
    }

    /// The deepest position of a mainline (`keys[ply]` = position key after
    /// `ply` plies) that the table names.
    pub(crate) fn classify(&self, keys: &[u64]) -> Option<OpeningMatch> {
        let last = keys.len().saturating_sub(1).min(self.max_plies);
        (1..=last).rev().find_map(|ply| {
            let key = keys.get(ply)?;
            self.lookup(*key).map(|name_id| OpeningMatch {
                name_id,
                ply: ply as u32,
            })
        })
    }
}

/// Plays SAN tokens from the start position, skipping move numbers such as
/// `1.` or `1...`. None when a token is not a legal move.
pub(crate) fn play_line<'a>(tokens: impl Iterator<Item = &'a str>) -> Option<(Chess, usize)> {
    let mut pos = Chess::default();
    let mut plies = 0;
    for token in tokens {
        let san = strip_move_number(token);
        if san.is_empty() {
            continue;
        }
        let m = SanPlus::from_ascii(san.as_bytes())
            .ok()?
            .san
            .to_move(&pos)
            .ok()?;
        pos.play_unchecked(m);
        plies += 1;
    }
    Some((pos, plies))
}

/// `12.` → ``, `12...Nf6` → `Nf6`, `e4` → `e4`.
pub(crate) fn strip_move_number(token: &str) -> &str {
    let rest = token.trim_start_matches(|c: char| c.is_ascii_digit());
    if rest.len() < token.len() && rest.starts_with('.') {
        rest.trim_start_matches('.')
    } else {
        token
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classify_moves(moves: &str) -> Option<(&'static str, &'static str, u32)> {
        let mut pos = Chess::default();
        let mut keys = vec![position_key(&pos)];
        for san in moves.split_whitespace() {
            let m = SanPlus::from_ascii(san.as_bytes())
                .ok()?
                .san
                .to_move(&pos)
                .ok()?;
            pos.play_unchecked(m);
            keys.push(position_key(&pos));
        }
        let found = index().classify(&keys)?;
        let name = index().name(found.name_id)?;
        Some((name.eco, name.name, found.ply))
    }

    #[test]
    fn every_line_of_the_table_replays_to_its_own_position() {
        let index = index();
        assert_eq!(index.by_position.len(), 3807);
        assert_eq!(index.names().len(), 3329);
        assert_eq!(index.max_plies, 36);
    }

    #[test]
    fn the_start_position_key_is_the_polyglot_key() {
        assert_eq!(position_key(&Chess::default()), 0x463b_9618_1691_fc9c);
    }

    #[test]
    fn transpositions_get_the_same_name() {
        let a = classify_moves("d4 Nf6 c4 e6 Nc3 Bb4");
        let b = classify_moves("c4 e6 d4 Nf6 Nc3 Bb4");
        assert_eq!(a, Some(("E20", "Nimzo-Indian Defense", 6)));
        assert_eq!(a, b);
        let c = classify_moves("Nf3 d5 d4 Nf6");
        assert_eq!(
            c,
            Some(("D02", "Queen's Pawn Game: Symmetrical Variation", 4))
        );
        assert_eq!(c, classify_moves("d4 d5 Nf3 Nf6"));
    }

    #[test]
    fn a_position_the_table_does_not_name_keeps_its_last_named_ancestor() {
        // The table has no line ending after 1.d4 Nf6 2.c4 e6, whatever the
        // order, so each order keeps the deepest name it passed (as lichess
        // shows it).
        assert_eq!(
            classify_moves("d4 Nf6 c4 e6"),
            Some(("A50", "Indian Defense: Normal Variation", 3))
        );
        assert_eq!(
            classify_moves("c4 e6 d4 Nf6"),
            Some(("A13", "English Opening: Agincourt Defense", 2))
        );
    }

    #[test]
    fn the_deepest_named_position_wins() {
        assert_eq!(
            classify_moves("e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6 h3"),
            Some((
                "B90",
                "Sicilian Defense: Najdorf Variation, Adams Attack",
                11
            ))
        );
        assert_eq!(
            classify_moves("e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O a3 Bb7"),
            Some(("C90", "Ruy Lopez: Closed, Suetin Variation", 17))
        );
        assert_eq!(classify_moves(""), None);
    }

    #[test]
    fn family_is_the_name_before_the_colon() {
        let name = OpeningName {
            eco: "B90",
            name: "Sicilian Defense: Najdorf Variation",
        };
        assert_eq!(name.family(), "Sicilian Defense");
        let plain = OpeningName {
            eco: "A00",
            name: "Amar Opening",
        };
        assert_eq!(plain.family(), "Amar Opening");
    }

    #[test]
    fn move_numbers_are_stripped() {
        assert_eq!(strip_move_number("12."), "");
        assert_eq!(strip_move_number("12...Nf6"), "Nf6");
        assert_eq!(strip_move_number("1.e4"), "e4");
        assert_eq!(strip_move_number("e4"), "e4");
        assert_eq!(strip_move_number("O-O"), "O-O");
    }
}
