//! Replay stage: set up each game's start position (standard, FEN, Chess960),
//! play its mainline through shakmaty to prove every move legal, and record
//! how the game ended under the FIDE Laws (articles 5 and 9).

pub mod audit;
pub mod dead;
pub mod draw;
pub mod keyhash;
pub mod material;
pub mod moves;
pub mod openings;
pub mod reject;
pub mod resolve;
pub mod scout;
pub mod steps;

pub mod unwinnable;
pub mod variant;

mod notation;
mod repetition;
mod setup;

use shakmaty::san::{San, SanPlus};
use shakmaty::variant::VariantPosition;
use shakmaty::zobrist::{Zobrist64, ZobristValue};
use shakmaty::{
    Board, ByColor, CastlingMode, CastlingSide, Chess, Color, EnPassantMode, Move, Position, Role,
    Square,
};

use crate::pgn::result::GameResult;
use material::Material;
use notation::{fen_of, push_uci};
use reject::{Rejection, move_error, null_move};
use repetition::{DrawWatch, is_perpetual};
pub use setup::{FenRepair, Start, setup, setup_variant, variant_of};
use variant::{VariantEnd, VariantTrail, replay_variant};

/// The state of the final position.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EndState {
    Checkmate,
    Stalemate,
    InsufficientMaterial,
    /// Neither side can checkmate by any legal sequence, though the
    /// material alone does not show it (locked pawns, walled-in kings).
    DeadPosition,
    FivefoldRepetition,
    SeventyfiveMoves,
    #[default]
    None,
    /// A variant's own rule decided the game for the side to move
    /// (Antichess: it has no pieces or no move), against it (an exploded
    /// king, a third check, a king on the hill…), or drew it (both kings
    /// reached the eighth rank in Racing Kings). `Replayed::variant_end` says which.
    VariantWin,
    VariantLoss,
    VariantDraw,
}

impl EndState {
    pub const ALL: [EndState; 10] = [
        EndState::Checkmate,
        EndState::Stalemate,
        EndState::InsufficientMaterial,
        EndState::DeadPosition,
        EndState::FivefoldRepetition,
        EndState::SeventyfiveMoves,
        EndState::None,
        EndState::VariantWin,
        EndState::VariantLoss,
        EndState::VariantDraw,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EndState::Checkmate => "checkmate",
            EndState::Stalemate => "stalemate",
            EndState::InsufficientMaterial => "insufficient_material",
            EndState::DeadPosition => "dead_position",
            EndState::FivefoldRepetition => "fivefold_repetition",
            EndState::SeventyfiveMoves => "seventyfive_moves",
            EndState::None => "none",
            EndState::VariantWin => "variant_win",
            EndState::VariantLoss => "variant_loss",
            EndState::VariantDraw => "variant_draw",
        }
    }
}

pub(crate) fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// Everything replay learned about a legal game.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Replayed {
    pub plies: u32,
    pub moves_uci: String,
    pub final_fen: String,
    pub end_state: EndState,
    /// The rule behind a `variant_*` end state.
    pub variant_end: Option<VariantEnd>,
    pub winner_by_rule: Option<Color>,
    pub result_by_rule: Option<GameResult>,
    pub threefold_first_ply: Option<u32>,
    pub fifty_first_ply: Option<u32>,
    pub threefold_final: bool,
    pub fifty_final: bool,
    pub automatic_end_ply: Option<u32>,
    /// Which rule ended the game at `automatic_end_ply`: fivefold
    /// repetition, the 75-move rule, or a dead position
    /// (`insufficient_material` or `dead_position`).
    pub automatic_end: Option<EndState>,
    pub plies_after_end: u32,
    pub perpetual_check: bool,
    /// Per side: cannot checkmate by any legal sequence in the final position.
    pub white_insufficient: bool,
    pub black_insufficient: bool,
    /// The first ply whose position was dead (by material or proven by
    /// search), when the final one is.
    pub dead_position_ply: Option<u32>,
    /// Per side, whether it can still checkmate in the final position
    /// (None: undetermined, not asked, or a variant game).
    pub can_mate: dead::CanMate,
    /// Per side, whether the unwinnability procedure was asked.
    pub can_mate_asked: ByColor<bool>,
}

/// Plays `sans` from `start`. The first illegal, ambiguous or null move
/// rejects the game.
#[cfg(test)]
pub(crate) fn replay(start: Start, sans: &[SanPlus]) -> Result<Replayed, Rejection> {
    Replayer::default().replay(start, sans)
}

/// Replays games one after another, reusing its buffers.
#[derive(Debug)]
pub(crate) struct Replayer {
    history: Vec<u64>,
    moves: Vec<Move>,
    start_board: Board,
    start_turn: Color,
    final_board: Board,
    /// Material after each ply of a variant game (empty for standard
    /// chess, whose material is walked from the captures).
    materials: Vec<Material>,
    /// The unwinnability search's budget per side of a flagged final
    /// position (`--unwinnable-nodes`; 0: the static test only).
    pub unwinnable_nodes: u64,
}

impl Default for Replayer {
    fn default() -> Self {
        Replayer {
            history: Vec::new(),
            moves: Vec::new(),
            start_board: Board::default(),
            start_turn: Color::White,
            final_board: Board::default(),
            materials: Vec::new(),
            unwinnable_nodes: dead::DEFAULT_NODES,
        }
    }
}

impl Replayer {
    /// Position keys of the last game replayed: `[ply]` after `ply` plies.
    pub(crate) fn keys(&self) -> &[u64] {
        &self.history
    }

    /// The moves of the last game replayed.
    pub(crate) fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The start position's board and side to move, of the last game.
    pub(crate) fn start(&self) -> (&Board, Color) {
        (&self.start_board, self.start_turn)
    }

    /// The final board of the last game replayed.
    pub(crate) fn final_board(&self) -> &Board {
        &self.final_board
    }

    /// Material after each ply of the last game, when it was a variant
    /// game (pockets count, atomic explosions are seen); None for standard
    /// chess.
    pub(crate) fn variant_materials(&self) -> Option<&[Material]> {
        (!self.materials.is_empty()).then_some(self.materials.as_slice())
    }

    pub(crate) fn replay(&mut self, start: Start, sans: &[SanPlus]) -> Result<Replayed, Rejection> {
        self.history.clear();
        self.moves.clear();
        self.materials.clear();
        self.start_board.clone_from(start.pos.board());
        self.start_turn = start.pos.turn();
        match start.pos {
            VariantPosition::Chess(pos) => replay_into(
                pos,
                start.chess960,
                sans,
                &mut self.history,
                &mut self.moves,
                &mut self.final_board,
                self.unwinnable_nodes,
            ),
            pos => replay_variant(
                pos,
                start.chess960,
                sans,
                VariantTrail {
                    history: &mut self.history,
                    moves: &mut self.moves,
                    materials: &mut self.materials,
                    final_board: &mut self.final_board,
                },
            ),
        }
    }
}

fn replay_into(
    start: Chess,
    chess960: bool,
    sans: &[SanPlus],
    history: &mut Vec<u64>,
    moves: &mut Vec<Move>,
    final_board: &mut Board,
    unwinnable_nodes: u64,
) -> Result<Replayed, Rejection> {
    let mode = CastlingMode::from_chess960(chess960);
    let ep = EnPassantMode::Legal;
    let mut pos = start;
    let mut hash: Zobrist64 = pos.zobrist_hash(ep);
    let start_pos = pos.clone();
    // Position hashes, index = ply; the moves are kept to re-walk the game
    // in the rare case a perpetual check has to be checked.
    history.push(hash.0);
    let mut watch = DrawWatch::start(hash.0, pos.halfmoves(), || pos.is_checkmate());
    let mut moves_uci: Vec<u8> = Vec::with_capacity(sans.len() * 5);

    for (index, san_plus) in sans.iter().enumerate() {
        let ply = index as u32 + 1;
        let m = resolve_move(&pos, san_plus, ply)?;
        if !moves_uci.is_empty() {
            moves_uci.push(b' ');
        }
        push_uci(&mut moves_uci, m, mode);
        hash = match pos.update_zobrist_hash(hash, m, ep) {
            Some(next) => {
                pos.play_unchecked(m);
                next
            }
            None => play_with_hash(&mut pos, m, hash),
        };
        moves.push(m);
        history.push(hash.0);
        // Positions before the last zeroing move can never recur.
        let halfmoves = pos.halfmoves();
        watch.after_move(history, ply, halfmoves, halfmoves == 0, || {
            pos.is_checkmate()
        });
    }

    let plies = sans.len() as u32;
    let mut end_state = end_state_of(&pos, watch.final_repetitions);
    let verdicts = dead::final_verdicts(&pos, end_state, unwinnable_nodes);
    // Dead though material does not show it (a mate, a stalemate or
    // insufficient material keep their own state).
    if verdicts.dead()
        && !matches!(
            end_state,
            EndState::Checkmate | EndState::Stalemate | EndState::InsufficientMaterial
        )
    {
        end_state = EndState::DeadPosition;
    }
    let dead_from = matches!(
        end_state,
        EndState::InsufficientMaterial | EndState::DeadPosition
    )
    .then(|| dead::first_dead(&start_pos, moves, unwinnable_nodes));
    let winner_by_rule = (end_state == EndState::Checkmate).then(|| !pos.turn());
    let perpetual_check =
        watch.final_repetitions >= 3 && is_perpetual(history, watch.window_start, start_pos, moves);
    if let Some((ply, kind)) = dead_from {
        watch.dead_from(ply, kind);
    }
    final_board.clone_from(pos.board());
    let mut replayed = replayed_at(
        &pos,
        plies,
        &watch,
        (end_state, None, winner_by_rule),
        perpetual_check,
        // Only ASCII was pushed.
        (
            String::from_utf8(moves_uci).unwrap_or_default(),
            fen_of(&pos, chess960),
        ),
    );
    replayed.dead_position_ply = dead_from.map(|(ply, _)| ply);
    replayed.can_mate = verdicts.can_mate;
    replayed.can_mate_asked = verdicts.asked;
    Ok(replayed)
}

/// What replay learned of a game that reached `pos` after `plies` plies:
/// the draw rules' watch, the end found (state, variant rule, winner), and
/// the moves in UCI and the final FEN.
fn replayed_at(
    pos: &impl Position,
    plies: u32,
    watch: &DrawWatch,
    (end_state, variant_end, winner_by_rule): (EndState, Option<VariantEnd>, Option<Color>),
    perpetual_check: bool,
    (moves_uci, final_fen): (String, String),
) -> Replayed {
    let decided = matches!(
        end_state,
        EndState::Checkmate | EndState::VariantWin | EndState::VariantLoss | EndState::VariantDraw
    );
    Replayed {
        plies,
        moves_uci,
        final_fen,
        end_state,
        variant_end,
        winner_by_rule,
        result_by_rule: proven_result(end_state, winner_by_rule, watch.drawn_before(plies)),
        threefold_first_ply: watch.threefold_first_ply,
        fifty_first_ply: watch.fifty_first_ply,
        threefold_final: watch.final_repetitions >= 3,
        fifty_final: pos.halfmoves() >= 100 && !decided,
        automatic_end_ply: watch.automatic_end_ply,
        automatic_end: watch.automatic_end,
        plies_after_end: watch.automatic_end_ply.map_or(0, |ply| plies - ply),
        perpetual_check,
        white_insufficient: pos.has_insufficient_material(Color::White),
        black_insufficient: pos.has_insufficient_material(Color::Black),
        ..Replayed::default()
    }
}

/// Plays `m` and updates `hash` for the cases shakmaty's incremental update
/// leaves out (king and rook moves that touch castling rights, double pushes,
/// positions with an en-passant square), instead of hashing the whole board.
fn play_with_hash(pos: &mut Chess, m: Move, hash: Zobrist64) -> Zobrist64 {
    let us = pos.turn();
    let piece =
        |sq: Square, role: Role, color: Color| Zobrist64::zobrist_for_piece(sq, role.of(color));
    let mut h = hash ^ Zobrist64::zobrist_for_white_turn();
    match m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            h ^= piece(from, role, us) ^ piece(to, promotion.unwrap_or(role), us);
            if let Some(captured) = capture {
                h ^= piece(to, captured, !us);
            }
        }
        Move::EnPassant { from, to } => {
            let captured = Square::from_coords(to.file(), from.rank());
            h ^= piece(from, Role::Pawn, us) ^ piece(to, Role::Pawn, us);
            h ^= piece(captured, Role::Pawn, !us);
        }
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_king_side(king < rook);
            h ^= piece(king, Role::King, us) ^ piece(side.king_to(us), Role::King, us);
            h ^= piece(rook, Role::Rook, us) ^ piece(side.rook_to(us), Role::Rook, us);
        }
        Move::Put { .. } => {
            pos.play_unchecked(m);
            return pos.zobrist_hash(EnPassantMode::Legal);
        }
    }
    if let Some(sq) = pos.ep_square(EnPassantMode::Legal) {
        h ^= Zobrist64::zobrist_for_en_passant_file(sq.file());
    }
    let rights_before = castling_rights(pos);
    pos.play_unchecked(m);
    for (had, (color, side)) in rights_before.into_iter().zip(CASTLING_RIGHTS) {
        if had != pos.castles().has(color, side) {
            h ^= Zobrist64::zobrist_for_castling_right(color, side);
        }
    }
    if let Some(sq) = pos.ep_square(EnPassantMode::Legal) {
        h ^= Zobrist64::zobrist_for_en_passant_file(sq.file());
    }
    h
}

const CASTLING_RIGHTS: [(Color, CastlingSide); 4] = [
    (Color::White, CastlingSide::KingSide),
    (Color::White, CastlingSide::QueenSide),
    (Color::Black, CastlingSide::KingSide),
    (Color::Black, CastlingSide::QueenSide),
];

fn castling_rights(pos: &Chess) -> [bool; 4] {
    CASTLING_RIGHTS.map(|(color, side)| pos.castles().has(color, side))
}

/// The legal move a SAN denotes in `pos`, or why there is none.
fn resolve_move(pos: &Chess, san_plus: &SanPlus, ply: u32) -> Result<Move, Rejection> {
    match san_plus.san {
        San::Null => Err(null_move(san_plus, ply)),
        san => match resolve::resolve_fast(pos, &san) {
            Some(m) => Ok(m),
            None => san
                .to_move(pos)
                .map_err(|e| move_error(pos, san_plus, e, ply)),
        },
    }
}

/// The state of the final position, in the order the laws rank them.
fn end_state_of(pos: &Chess, repetitions: u32) -> EndState {
    let no_legal_moves = !resolve::surely_has_legal_move(pos) && pos.legal_moves().is_empty();
    end_state_with(pos, no_legal_moves, repetitions)
}

/// [`end_state_of`] for any position, its legal moves already counted.
fn end_state_with(pos: &impl Position, no_legal_moves: bool, repetitions: u32) -> EndState {
    if no_legal_moves && pos.is_check() {
        EndState::Checkmate
    } else if no_legal_moves {
        EndState::Stalemate
    } else if pos.is_insufficient_material() {
        EndState::InsufficientMaterial
    } else if repetitions >= 5 {
        EndState::FivefoldRepetition
    } else if pos.halfmoves() >= 150 {
        EndState::SeventyfiveMoves
    } else {
        EndState::None
    }
}

/// The result the board proves. A fivefold repetition or 75-move rule
/// reached before the last move ended the game as a draw there.
fn proven_result(
    end_state: EndState,
    winner: Option<Color>,
    drawn_before_end: bool,
) -> Option<GameResult> {
    match end_state {
        _ if drawn_before_end => Some(GameResult::Draw),
        EndState::Checkmate | EndState::VariantWin | EndState::VariantLoss => Some(match winner {
            Some(Color::White) => GameResult::WhiteWins,
            _ => GameResult::BlackWins,
        }),
        EndState::None => None,
        _ => Some(GameResult::Draw),
    }
}

/// A standard position from a FEN a test writes out (panics on a typo).
#[cfg(test)]
pub(crate) fn test_position(fen: &str) -> Chess {
    shakmaty::fen::Fen::from_ascii(fen.as_bytes())
        .ok()
        .and_then(|f| f.into_position(shakmaty::CastlingMode::Standard).ok())
        .unwrap_or_else(|| panic!("test FEN {fen}"))
}

/// Visits every position of `games` pseudo-random games of up to `plies`
/// plies (xorshift, so the walk is the same on every run).
#[cfg(test)]
pub(crate) fn random_walk(seed: u64, games: usize, plies: usize, visit: impl FnMut(&Chess)) {
    random_walk_from(&Chess::default(), seed, games, plies, visit);
}

/// [`random_walk`] from another start position.
#[cfg(test)]
pub(crate) fn random_walk_from(
    start: &Chess,
    mut seed: u64,
    games: usize,
    plies: usize,
    mut visit: impl FnMut(&Chess),
) {
    for _ in 0..games {
        let mut pos = start.clone();
        for _ in 0..plies {
            visit(&pos);
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let index = (seed % moves.len() as u64) as usize;
            if let Some(&m) = moves.get(index) {
                pos.play_unchecked(m);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reject::RejectReason;
    use shakmaty::fen::Fen;

    fn sans(text: &str) -> Vec<SanPlus> {
        text.split_whitespace()
            .filter_map(|t| SanPlus::from_ascii(t.as_bytes()).ok())
            .collect()
    }

    fn play(moves: &str) -> Result<Replayed, Rejection> {
        let start = setup(None, None)?;
        replay(start, &sans(moves))
    }

    #[test]
    fn fools_mate_is_checkmate() {
        let r = play("f3 e5 g4 Qh4#").ok();
        let r = r.as_ref();
        assert_eq!(r.map(|r| r.end_state), Some(EndState::Checkmate));
        assert_eq!(r.and_then(|r| r.winner_by_rule), Some(Color::Black));
        assert_eq!(
            r.and_then(|r| r.result_by_rule),
            Some(GameResult::BlackWins)
        );
        assert_eq!(r.map(|r| r.moves_uci.as_str()), Some("f2f3 e7e5 g2g4 d8h4"));
    }

    #[test]
    fn illegal_move_message_names_the_problem() {
        let err = play("e4 e5 Rxh7").err();
        assert_eq!(
            err.as_ref().map(|e| e.reason),
            Some(RejectReason::IllegalMove)
        );
        assert_eq!(
            err.map(|e| e.message),
            Some("illegal move Rxh7 at ply 3 (white to move): no rook can reach h7".into())
        );
    }

    #[test]
    fn knight_shuffle_repeats() {
        // Start position recurs after plies 4 and 8: third occurrence at ply 8.
        let r = play("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8").ok();
        assert_eq!(r.as_ref().and_then(|r| r.threefold_first_ply), Some(8));
        assert_eq!(r.as_ref().map(|r| r.threefold_final), Some(true));
        assert_eq!(r.as_ref().map(|r| r.perpetual_check), Some(false));
        let r = play("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8 Nf3").ok();
        assert_eq!(r.as_ref().and_then(|r| r.automatic_end_ply), Some(16));
        assert_eq!(r.as_ref().map(|r| r.plies_after_end), Some(1));
        assert_eq!(
            r.as_ref().and_then(|r| r.result_by_rule),
            Some(GameResult::Draw)
        );
    }

    /// A knight shuffle of `cycles` times four plies, then 1. e4 e5 and
    /// `after` more shuffles: the outcomes of a long game are those of a
    /// short one, and the counts start again after the pawn moves.
    fn long_shuffle(cycles: usize, after: usize) -> (Replayed, Vec<u64>) {
        let shuffle = "Nf3 Nf6 Ng1 Ng8 ";
        let moves = format!("{}e4 e5 {}", shuffle.repeat(cycles), shuffle.repeat(after));
        let mut replayer = Replayer::default();
        let r = setup(None, None)
            .and_then(|start| replayer.replay(start, &sans(&moves)))
            .unwrap_or_else(|e| panic!("{}", e.message));
        (r, replayer.keys().to_vec())
    }

    #[test]
    fn long_knight_shuffle_keeps_its_outcomes() {
        for after in 0..=5 {
            let (r, keys) = long_shuffle(25_000, after);
            let plies = 100_002 + 4 * after as u32;
            assert_eq!(r.plies, plies);
            assert_eq!(r.threefold_first_ply, Some(8));
            assert_eq!(r.automatic_end_ply, Some(16));
            assert_eq!(r.automatic_end, Some(EndState::FivefoldRepetition));
            assert_eq!(r.plies_after_end, plies - 16);
            assert_eq!(r.result_by_rule, Some(GameResult::Draw));
            assert!(!r.perpetual_check);
            // The final position, the one after 1. e4 e5, occurred
            // after + 1 times; nothing before the pawn moves counts.
            let last = keys.len() - 1;
            let since = keys.len() - 1 - 4 * after;
            let repetitions = (since..=last)
                .step_by(4)
                .filter(|&i| keys[i] == keys[last])
                .count();
            assert_eq!(repetitions, after + 1);
            assert_eq!(r.threefold_final, after + 1 >= 3, "{after}");
            let end = if after + 1 >= 5 {
                EndState::FivefoldRepetition
            } else {
                EndState::None
            };
            assert_eq!(r.end_state, end, "{after}");
        }
        // Without the pawn moves, the start position ends it, 25,001 times.
        let r = play(&"Nf3 Nf6 Ng1 Ng8 ".repeat(25_000)).ok();
        let r = r.as_ref();
        assert_eq!(r.map(|r| r.end_state), Some(EndState::FivefoldRepetition));
        assert_eq!(r.map(|r| r.threefold_final), Some(true));
        assert_eq!(r.and_then(|r| r.automatic_end_ply), Some(16));
    }

    #[test]
    fn hand_written_fen_matches_shakmaty() {
        random_walk(0x9e37_79b9_7f4a_7c15, 50, 120, |pos| {
            let expected = Fen::from_position(pos, EnPassantMode::Legal).to_string();
            assert_eq!(fen_of(pos, false), expected);
        });
    }

    #[test]
    fn incremental_hash_matches_full_hash() {
        let check = |pos: &Chess| {
            let hash: Zobrist64 = pos.zobrist_hash(EnPassantMode::Legal);
            for m in pos.legal_moves() {
                let mut after = pos.clone();
                let incremental = play_with_hash(&mut after, m, hash);
                assert_eq!(
                    incremental,
                    after.zobrist_hash(EnPassantMode::Legal),
                    "{m:?}"
                );
            }
        };
        random_walk(0x1234_5678_9abc_def1, 60, 150, check);
        let frc = setup(
            Some("Chess960"),
            Some("bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1"),
        )
        .ok()
        .and_then(|s| match s.pos {
            VariantPosition::Chess(pos) => Some(pos),
            _ => None,
        })
        .unwrap_or_else(|| panic!("the Chess960 start"));
        random_walk_from(&frc, 0x0fed_cba9_8765_4321, 60, 80, check);
    }

    #[test]
    fn variants() {
        assert!(setup(Some("Chess 960"), None).is_ok_and(|s| s.chess960));
        assert!(setup(Some("Fische-Random"), None).is_ok_and(|s| s.chess960));
        assert!(setup(Some("Crazyhouse"), None).is_ok_and(|s| s.variant.as_str() == "crazyhouse"));
        assert!(setup(Some("FRC"), None).is_ok_and(|s| s.chess960));
        assert!(setup(Some("From Position"), None).is_ok_and(|s| !s.chess960));
        assert_eq!(
            setup(Some("Shogi"), None)
                .err()
                .map(|e| (e.reason, e.message)),
            Some((
                RejectReason::UnsupportedVariant,
                "unsupported variant \"Shogi\"".into()
            ))
        );
        let shredder = "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1";
        assert!(setup(None, Some(shredder)).is_ok_and(|s| s.chess960));
        let xfen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        assert!(setup(None, Some(xfen)).is_ok_and(|s| !s.chess960 && s.start_fen.is_none()));
        assert_eq!(
            setup(None, Some("nonsense")).err().map(|e| e.reason),
            Some(RejectReason::InvalidFen)
        );
    }
}
