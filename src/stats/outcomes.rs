//! Statistics stage, results and material: counts of results by year,
//! speed, rating gap, declared result, end state, termination and draw
//! reason (`results`); by material difference at fixed plies (`material`);
//! and by endgame (`endgames`). Only sums and counts, merged by addition.

use std::ops::AddAssign;

use shakmaty::{Color, Role};

use super::counts::Counts;
use super::spill::{BoundedMap, Codec, Fields, SpillDir};
use crate::model::TimeClass;
use crate::pgn::result::GameResult;
use crate::replay::EndState;
use crate::replay::draw::DrawReason;
use crate::replay::material::{CHECKPOINTS, Material, PieceValues};
use crate::replay::variant::VariantName;

/// What one accepted game adds to these tables.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OutcomeFacts<'a> {
    pub variant: VariantName,
    pub year: Option<i32>,
    pub time_class: TimeClass,
    pub white_elo: Option<i32>,
    pub black_elo: Option<i32>,
    pub declared: Option<GameResult>,
    pub end_state: EndState,
    pub termination: Option<&'a str>,
    pub draw_reason: Option<DrawReason>,
    /// The result the statistics count (see `counted_result`).
    pub counted: Option<GameResult>,
    pub diff_at: [Option<i32>; 4],
    /// The first endgame position's material and the plies from it to the end.
    pub endgame: Option<(Material, u32)>,
}

/// White Elo − black Elo in 50-point buckets (the lower bound), clamped to
/// −800..=800; None when a rating is missing.
pub(crate) fn rating_diff_bucket(white: Option<i32>, black: Option<i32>) -> Option<i32> {
    let diff = white? - black?;
    Some((diff.div_euclid(50) * 50).clamp(-800, 800))
}

/// The key columns of a `results` row as written.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ResultRow<'a> {
    pub variant_name: &'a str,
    pub year: Option<i32>,
    pub time_class: &'a str,
    pub rating_diff_bucket: Option<i32>,
    pub declared: Option<&'a str>,
    pub end_state: &'a str,
    pub draw_reason: Option<&'a str>,
    pub termination: Option<&'a str>,
}

/// The key of a `results` row. Null is the smallest value of each field;
/// the termination tag is keyed by a stable hash and kept in the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResultKey {
    /// First, so that standard chess (0) comes first.
    pub variant: u8,
    pub year: i32,
    pub time_class: u8,
    pub rating_diff_bucket: i32,
    pub declared: u8,
    pub end_state: u8,
    pub draw_reason: u8,
    pub termination: u64,
}

const NULL_INT: i32 = i32::MIN;

impl ResultKey {
    fn of(game: &OutcomeFacts<'_>) -> ResultKey {
        ResultKey {
            variant: game.variant as u8,
            year: game.year.unwrap_or(NULL_INT),
            time_class: game.time_class as u8,
            rating_diff_bucket: rating_diff_bucket(game.white_elo, game.black_elo)
                .unwrap_or(NULL_INT),
            declared: game.declared.map_or(0, |r| result_code(r) + 1),
            end_state: game.end_state as u8,
            draw_reason: game.draw_reason.map_or(0, |r| r as u8 + 1),
            termination: game.termination.map_or(0, termination_hash),
        }
    }

    /// The key of a row read back from a `results` table (`merge`); None
    /// when a name is not one this version writes.
    pub(crate) fn from_row(row: &ResultRow<'_>) -> Option<ResultKey> {
        fn position(names: &[&str], name: &str) -> Option<u8> {
            let at = names.iter().position(|&n| n == name)?;
            u8::try_from(at).ok()
        }
        // Null is 0, a name its place + 1.
        let optional = |names: &[&str], name: Option<&str>| {
            name.map_or(Some(0), |name| position(names, name).map(|i| i + 1))
        };
        Some(ResultKey {
            variant: VariantName::parse(row.variant_name)? as u8,
            year: row.year.unwrap_or(NULL_INT),
            time_class: position(&TimeClass::ALL.map(|t| t.as_str()), row.time_class)?,
            rating_diff_bucket: row.rating_diff_bucket.unwrap_or(NULL_INT),
            declared: optional(&RESULTS.map(|r| r.as_str()), row.declared)?,
            end_state: position(&EndState::ALL.map(|e| e.as_str()), row.end_state)?,
            draw_reason: optional(&DrawReason::ALL.map(|d| d.as_str()), row.draw_reason)?,
            termination: row.termination.map_or(0, termination_hash),
        })
    }

    pub(crate) fn year(&self) -> Option<i32> {
        (self.year != NULL_INT).then_some(self.year)
    }

    pub(crate) fn variant_name(&self) -> &'static str {
        variant_at(self.variant).as_str()
    }

    pub(crate) fn rating_diff_bucket(&self) -> Option<i32> {
        (self.rating_diff_bucket != NULL_INT).then_some(self.rating_diff_bucket)
    }

    pub(crate) fn time_class(&self) -> &'static str {
        TimeClass::ALL[usize::from(self.time_class)].as_str()
    }

    pub(crate) fn declared(&self) -> Option<&'static str> {
        // 0: no result declared.
        let code = usize::from(self.declared).checked_sub(1)?;
        Some(RESULTS[code].as_str())
    }

    pub(crate) fn end_state(&self) -> &'static str {
        EndState::ALL[usize::from(self.end_state)].as_str()
    }

    pub(crate) fn draw_reason(&self) -> Option<&'static str> {
        // 0: not a draw by rule.
        let code = usize::from(self.draw_reason).checked_sub(1)?;
        Some(DrawReason::ALL[code].as_str())
    }

    /// Whether every code names a value, as the key's constructors make
    /// them (a run file's record is checked: the accessors index by them).
    fn codes_in_range(&self) -> bool {
        usize::from(self.variant) < VariantName::ALL.len()
            && usize::from(self.time_class) < TimeClass::ALL.len()
            && usize::from(self.declared) <= RESULTS.len()
            && usize::from(self.end_state) < EndState::ALL.len()
            && usize::from(self.draw_reason) <= DrawReason::ALL.len()
    }
}

/// The variant of a code made from a [`VariantName`] (or checked so when
/// read from a run file).
fn variant_at(code: u8) -> VariantName {
    VariantName::ALL[usize::from(code)]
}

const RESULTS: [GameResult; 4] = [
    GameResult::WhiteWins,
    GameResult::BlackWins,
    GameResult::Draw,
    GameResult::Unfinished,
];

/// The place of `result` in [`RESULTS`].
fn result_code(result: GameResult) -> u8 {
    match result {
        GameResult::WhiteWins => 0,
        GameResult::BlackWins => 1,
        GameResult::Draw => 2,
        GameResult::Unfinished => 3,
    }
}

/// FNV-1a: stable across runs and platforms (never 0, which means null).
fn termination_hash(text: &str) -> u64 {
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    hash | 1
}

/// A `results` row's termination text and counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResultValue {
    pub termination: Option<Box<str>>,
    pub counts: Counts,
}

pub struct ResultsCodec;

impl Codec for ResultsCodec {
    type Key = ResultKey;
    type Value = ResultValue;

    fn encode(key: &ResultKey, value: &ResultValue, out: &mut Vec<u8>) {
        out.extend_from_slice(&key.year.to_le_bytes());
        out.extend_from_slice(&[
            key.variant,
            key.time_class,
            key.declared,
            key.end_state,
            key.draw_reason,
        ]);
        out.extend_from_slice(&key.rating_diff_bucket.to_le_bytes());
        out.extend_from_slice(&key.termination.to_le_bytes());
        value.counts.encode(out);
        if let Some(text) = &value.termination {
            out.extend_from_slice(text.as_bytes());
        }
    }

    fn decode(bytes: &[u8]) -> Option<(ResultKey, ResultValue)> {
        let mut fields = Fields(bytes);
        let year = fields.i32()?;
        let [variant, time_class, declared, end_state, draw_reason] = fields.bytes::<5>()?;
        let key = ResultKey {
            variant,
            year,
            time_class,
            declared,
            end_state,
            draw_reason,
            rating_diff_bucket: fields.i32()?,
            termination: fields.u64()?,
        };
        if !key.codes_in_range() {
            return None;
        }
        let counts = Counts::decode(&mut fields)?;
        let text = fields.rest();
        let termination = if key.termination == 0 {
            None
        } else {
            Some(std::str::from_utf8(text).ok()?.into())
        };
        Some((
            key,
            ResultValue {
                termination,
                counts,
            },
        ))
    }

    fn combine(into: &mut ResultValue, from: ResultValue) {
        into.counts += &from.counts;
        // Two texts share a key only on a hash collision: keep the same
        // one whatever the merge order.
        if from.termination < into.termination {
            into.termination = from.termination;
        }
    }

    fn heap_bytes(value: &ResultValue) -> usize {
        value.termination.as_ref().map_or(0, |t| t.len())
    }
}

/// `material_diff` values kept; larger differences are clamped.
pub(crate) const MATERIAL_CLAMP: i32 = 9;
const DIFFS: usize = (2 * MATERIAL_CLAMP + 1) as usize;

/// Results by (checkpoint ply, material difference at it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MaterialTable {
    cells: [[Counts; DIFFS]; CHECKPOINTS.len()],
}

impl Default for MaterialTable {
    fn default() -> Self {
        MaterialTable {
            cells: [[Counts::default(); DIFFS]; CHECKPOINTS.len()],
        }
    }
}

impl MaterialTable {
    /// Standard chess and Chess960 only: a material lead means something
    /// else where pieces come back (Crazyhouse) or are a burden (Antichess).
    fn add(&mut self, game: &OutcomeFacts<'_>) {
        if !game.variant.is_standard_rules() {
            return;
        }
        for (row, diff) in self.cells.iter_mut().zip(game.diff_at) {
            let Some(diff) = diff else { continue };
            let index = (diff.clamp(-MATERIAL_CLAMP, MATERIAL_CLAMP) + MATERIAL_CLAMP) as usize;
            if let Some(cell) = row.get_mut(index) {
                cell.add_game(game.counted);
            }
        }
    }

    /// Adds a row read back from a `material` table (`merge`); false when
    /// the ply or difference is not one of the table's.
    pub(crate) fn add_row(&mut self, ply: u32, diff: i32, counts: &Counts) -> bool {
        let row = CHECKPOINTS.iter().position(|&p| p == ply);
        let column = usize::try_from(diff + MATERIAL_CLAMP).ok();
        match row
            .zip(column)
            .and_then(|(r, c)| self.cells.get_mut(r)?.get_mut(c))
        {
            Some(cell) => {
                *cell += counts;
                true
            }
            None => false,
        }
    }

    /// (checkpoint ply, material difference, counts) of the cells with games.
    pub(crate) fn rows(&self) -> impl Iterator<Item = (u32, i32, &Counts)> {
        self.cells.iter().zip(CHECKPOINTS).flat_map(|(row, ply)| {
            row.iter()
                .enumerate()
                .filter(|(_, c)| c.games > 0)
                .map(move |(i, c)| (ply, i as i32 - MATERIAL_CLAMP, c))
        })
    }
}

impl AddAssign<&MaterialTable> for MaterialTable {
    fn add_assign(&mut self, other: &MaterialTable) {
        for (mine, theirs) in self.cells.iter_mut().zip(&other.cells) {
            for (a, b) in mine.iter_mut().zip(theirs) {
                *a += b;
            }
        }
    }
}

/// An endgame's material, stronger side first, packed: four bits per
/// count of queens, rooks, bishops, knights and pawns of each side; the
/// variant in the top byte (standard chess is 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EndgameKey(pub u64);

const VARIANT_SHIFT: u32 = 56;

const KEY_ROLES: [Role; 5] = [
    Role::Queen,
    Role::Rook,
    Role::Bishop,
    Role::Knight,
    Role::Pawn,
];

impl EndgameKey {
    fn of(material: &Material, stronger: Color, variant: VariantName) -> EndgameKey {
        let mut key = 0u64;
        for color in [stronger, !stronger] {
            for role in KEY_ROLES {
                key = (key << 4) | u64::from(material.count(color, role).min(15));
            }
        }
        EndgameKey(key | (variant as u64) << VARIANT_SHIFT)
    }

    /// The key of a signature as [`EndgameKey::signature`] writes it, in
    /// `variant`.
    pub fn parse(signature: &str, variant: VariantName) -> Option<EndgameKey> {
        let (stronger, weaker) = signature.split_once('v')?;
        let mut key = 0u64;
        for side in [stronger, weaker] {
            let pieces = side.strip_prefix('K')?;
            let mut counts = [0u64; KEY_ROLES.len()];
            for letter in pieces.chars() {
                let role = Role::from_char(letter)?;
                let at = KEY_ROLES.iter().position(|&r| r == role)?;
                *counts.get_mut(at)? += 1;
            }
            for n in counts {
                key = (key << 4) | n.min(15);
            }
        }
        let key = EndgameKey(key | (variant as u64) << VARIANT_SHIFT);
        (key.signature() == signature).then_some(key)
    }

    pub(crate) fn variant(&self) -> VariantName {
        variant_at((self.0 >> VARIANT_SHIFT) as u8)
    }

    /// `KRPvKR`.
    pub fn signature(&self) -> String {
        let mut out = String::from("K");
        for (i, role) in KEY_ROLES.iter().chain(KEY_ROLES.iter()).enumerate() {
            if i == KEY_ROLES.len() {
                out.push_str("vK");
            }
            let shift = 4 * (2 * KEY_ROLES.len() - 1 - i);
            for _ in 0..(self.0 >> shift) & 15 {
                out.push(role.upper_char());
            }
        }
        out
    }
}

/// An endgame's games, results seen from the stronger side, and plies
/// from the endgame to the end.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EndgameValue {
    pub games: u64,
    pub stronger_side_wins: u64,
    pub draws: u64,
    pub weaker_side_wins: u64,
    pub plies_sum: u64,
}

impl EndgameValue {
    pub(crate) fn unfinished(&self) -> u64 {
        self.games - self.stronger_side_wins - self.draws - self.weaker_side_wins
    }
}

pub struct EndgamesCodec;

impl Codec for EndgamesCodec {
    type Key = EndgameKey;
    type Value = EndgameValue;

    fn encode(key: &EndgameKey, v: &EndgameValue, out: &mut Vec<u8>) {
        for n in [
            key.0,
            v.games,
            v.stronger_side_wins,
            v.draws,
            v.weaker_side_wins,
            v.plies_sum,
        ] {
            out.extend_from_slice(&n.to_le_bytes());
        }
    }

    fn decode(bytes: &[u8]) -> Option<(EndgameKey, EndgameValue)> {
        let mut fields = Fields(bytes);
        let key = EndgameKey(fields.u64()?);
        if usize::from((key.0 >> VARIANT_SHIFT) as u8) >= VariantName::ALL.len() {
            return None;
        }
        let value = EndgameValue {
            games: fields.u64()?,
            stronger_side_wins: fields.u64()?,
            draws: fields.u64()?,
            weaker_side_wins: fields.u64()?,
            plies_sum: fields.u64()?,
        };
        fields.rest().is_empty().then_some((key, value))
    }

    fn combine(into: &mut EndgameValue, from: EndgameValue) {
        into.games += from.games;
        into.stronger_side_wins += from.stronger_side_wins;
        into.draws += from.draws;
        into.weaker_side_wins += from.weaker_side_wins;
        into.plies_sum += from.plies_sum;
    }
}

/// A worker's results, material and endgame aggregates.
pub struct Outcomes<'s> {
    pub results: BoundedMap<'s, ResultsCodec>,
    pub material: MaterialTable,
    pub endgames: BoundedMap<'s, EndgamesCodec>,
    values: PieceValues,
}

impl<'s> Outcomes<'s> {
    pub fn new(
        budget: usize,
        values: PieceValues,
        results: &'s SpillDir,
        endgames: &'s SpillDir,
    ) -> Self {
        Outcomes {
            results: BoundedMap::new(budget / 2, results),
            material: MaterialTable::default(),
            endgames: BoundedMap::new(budget / 2, endgames),
            values,
        }
    }

    pub(crate) fn add(&mut self, game: &OutcomeFacts<'_>) {
        let counted = game.counted;
        self.results.upsert(
            ResultKey::of(game),
            || ResultValue {
                termination: game.termination.map(Into::into),
                counts: Counts::default(),
            },
            |value| value.counts.add_game(counted),
        );
        self.material.add(game);
        if let Some((material, plies_after)) = game.endgame {
            let stronger = material.stronger(&self.values);
            self.endgames.upsert(
                EndgameKey::of(&material, stronger, game.variant),
                EndgameValue::default,
                |value| {
                    value.games += 1;
                    value.plies_sum += u64::from(plies_after);
                    match counted {
                        Some(GameResult::Draw) => value.draws += 1,
                        Some(GameResult::WhiteWins) if stronger == Color::White => {
                            value.stronger_side_wins += 1;
                        }
                        Some(GameResult::BlackWins) if stronger == Color::Black => {
                            value.stronger_side_wins += 1;
                        }
                        Some(GameResult::WhiteWins | GameResult::BlackWins) => {
                            value.weaker_side_wins += 1;
                        }
                        Some(GameResult::Unfinished) | None => {}
                    }
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rating_buckets() {
        assert_eq!(rating_diff_bucket(Some(2000), Some(2000)), Some(0));
        assert_eq!(rating_diff_bucket(Some(2049), Some(2000)), Some(0));
        assert_eq!(rating_diff_bucket(Some(2050), Some(2000)), Some(50));
        assert_eq!(rating_diff_bucket(Some(1999), Some(2000)), Some(-50));
        assert_eq!(rating_diff_bucket(Some(2000), Some(2050)), Some(-50));
        assert_eq!(rating_diff_bucket(Some(2000), Some(2051)), Some(-100));
        assert_eq!(rating_diff_bucket(Some(3000), Some(1000)), Some(800));
        assert_eq!(rating_diff_bucket(Some(1000), Some(3000)), Some(-800));
        assert_eq!(rating_diff_bucket(None, Some(3000)), None);
    }

    #[test]
    fn endgame_keys_spell_their_signature() {
        let key = EndgameKey((0x01001 << 20) | 0x01000);
        assert_eq!(key.signature(), "KRPvKR");
        assert_eq!(EndgameKey(0).signature(), "KvK");
        let atomic = EndgameKey::parse("KRPvKR", VariantName::Atomic);
        assert_eq!(atomic.map(|k| k.signature()).as_deref(), Some("KRPvKR"));
        assert_eq!(atomic.map(|k| k.variant()), Some(VariantName::Atomic));
    }

    #[test]
    fn result_records_round_trip() {
        let key = ResultKey {
            variant: 2,
            year: 2024,
            time_class: 2,
            rating_diff_bucket: -150,
            declared: 3,
            end_state: 6,
            draw_reason: 9,
            termination: termination_hash("Normal"),
        };
        let value = ResultValue {
            termination: Some("Normal".into()),
            counts: Counts {
                games: 3,
                white_wins: 1,
                draws: 1,
                black_wins: 0,
            },
        };
        let mut bytes = Vec::new();
        ResultsCodec::encode(&key, &value, &mut bytes);
        assert_eq!(ResultsCodec::decode(&bytes), Some((key, value.clone())));
        assert_eq!(key.draw_reason(), Some("agreement_or_other"));
        assert_eq!(key.declared(), Some("1/2-1/2"));
        assert_eq!(key.time_class(), "blitz");
        assert_eq!(key.end_state(), "none");
        assert_eq!(key.variant_name(), "crazyhouse");
        // A code past its list is a damaged record, not a default.
        for damaged in [
            ResultKey { variant: 9, ..key },
            ResultKey {
                time_class: 7,
                ..key
            },
            ResultKey { declared: 5, ..key },
            ResultKey {
                end_state: 200,
                ..key
            },
            ResultKey {
                draw_reason: 200,
                ..key
            },
        ] {
            let mut bytes = Vec::new();
            ResultsCodec::encode(&damaged, &value, &mut bytes);
            assert_eq!(ResultsCodec::decode(&bytes), None);
        }
        let mut bytes = Vec::new();
        let endgame = EndgameValue {
            games: 1,
            stronger_side_wins: 1,
            draws: 0,
            weaker_side_wins: 0,
            plies_sum: 80,
        };
        EndgamesCodec::encode(&EndgameKey(9 << VARIANT_SHIFT), &endgame, &mut bytes);
        assert!(EndgamesCodec::decode(&bytes).is_none());
    }

    #[test]
    fn result_codes_are_places_in_results() {
        for (code, result) in RESULTS.iter().enumerate() {
            assert_eq!(usize::from(result_code(*result)), code);
        }
    }
}
