//! Replay stage: set up each game's start position (standard, FEN, Chess960),
//! play its mainline through shakmaty to prove every move legal, and record
//! how the game ended under the FIDE Laws (articles 5 and 9).

pub mod audit;
pub mod draw;
pub mod keyhash;
pub mod material;
pub mod openings;
pub mod reject;
pub mod resolve;

use pgn_reader::SanPlus;
use shakmaty::fen::Fen;
use shakmaty::san::{San, SanError};
use shakmaty::zobrist::{Zobrist64, ZobristValue};
use shakmaty::{
    Bitboard, Board, CastlingMode, CastlingSide, Chess, Color, EnPassantMode, File, Move, Position,
    Rank, Role, Square,
};

use crate::pgn::result::GameResult;
use reject::{RejectReason, Rejection};

/// The state of the final position.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EndState {
    Checkmate,
    Stalemate,
    InsufficientMaterial,
    FivefoldRepetition,
    SeventyfiveMoves,
    #[default]
    None,
}

impl EndState {
    pub const ALL: [EndState; 6] = [
        EndState::Checkmate,
        EndState::Stalemate,
        EndState::InsufficientMaterial,
        EndState::FivefoldRepetition,
        EndState::SeventyfiveMoves,
        EndState::None,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EndState::Checkmate => "checkmate",
            EndState::Stalemate => "stalemate",
            EndState::InsufficientMaterial => "insufficient_material",
            EndState::FivefoldRepetition => "fivefold_repetition",
            EndState::SeventyfiveMoves => "seventyfive_moves",
            EndState::None => "none",
        }
    }
}

pub fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// Where a game starts.
#[derive(Debug, Clone)]
pub struct Start {
    pub pos: Chess,
    pub chess960: bool,
    /// The FEN tag, when the start is not the standard position.
    pub start_fen: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum VariantKind {
    Standard,
    Chess960,
}

/// Reads the `Variant` tag: case-insensitive, spaces and dashes ignored.
fn variant_kind(tag: Option<&str>) -> Result<VariantKind, Rejection> {
    let Some(tag) = tag else {
        return Ok(VariantKind::Standard);
    };
    let key: String = tag
        .chars()
        .filter(|c| !matches!(c, ' ' | '-' | '_'))
        .flat_map(char::to_lowercase)
        .collect();
    match key.as_str() {
        "" | "standard" | "normal" | "fromposition" => Ok(VariantKind::Standard),
        "chess960" | "fischerandom" | "fischerrandom" | "frc" => Ok(VariantKind::Chess960),
        _ => Err(Rejection::new(
            RejectReason::UnsupportedVariant,
            format!("unsupported variant {tag:?}"),
        )),
    }
}

/// Builds the start position from the `Variant` and `FEN` tags.
pub fn setup(variant: Option<&str>, fen: Option<&str>) -> Result<Start, Rejection> {
    let declared_960 = variant_kind(variant)? == VariantKind::Chess960;
    let Some(fen_text) = fen else {
        return Ok(Start {
            pos: Chess::default(),
            chess960: declared_960,
            start_fen: None,
        });
    };
    let invalid = |why: String| {
        Rejection::new(
            RejectReason::InvalidFen,
            format!("invalid FEN {fen_text:?}: {why}"),
        )
    };
    let parsed = Fen::from_ascii(fen_text.trim().as_bytes()).map_err(|e| invalid(e.to_string()))?;
    let pos: Chess = parsed
        .clone()
        .into_position(CastlingMode::Chess960)
        .map_err(|e| invalid(e.to_string()))?;
    let chess960 = declared_960 || fen_needs_960(fen_text, &parsed);
    let start_fen = (pos != Chess::default()).then(|| fen_text.trim().to_string());
    Ok(Start {
        pos,
        chess960,
        start_fen,
    })
}

/// True when the FEN's castling field uses Shredder/X-FEN letters, or
/// names a castling rook that standard chess does not allow.
fn fen_needs_960(fen_text: &str, parsed: &Fen) -> bool {
    let castling_field = fen_text.split_whitespace().nth(2).unwrap_or("-");
    let letters = castling_field
        .chars()
        .any(|c| !matches!(c, 'K' | 'Q' | 'k' | 'q' | '-'));
    letters
        || parsed
            .clone()
            .into_position::<Chess>(CastlingMode::Standard)
            .is_err()
}

/// Everything replay learned about a legal game.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Replayed {
    pub plies: u32,
    pub moves_uci: String,
    pub final_fen: String,
    pub end_state: EndState,
    pub winner_by_rule: Option<Color>,
    pub result_by_rule: Option<GameResult>,
    pub threefold_first_ply: Option<u32>,
    pub fifty_first_ply: Option<u32>,
    pub threefold_final: bool,
    pub fifty_final: bool,
    pub automatic_end_ply: Option<u32>,
    /// Which rule ended the game at `automatic_end_ply`: fivefold
    /// repetition or the 75-move rule.
    pub automatic_end: Option<EndState>,
    pub plies_after_end: u32,
    pub perpetual_check: bool,
    /// Per side: cannot checkmate by any legal sequence in the final position.
    pub white_insufficient: bool,
    pub black_insufficient: bool,
}

/// Plays `sans` from `start`. The first illegal, ambiguous or null move
/// rejects the game.
pub fn replay(start: Start, sans: &[SanPlus]) -> Result<Replayed, Rejection> {
    Replayer::default().replay(start, sans)
}

/// Replays games one after another, reusing its buffers.
#[derive(Debug)]
pub struct Replayer {
    history: Vec<u64>,
    moves: Vec<Move>,
    start_board: Board,
    start_turn: Color,
    final_board: Board,
}

impl Default for Replayer {
    fn default() -> Self {
        Replayer {
            history: Vec::new(),
            moves: Vec::new(),
            start_board: Board::default(),
            start_turn: Color::White,
            final_board: Board::default(),
        }
    }
}

impl Replayer {
    /// Position keys of the last game replayed: `[ply]` after `ply` plies.
    pub fn keys(&self) -> &[u64] {
        &self.history
    }

    /// The moves of the last game replayed.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The start position's board and side to move, of the last game.
    pub fn start(&self) -> (&Board, Color) {
        (&self.start_board, self.start_turn)
    }

    /// The final board of the last game replayed.
    pub fn final_board(&self) -> &Board {
        &self.final_board
    }

    pub fn replay(&mut self, start: Start, sans: &[SanPlus]) -> Result<Replayed, Rejection> {
        self.history.clear();
        self.moves.clear();
        self.start_board.clone_from(start.pos.board());
        self.start_turn = start.pos.turn();
        replay_into(
            start,
            sans,
            &mut self.history,
            &mut self.moves,
            &mut self.final_board,
        )
    }
}

fn replay_into(
    start: Start,
    sans: &[SanPlus],
    history: &mut Vec<u64>,
    moves: &mut Vec<Move>,
    final_board: &mut Board,
) -> Result<Replayed, Rejection> {
    let mode = if start.chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    let ep = EnPassantMode::Legal;
    let mut pos = start.pos;
    let mut hash: Zobrist64 = pos.zobrist_hash(ep);
    let start_pos = pos.clone();
    // Position hashes, index = ply; the moves are kept to re-walk the game
    // in the rare case a perpetual check has to be checked.
    history.push(hash.0);
    // Positions before the last zeroing move can never recur.
    let mut window_start = 0usize;
    let mut seen = SeenFilter::default();
    seen.insert(hash.0);
    let mut moves_uci: Vec<u8> = Vec::with_capacity(sans.len() * 5);
    let mut threefold_first_ply = None;
    let mut fifty_first_ply = (pos.halfmoves() >= 100).then_some(0);
    let mut automatic_end_ply = (pos.halfmoves() >= 150 && !pos.is_checkmate()).then_some(0);
    let mut automatic_end = automatic_end_ply.map(|_| EndState::SeventyfiveMoves);
    let mut final_repetitions = 1u32;

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
        let current = history.len() - 1;
        if pos.halfmoves() == 0 {
            window_start = current;
            seen.clear();
        }
        // Most positions are new: a 256-bit filter of hash bytes since the
        // last zeroing move skips the scan for them.
        let repetitions = if seen.insert(hash.0) {
            1
        } else {
            1 + count_earlier(history, window_start, current)
        };
        final_repetitions = repetitions;
        if repetitions >= 3 && threefold_first_ply.is_none() {
            threefold_first_ply = Some(ply);
        }
        if pos.halfmoves() >= 100 && fifty_first_ply.is_none() {
            fifty_first_ply = Some(ply);
        }
        if automatic_end_ply.is_none()
            && (repetitions >= 5 || (pos.halfmoves() >= 150 && !pos.is_checkmate()))
        {
            automatic_end_ply = Some(ply);
            automatic_end = Some(if repetitions >= 5 {
                EndState::FivefoldRepetition
            } else {
                EndState::SeventyfiveMoves
            });
        }
    }

    let plies = sans.len() as u32;
    let end_state = end_state_of(&pos, final_repetitions);
    let winner_by_rule = (end_state == EndState::Checkmate).then(|| !pos.turn());
    let drawn_before_end = automatic_end_ply.is_some_and(|ply| ply < plies);
    let result_by_rule = proven_result(end_state, winner_by_rule, drawn_before_end);
    let threefold_final = final_repetitions >= 3;
    let perpetual_check = threefold_final && is_perpetual(history, window_start, start_pos, moves);
    final_board.clone_from(pos.board());
    Ok(Replayed {
        plies,
        // Only ASCII was pushed.
        moves_uci: String::from_utf8(moves_uci).unwrap_or_default(),
        final_fen: fen_of(&pos, start.chess960),
        end_state,
        winner_by_rule,
        result_by_rule,
        threefold_first_ply,
        fifty_first_ply,
        threefold_final,
        fifty_final: pos.halfmoves() >= 100 && end_state != EndState::Checkmate,
        automatic_end_ply,
        automatic_end,
        plies_after_end: automatic_end_ply.map_or(0, |ply| plies - ply),
        perpetual_check,
        white_insufficient: pos.has_insufficient_material(Color::White),
        black_insufficient: pos.has_insufficient_material(Color::Black),
    })
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
        San::Null => Err(Rejection::new(
            RejectReason::NullMove,
            format!("null move {san_plus} at ply {ply}"),
        )
        .at(ply, san_plus.to_string())),
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
        EndState::Checkmate => Some(match winner {
            Some(Color::White) => GameResult::WhiteWins,
            _ => GameResult::BlackWins,
        }),
        EndState::None => None,
        _ => Some(GameResult::Draw),
    }
}

/// Which top hash bytes occurred since the last zeroing move. `insert`
/// answers true when the byte is new, so the position cannot be a repeat.
#[derive(Default)]
struct SeenFilter([u64; 4]);

impl SeenFilter {
    fn insert(&mut self, hash: u64) -> bool {
        let byte = (hash >> 56) as usize;
        let (word, bit) = (byte / 64, 1u64 << (byte % 64));
        let Some(slot) = self.0.get_mut(word) else {
            return false;
        };
        let new = *slot & bit == 0;
        *slot |= bit;
        new
    }

    fn clear(&mut self) {
        self.0 = [0; 4];
    }
}

/// Occurrences of `history[current]` among earlier positions with the same
/// side to move, since `window_start`.
fn count_earlier(history: &[u64], window_start: usize, current: usize) -> u32 {
    let Some(&target) = history.get(current) else {
        return 0;
    };
    let mut count = 0;
    let mut i = current;
    while i >= window_start + 2 {
        i -= 2;
        if history.get(i) == Some(&target) {
            count += 1;
        }
    }
    count
}

/// The game ends in a repetition (final position seen three times): is every
/// move of one side, from the first occurrence of that position to the end,
/// a check? Re-walks the game, which is rare enough not to track checks on
/// every move.
fn is_perpetual(history: &[u64], window_start: usize, start: Chess, moves: &[Move]) -> bool {
    let Some((&target, _)) = history.split_last() else {
        return false;
    };
    let last = history.len() - 1;
    let first = (window_start..last)
        .find(|&i| (last - i).is_multiple_of(2) && history.get(i) == Some(&target))
        .unwrap_or(last);
    if first == last {
        return false;
    }
    // gave_check[k]: the move of ply k (1-based) gave check.
    let mut pos = start;
    let mut gave_check = Vec::with_capacity(moves.len() + 1);
    gave_check.push(false);
    for &m in moves {
        pos.play_unchecked(m);
        gave_check.push(pos.is_check());
    }
    // Plies first+1..=last alternate between the two sides.
    let all_checks = |offset: usize| {
        (first + 1 + offset..=last)
            .step_by(2)
            .all(|k| gave_check.get(k).copied().unwrap_or(false))
    };
    all_checks(0) || all_checks(1)
}

/// The FEN of `pos` (en passant square only when a capture is legal).
/// Written by hand for standard castling rights, the case of nearly every
/// game, since shakmaty's `Display` goes through `fmt` one char at a time;
/// Chess960 and unusual rights use shakmaty's writer.
fn fen_of(pos: &Chess, chess960: bool) -> String {
    let rights = pos.castles().castling_rights();
    let corners = [Square::H1, Square::A1, Square::H8, Square::A8];
    let standard = corners
        .iter()
        .fold(rights, |rest, &sq| rest & !Bitboard::from_square(sq))
        .is_empty();
    if chess960 || !standard {
        return Fen::from_position(pos, EnPassantMode::Legal).to_string();
    }
    let mut out = Vec::with_capacity(96);
    let board = pos.board();
    let occupied = board.occupied();
    for rank in (0..8u32).rev() {
        let mut empty = 0u8;
        for file in 0..8u32 {
            let square = Square::from_coords(File::new(file), Rank::new(rank));
            let piece = if occupied.contains(square) {
                board.piece_at(square)
            } else {
                None
            };
            match piece {
                Some(piece) => {
                    if empty > 0 {
                        out.push(b'0' + empty);
                        empty = 0;
                    }
                    out.push(piece.char() as u8);
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            out.push(b'0' + empty);
        }
        if rank > 0 {
            out.push(b'/');
        }
    }
    out.extend_from_slice(if pos.turn() == Color::White {
        b" w "
    } else {
        b" b "
    });
    let before = out.len();
    for (sq, letter) in corners.into_iter().zip(*b"KQkq") {
        if rights.contains(sq) {
            out.push(letter);
        }
    }
    if out.len() == before {
        out.push(b'-');
    }
    out.push(b' ');
    match pos.ep_square(EnPassantMode::Legal) {
        Some(sq) => {
            out.push(sq.file().char() as u8);
            out.push(sq.rank().char() as u8);
        }
        None => out.push(b'-'),
    }
    let counters = format!(" {} {}", pos.halfmoves(), pos.fullmoves());
    out.extend_from_slice(counters.as_bytes());
    String::from_utf8(out).unwrap_or_default()
}

/// Appends a move in UCI notation, byte by byte: this runs for every ply
/// of every game, and `fmt` costs several times more.
fn push_uci(out: &mut Vec<u8>, m: Move, mode: CastlingMode) {
    let square = |sq: Square| [sq.file().char() as u8, sq.rank().char() as u8];
    match m {
        Move::Normal {
            from,
            to,
            promotion,
            ..
        } => {
            let ([f1, r1], [f2, r2]) = (square(from), square(to));
            match promotion {
                Some(role) => out.extend_from_slice(&[f1, r1, f2, r2, role.char() as u8]),
                None => out.extend_from_slice(&[f1, r1, f2, r2]),
            }
        }
        Move::EnPassant { from, to } => {
            let ([f1, r1], [f2, r2]) = (square(from), square(to));
            out.extend_from_slice(&[f1, r1, f2, r2]);
        }
        other => out.extend_from_slice(other.to_uci(mode).to_string().as_bytes()),
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

/// A rejection for a SAN that does not give exactly one legal move.
fn move_error(pos: &Chess, san_plus: &SanPlus, error: SanError, ply: u32) -> Rejection {
    let side = color_name(pos.turn());
    let (reason, why) = match error {
        SanError::AmbiguousSan => (RejectReason::AmbiguousMove, ambiguity(pos, &san_plus.san)),
        _ => (RejectReason::IllegalMove, illegality(pos, &san_plus.san)),
    };
    let what = match reason {
        RejectReason::AmbiguousMove => "ambiguous move",
        _ => "illegal move",
    };
    Rejection::new(
        reason,
        format!("{what} {san_plus} at ply {ply} ({side} to move): {why}"),
    )
    .at(ply, san_plus.to_string())
}

fn illegality(pos: &Chess, san: &San) -> String {
    match *san {
        San::Normal { role, to, .. } => {
            if pos.our(role).is_empty() {
                format!("{} has no {}", color_name(pos.turn()), role_name(role))
            } else if pos.san_candidates(role, to).is_empty() {
                format!("no {} can reach {}", role_name(role), to)
            } else {
                format!("no legal {} move to {} matches", role_name(role), to)
            }
        }
        San::Castle(CastlingSide::KingSide) => "kingside castling is not legal here".into(),
        San::Castle(CastlingSide::QueenSide) => "queenside castling is not legal here".into(),
        _ => "not a legal move".into(),
    }
}

fn ambiguity(pos: &Chess, san: &San) -> String {
    match *san {
        San::Normal { role, to, .. } => format!(
            "{} {}s can reach {}",
            pos.san_candidates(role, to).len(),
            role_name(role),
            to
        ),
        _ => "several legal moves match".into(),
    }
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
        .map(|s| s.pos)
        .unwrap_or_default();
        random_walk_from(&frc, 0x0fed_cba9_8765_4321, 60, 80, check);
    }

    #[test]
    fn variants() {
        assert!(setup(Some("Chess 960"), None).is_ok_and(|s| s.chess960));
        assert!(setup(Some("Fische-Random"), None).is_ok_and(|s| s.chess960));
        assert!(setup(Some("Crazyhouse"), None).is_err());
        assert!(setup(Some("FRC"), None).is_ok_and(|s| s.chess960));
        assert!(setup(Some("From Position"), None).is_ok_and(|s| !s.chess960));
        assert_eq!(
            setup(Some("Atomic"), None).err().map(|e| e.reason),
            Some(RejectReason::UnsupportedVariant)
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
