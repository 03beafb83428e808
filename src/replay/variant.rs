//! Replay stage, variants: the lichess variants (Crazyhouse, Atomic,
//! Antichess, King of the Hill, Three-check, Horde, Racing Kings) replayed on
//! shakmaty's variant positions, with their own end states, insufficient
//! material and position identity (pockets and check counters included).

use std::fmt::Write;

use shakmaty::san::SanPlus;
use shakmaty::variant::{Variant, VariantPosition};
use shakmaty::zobrist::Zobrist64;
use shakmaty::{
    Board, CastlingMode, Color, EnPassantMode, KnownOutcome, Move, Outcome, Position, Rank,
};

use super::material::Material;
use super::reject::{Rejection, move_error, null_move};
use super::repetition::{DrawWatch, is_perpetual};
use super::{EndState, Replayed, end_state_with, replayed_at};
use shakmaty::san::San;

/// The rules a game is played by: the normalised `Variant` tag.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum VariantName {
    #[default]
    Standard,
    Chess960,
    Crazyhouse,
    Atomic,
    Antichess,
    KingOfTheHill,
    ThreeCheck,
    Horde,
    RacingKings,
}

impl VariantName {
    pub const ALL: [VariantName; 9] = [
        VariantName::Standard,
        VariantName::Chess960,
        VariantName::Crazyhouse,
        VariantName::Atomic,
        VariantName::Antichess,
        VariantName::KingOfTheHill,
        VariantName::ThreeCheck,
        VariantName::Horde,
        VariantName::RacingKings,
    ];

    /// The value of the `variant_name` columns.
    pub fn as_str(self) -> &'static str {
        match self {
            VariantName::Standard => "standard",
            VariantName::Chess960 => "chess960",
            VariantName::Crazyhouse => "crazyhouse",
            VariantName::Atomic => "atomic",
            VariantName::Antichess => "antichess",
            VariantName::KingOfTheHill => "king_of_the_hill",
            VariantName::ThreeCheck => "three_check",
            VariantName::Horde => "horde",
            VariantName::RacingKings => "racing_kings",
        }
    }

    /// The variant of a `Variant` tag as lichess and other tools spell it:
    /// case, spaces, dashes and underscores ignored. None for a variant
    /// nobody implements here (`Shogi`).
    pub(crate) fn from_tag(tag: &str) -> Option<VariantName> {
        let key: String = tag
            .chars()
            .filter(|c| !matches!(c, ' ' | '-' | '_'))
            .flat_map(char::to_lowercase)
            .collect();
        Some(match key.as_str() {
            "" | "standard" | "normal" | "fromposition" | "chess" => VariantName::Standard,
            "chess960" | "fischerandom" | "fischerrandom" | "frc" => VariantName::Chess960,
            "crazyhouse" | "zh" => VariantName::Crazyhouse,
            "atomic" => VariantName::Atomic,
            "antichess" | "giveaway" | "suicide" | "losers" => VariantName::Antichess,
            "kingofthehill" | "koth" => VariantName::KingOfTheHill,
            "threecheck" | "3check" => VariantName::ThreeCheck,
            "horde" => VariantName::Horde,
            "racingkings" => VariantName::RacingKings,
            _ => return None,
        })
    }

    /// The value of a `variant_name` column read back (`merge`).
    pub fn parse(name: &str) -> Option<VariantName> {
        VariantName::ALL.into_iter().find(|v| v.as_str() == name)
    }

    /// shakmaty's rules for this variant (Chess960 is standard chess with
    /// Chess960 castling).
    pub(crate) fn rules(self) -> Variant {
        match self {
            VariantName::Standard | VariantName::Chess960 => Variant::Chess,
            VariantName::Crazyhouse => Variant::Crazyhouse,
            VariantName::Atomic => Variant::Atomic,
            VariantName::Antichess => Variant::Antichess,
            VariantName::KingOfTheHill => Variant::KingOfTheHill,
            VariantName::ThreeCheck => Variant::ThreeCheck,
            VariantName::Horde => Variant::Horde,
            VariantName::RacingKings => Variant::RacingKings,
        }
    }

    /// Standard chess rules (Chess960 included): the games that may enter
    /// the opening tree and the material table.
    pub(crate) fn is_standard_rules(self) -> bool {
        self.rules() == Variant::Chess
    }

    /// Whether the `endgames` table and the endgame columns apply: not to
    /// Horde (one side has no king, its pawns are its army) nor Antichess
    /// (the king is a piece like any other).
    pub(crate) fn has_endgames(self) -> bool {
        !matches!(self, VariantName::Horde | VariantName::Antichess)
    }
}

/// Why a variant's own rule ended the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum VariantEnd {
    /// Atomic: a king was blown up by a capture next to it.
    KingExploded,
    /// Three-check: a side gave its third check.
    ThreeChecks,
    /// King of the Hill: a king reached d4, e4, d5 or e5.
    KingOnHill,
    /// Horde: black captured every white piece.
    HordeDestroyed,
    /// Racing Kings: one king reached the eighth rank and the other cannot.
    KingReachedGoal,
    /// Racing Kings: both kings reached the eighth rank.
    BothKingsReachedGoal,
    /// Antichess: the side to move has no pieces left (and wins).
    AllPiecesLost,
    /// Antichess: the side to move has no legal move (and wins).
    Stalemated,
}

impl VariantEnd {
    /// The value of the `variant_end` column.
    pub fn as_str(self) -> &'static str {
        match self {
            VariantEnd::KingExploded => "king_exploded",
            VariantEnd::ThreeChecks => "three_checks",
            VariantEnd::KingOnHill => "king_on_hill",
            VariantEnd::HordeDestroyed => "horde_destroyed",
            VariantEnd::KingReachedGoal => "king_reached_goal",
            VariantEnd::BothKingsReachedGoal => "both_kings_reached_goal",
            VariantEnd::AllPiecesLost => "all_pieces_lost",
            VariantEnd::Stalemated => "stalemated",
        }
    }
}

/// Piece counts of a variant position: the board and, in Crazyhouse, the
/// pieces in hand.
pub(crate) fn material_of(pos: &impl Position) -> Material {
    let mut material = Material::of(pos.board());
    if let Some(pockets) = pos.pockets() {
        for (color, pocket) in pockets.zip_color() {
            for (role, n) in pocket.zip_role() {
                material.add_pieces(color, role, n);
            }
        }
    }
    material
}

/// What the variant replay hands back besides [`Replayed`].
pub(super) struct VariantTrail<'a> {
    pub history: &'a mut Vec<u64>,
    pub moves: &'a mut Vec<Move>,
    /// Material after each ply (`[0]`: the start).
    pub materials: &'a mut Vec<Material>,
    pub final_board: &'a mut Board,
}

/// Plays `sans` on a variant position: every move legal by the variant's
/// rules, repetitions by its position identity, the end by its own rules.
pub(super) fn replay_variant(
    start: VariantPosition,
    chess960: bool,
    sans: &[SanPlus],
    trail: VariantTrail<'_>,
) -> Result<Replayed, Rejection> {
    let VariantTrail {
        history,
        moves,
        materials,
        final_board,
    } = trail;
    let mode = CastlingMode::from_chess960(chess960);
    let ep = EnPassantMode::Legal;
    // In Crazyhouse a captured piece comes back: no move is irreversible,
    // so repetitions are looked for over the whole game.
    let reversible = start.variant() == Variant::Crazyhouse;
    let mut pos = start.clone();
    let first = pos.zobrist_hash::<Zobrist64>(ep).0;
    history.push(first);
    materials.push(material_of(&pos));
    let mut watch = DrawWatch::start(first, pos.halfmoves(), || pos.is_game_over());
    let mut uci = String::with_capacity(sans.len() * 5);

    for (index, san_plus) in sans.iter().enumerate() {
        let ply = index as u32 + 1;
        if pos.is_variant_end() {
            // No move can follow a variant's end (an exploded king, the
            // hill reached): the move is illegal.
            return Err(after_the_end(&pos, san_plus, ply));
        }
        let m = match san_plus.san {
            San::Null => return Err(null_move(san_plus, ply)),
            san => san
                .to_move(&pos)
                .map_err(|e| move_error(&pos, san_plus, e, ply))?,
        };
        if !uci.is_empty() {
            uci.push(' ');
        }
        // Writing to a String cannot fail.
        let _ = write!(uci, "{}", m.to_uci(mode));
        pos.play_unchecked(m);
        moves.push(m);
        history.push(pos.zobrist_hash::<Zobrist64>(ep).0);
        materials.push(material_of(&pos));
        let halfmoves = pos.halfmoves();
        watch.after_move(
            history,
            ply,
            halfmoves,
            halfmoves == 0 && !reversible,
            || pos.is_game_over(),
        );
    }

    let plies = sans.len() as u32;
    let end = end_of(&pos, watch.final_repetitions);
    let perpetual_check =
        watch.final_repetitions >= 3 && is_perpetual(history, watch.window_start, start, moves);
    final_board.clone_from(pos.board());
    let final_fen = shakmaty::fen::Fen::from_position(&pos, ep).to_string();
    Ok(replayed_at(
        &pos,
        plies,
        &watch,
        end,
        perpetual_check,
        (uci, final_fen),
    ))
}

/// The state of a variant's final position: its own end first (seen from
/// the side to move, as python-chess's `is_variant_win/loss/draw`), then
/// checkmate, stalemate, insufficient material by its rules, fivefold
/// repetition and the 75-move rule.
fn end_of(
    pos: &VariantPosition,
    repetitions: u32,
) -> (EndState, Option<VariantEnd>, Option<Color>) {
    if let Outcome::Known(outcome) = pos.variant_outcome() {
        let reason = variant_end_reason(pos);
        return match outcome {
            KnownOutcome::Draw => (EndState::VariantDraw, Some(reason), None),
            KnownOutcome::Decisive { winner } if winner == pos.turn() => {
                (EndState::VariantWin, Some(reason), Some(winner))
            }
            KnownOutcome::Decisive { winner } => {
                (EndState::VariantLoss, Some(reason), Some(winner))
            }
        };
    }
    let state = end_state_with(pos, pos.legal_moves().is_empty(), repetitions);
    let winner = (state == EndState::Checkmate).then(|| !pos.turn());
    (state, None, winner)
}

/// Which of the variant's rules decided a position whose variant outcome
/// is known.
fn variant_end_reason(pos: &VariantPosition) -> VariantEnd {
    let board = pos.board();
    match pos {
        VariantPosition::Atomic(_) => VariantEnd::KingExploded,
        VariantPosition::ThreeCheck(_) => VariantEnd::ThreeChecks,
        VariantPosition::KingOfTheHill(_) => VariantEnd::KingOnHill,
        VariantPosition::Horde(_) => VariantEnd::HordeDestroyed,
        VariantPosition::RacingKings(_) => {
            let in_goal = board.kings() & Rank::Eighth;
            if (in_goal & board.white()).any() && (in_goal & board.black()).any() {
                VariantEnd::BothKingsReachedGoal
            } else {
                VariantEnd::KingReachedGoal
            }
        }
        _ if pos.us().is_empty() => VariantEnd::AllPiecesLost,
        _ => VariantEnd::Stalemated,
    }
}

/// A move played after the variant's rules ended the game.
fn after_the_end(pos: &VariantPosition, san_plus: &SanPlus, ply: u32) -> Rejection {
    let why = variant_end_reason(pos).as_str().replace('_', " ");
    Rejection::new(
        super::reject::RejectReason::IllegalMove,
        format!("illegal move {san_plus} at ply {ply}: the game already ended ({why})"),
    )
    .at(ply, san_plus.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::{Replayer, setup};

    fn play(variant: &str, fen: Option<&str>, moves: &str) -> Result<Replayed, Rejection> {
        let sans: Vec<SanPlus> = moves
            .split_whitespace()
            .filter_map(|t| SanPlus::from_ascii(t.as_bytes()).ok())
            .collect();
        Replayer::default().replay(setup(Some(variant), fen)?, &sans)
    }

    fn end(r: &Result<Replayed, Rejection>) -> Option<(EndState, Option<&'static str>)> {
        r.as_ref()
            .ok()
            .map(|r| (r.end_state, r.variant_end.map(VariantEnd::as_str)))
    }

    #[test]
    fn tag_spellings() {
        for (tag, name) in [
            ("Crazyhouse", "crazyhouse"),
            ("Giveaway", "antichess"),
            ("suicide", "antichess"),
            ("King of the Hill", "king_of_the_hill"),
            ("KOTH", "king_of_the_hill"),
            ("Three-check", "three_check"),
            ("3-check", "three_check"),
            ("racing_kings", "racing_kings"),
            ("Horde", "horde"),
            ("Atomic", "atomic"),
            ("From Position", "standard"),
        ] {
            assert_eq!(
                VariantName::from_tag(tag).map(VariantName::as_str),
                Some(name)
            );
        }
        assert_eq!(VariantName::from_tag("Shogi"), None);
    }

    #[test]
    fn variant_ends() {
        // Atomic: the capture on f7 blows up the king beside it.
        let atomic = play("Atomic", None, "e4 e5 Qh5 Nc6 Qxf7");
        assert_eq!(
            end(&atomic),
            Some((EndState::VariantLoss, Some("king_exploded")))
        );
        assert_eq!(
            atomic.as_ref().ok().and_then(|r| r.result_by_rule),
            Some(crate::pgn::result::GameResult::WhiteWins)
        );
        let koth = play("KOTH", None, "d3 e5 Kd2 Ke7 Ke3 Kd6 Ke4");
        assert_eq!(
            end(&koth),
            Some((EndState::VariantLoss, Some("king_on_hill")))
        );
        let three = play("3-check", None, "e4 e5 Bb5 c6 Bxc6 dxc6 Qh5 Nf6 Qxf7+ Kxf7");
        assert_eq!(end(&three).map(|e| e.0), Some(EndState::None));
        let three = play(
            "Three-check",
            Some("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2 +2+0"),
            "Qh5 Nc6 Qxf7+",
        );
        assert_eq!(
            end(&three),
            Some((EndState::VariantLoss, Some("three_checks")))
        );
        // Moves after the end are illegal.
        let after = play("Atomic", None, "e4 e5 Qh5 Nc6 Qxf7 Nf6");
        assert!(after.is_err_and(|e| e.message.contains("already ended")));
    }

    #[test]
    fn crazyhouse_drops_and_pockets() {
        let zh = play("Crazyhouse", None, "e4 d5 exd5 Qxd5 Nc3 Qa5 P@b4 Qxb4");
        let r = zh.as_ref().ok();
        assert_eq!(r.map(|r| r.plies), Some(8));
        assert!(r.is_some_and(|r| r.moves_uci.contains("P@b4")));
        assert!(r.is_some_and(|r| r.final_fen.contains("[pp]")));
        // A pawn drop written without its letter.
        assert!(play("Crazyhouse", None, "e4 d5 exd5 Qxd5 @e4").is_ok());
        assert!(play("Atomic", None, "e4 d5 exd5 Qxd5 P@e4").is_err());
    }
}
