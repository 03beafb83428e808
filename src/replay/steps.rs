//! Replay stage, a game's steps: one game's PGN text framed and read as
//! the import reads a game (the framer, pgn-reader's visitor, the token
//! audit) and replayed from its own start (its `Variant` and `FEN` tags
//! through [`setup_variant`], its moves through the import's `Replayer`),
//! then walked ply by ply for whoever shows the game (the server's game
//! page): each move's SAN, UCI, squares and the FEN after it. A set-up
//! position, Chess960 and every lichess variant step as the import
//! replayed them; a move that cannot be played is an error, never a game
//! cut short.

use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::variant::VariantPosition;
use shakmaty::{Board, CastlingMode, CastlingSide, Color, EnPassantMode, Move, Position, Square};
use thiserror::Error;

use crate::pgn::framer::{Batch, Framer};
use crate::pgn::movetext::MovetextReport;
use crate::pgn::visitor::{BatchParser, Comments, FeedHolder, ParseOutcome, ParsedGame};
use crate::replay::reject::Rejection;
use crate::replay::variant::VariantName;
use crate::replay::{Replayer, Start, setup_variant, variant_of};

/// One ply of a game's mainline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// As shakmaty writes it (`Nf3`, `O-O`, `exd8=Q#`, `N@f3`, `@b4`).
    pub san: String,
    /// In Chess960, castling is king to rook (`e1h1`), as lichess writes it.
    pub uci: String,
    /// The position after the move (en passant only when it can be taken,
    /// as python-chess and lichess write it; pockets and check counters
    /// for the variants that have them).
    pub fen: String,
    /// The squares to highlight: where the piece left (None for a drop)
    /// and arrived (for castling, the king's squares as lichess shows
    /// them: `e1` and `g1`, in Chess960 too).
    pub from: Option<Square>,
    pub to: Square,
    /// The board after the move, to draw.
    pub board: Board,
}

/// A game replayed ply by ply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameSteps {
    /// Its tag pairs in file order.
    pub tags: Vec<(String, String)>,
    pub variant: VariantName,
    pub chess960: bool,
    /// The position the game starts from (the standard one, its `FEN`
    /// tag's, or its variant's).
    pub start_fen: String,
    pub start_board: Board,
    /// Who moves first, and the number of the first move (a set-up
    /// position can start with black, at any move).
    pub start_turn: Color,
    pub start_move_number: u32,
    /// One per mainline ply, in order.
    pub steps: Vec<Step>,
}

/// Why a game's text cannot be stepped through.
#[derive(Debug, Error)]
pub enum StepsError {
    /// Not one game pgn-reader and the token audit read whole.
    #[error("not one readable game: {0}")]
    Unreadable(String),
    /// Its variant, start position or a move the import would reject.
    #[error("{}{}", .0.message, ply_of(.0))]
    Rejected(Rejection),
}

fn ply_of(rejection: &Rejection) -> String {
    rejection
        .ply
        .map(|ply| format!(" (ply {ply})"))
        .unwrap_or_default()
}

/// The steps of the one game `pgn` holds (as `export` writes a game).
pub fn game_steps(pgn: &str) -> Result<GameSteps, StepsError> {
    let (game, report) = parse(pgn.as_bytes())?;
    // As the import checks a game: a variant nobody implements is the
    // reason, whatever its moves look like; then every token.
    let variant = variant_of(game.text(game.variant)).map_err(StepsError::Rejected)?;
    audit(&game, &report)?;
    let start = setup_variant(variant, game.text(game.fen)).map_err(StepsError::Rejected)?;
    let moves = replayed_moves(&start, &game)?;
    let tags = game
        .tags
        .iter()
        .map(|(name, value)| (name.to_string(), value.of(&game.tag_text).to_owned()))
        .collect();
    Ok(walk(tags, start, &moves))
}

/// The game as the import frames and parses it, with the token audit's
/// report; text that frames as no game or as several is no game.
fn parse(text: &[u8]) -> Result<(ParsedGame, MovetextReport), StepsError> {
    let mut batch = Batch::default();
    Framer::new(text)
        .fill_batch(&mut batch, &mut 0, usize::MAX, 2)
        .map_err(|e| StepsError::Unreadable(e.to_string()))?;
    let [raw] = batch.games.as_slice() else {
        let games = batch.games.len();
        return Err(StepsError::Unreadable(format!("{games} games, not one")));
    };
    let bytes = batch.game_bytes(raw);
    let holder = FeedHolder::new(bytes);
    let mut parser = BatchParser::new(&holder, Comments::Logged);
    let (outcome, report) = parser.parse_in_one_pass(bytes, raw.line, raw.tags_only);
    match outcome {
        ParseOutcome::Game(game) => Ok((game, report)),
        ParseOutcome::SyntaxError(error) => Err(StepsError::Unreadable(error)),
        ParseOutcome::Split => Err(StepsError::Unreadable("more than one game".into())),
    }
}

/// Every token read, as the import's audit asks.
fn audit(game: &ParsedGame, report: &MovetextReport) -> Result<(), StepsError> {
    if let Some(problem) = &report.problem {
        return Err(StepsError::Unreadable(format!(
            "{:?} token {:?} at line {}",
            problem.kind, problem.token, problem.line
        )));
    }
    if report.mainline_moves as usize != game.sans.len() {
        return Err(StepsError::Unreadable(format!(
            "the token audit counts {} mainline moves, pgn-reader {}",
            report.mainline_moves,
            game.sans.len()
        )));
    }
    Ok(())
}

/// The game's moves as the import's replay resolves them (its rejects
/// are this game's errors).
fn replayed_moves(start: &Start, game: &ParsedGame) -> Result<Vec<Move>, StepsError> {
    let mut replayer = Replayer {
        // Only the moves are wanted: no search for a dead position.
        unwinnable_nodes: 0,
        ..Replayer::default()
    };
    replayer
        .replay(start.clone(), &game.sans)
        .map_err(StepsError::Rejected)?;
    let moves = replayer.moves().to_vec();
    if moves.len() != game.sans.len() {
        return Err(StepsError::Unreadable(format!(
            "{} moves replayed of {}",
            moves.len(),
            game.sans.len()
        )));
    }
    Ok(moves)
}

/// Plays `moves` from `start`, recording each step.
fn walk(tags: Vec<(String, String)>, start: Start, moves: &[Move]) -> GameSteps {
    let mode = CastlingMode::from_chess960(start.chess960);
    let mut pos: VariantPosition = start.pos;
    let start_fen = fen_of(&pos);
    let start_board = pos.board().clone();
    let (start_turn, start_move_number) = (pos.turn(), pos.fullmoves().get());
    let mut steps = Vec::with_capacity(moves.len());
    for &m in moves {
        let (from, to) = squares(&m, pos.turn());
        let uci = m.to_uci(mode).to_string();
        let san = SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string();
        steps.push(Step {
            san,
            uci,
            fen: fen_of(&pos),
            from,
            to,
            board: pos.board().clone(),
        });
    }
    GameSteps {
        tags,
        variant: start.variant,
        chess960: start.chess960,
        start_fen,
        start_board,
        start_turn,
        start_move_number,
        steps,
    }
}

fn fen_of(pos: &VariantPosition) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// Where the moving piece leaves and lands; castling as the king's move.
fn squares(m: &Move, turn: Color) -> (Option<Square>, Square) {
    match *m {
        Move::Normal { from, to, .. } | Move::EnPassant { from, to } => (Some(from), to),
        Move::Castle { king, rook } => {
            let side = CastlingSide::from_king_side(king < rook);
            (Some(king), side.king_to(turn))
        }
        Move::Put { to, .. } => (None, to),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(pgn: &str) -> GameSteps {
        game_steps(pgn).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_game_from_a_fen_steps_from_its_own_position() {
        let game = steps(
            "[Event \"x\"]\n[SetUp \"1\"]\n[FEN \"6k1/5p2/6p1/8/8/8/r4PPP/3Q2K1 w - - 0 1\"]\n\n1. Qd8+ Kg7 2. Qd4+ Kh6 *\n",
        );
        assert_eq!(game.start_fen, "6k1/5p2/6p1/8/8/8/r4PPP/3Q2K1 w - - 0 1");
        let sans: Vec<&str> = game.steps.iter().map(|s| s.san.as_str()).collect();
        assert_eq!(sans, ["Qd8+", "Kg7", "Qd4+", "Kh6"]);
        assert_eq!(game.steps[0].uci, "d1d8");
        assert_eq!(game.steps[0].fen, "3Q2k1/5p2/6p1/8/8/8/r4PPP/6K1 b - - 1 1");
        assert_eq!(
            (game.steps[0].from, game.steps[0].to),
            (Some(Square::D1), Square::D8)
        );
        assert_eq!(game.steps[3].fen, "8/5p2/6pk/8/3Q4/8/r4PPP/6K1 w - - 4 3");
        assert_eq!(game.tags[1], ("SetUp".to_owned(), "1".to_owned()));
        assert_eq!((game.start_turn, game.start_move_number), (Color::White, 1));
        let black = steps("[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 40\"]\n\n40... Kd7 41. e4 *\n");
        assert_eq!(
            (black.start_turn, black.start_move_number),
            (Color::Black, 40)
        );
        assert_eq!(black.steps[1].fen, "8/3k4/8/8/4P3/8/8/4K3 b - - 0 41");
    }

    #[test]
    fn chess960_castles_king_to_rook_and_highlights_the_king() {
        let game = steps(
            "[Variant \"Chess960\"]\n[FEN \"bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1\"]\n\n1. g3 g6 2. O-O O-O 3. f4 f5 *\n",
        );
        assert!(game.chess960);
        assert_eq!(
            game.start_fen,
            "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - 0 1"
        );
        let castle = &game.steps[2];
        assert_eq!(castle.san, "O-O");
        assert_eq!(castle.uci, "f1g1");
        assert_eq!((castle.from, castle.to), (Some(Square::F1), Square::G1));
        assert_eq!(
            castle.fen,
            "bqnbrkrn/pppppp1p/6p1/8/8/6P1/PPPPPP1P/BQNBRRKN b kq - 1 2"
        );
        assert_eq!(game.steps[3].uci, "f8g8");
    }

    #[test]
    fn a_crazyhouse_drop_steps_with_its_pockets() {
        let game = steps(
            "[Variant \"Crazyhouse\"]\n\n1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. P@b4 Qxb4 *\n\n",
        );
        assert_eq!(game.variant, VariantName::Crazyhouse);
        assert_eq!(
            game.start_fen,
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"
        );
        let drop = &game.steps[6];
        // shakmaty's SAN of a pawn drop, as `clean` and `export` write it.
        assert_eq!((drop.san.as_str(), drop.uci.as_str()), ("@b4", "P@b4"));
        assert_eq!((drop.from, drop.to), (None, Square::B4));
        let last = game.steps.last().unwrap_or_else(|| panic!("no steps"));
        assert_eq!(
            last.fen,
            "rnb1kbnr/ppp1pppp/8/8/1q6/2N5/PPPP1PPP/R1BQKBNR[pp] w KQkq - 0 5"
        );
    }

    #[test]
    fn a_move_that_cannot_be_played_is_an_error_not_a_shorter_game() {
        let error = game_steps("[Event \"x\"]\n\n1. e4 e5 2. Ke3 *\n").err();
        assert!(
            matches!(&error, Some(StepsError::Rejected(r)) if r.ply == Some(3)),
            "{error:?}"
        );
        // A standard start with a FEN game's moves fails at its first.
        let error = game_steps("[Event \"x\"]\n\n1. Qd8+ Kg7 *\n").err();
        assert!(matches!(error, Some(StepsError::Rejected(_))), "{error:?}");
        let error = game_steps("[Variant \"Shogi\"]\n\n1. P-7f *\n").err();
        assert!(matches!(error, Some(StepsError::Rejected(_))), "{error:?}");
        let error = game_steps("[Event \"x\"]\n\n1. e4 {never closed\n").err();
        assert!(
            matches!(error, Some(StepsError::Unreadable(_))),
            "{error:?}"
        );
        let two = "[Event \"x\"]\n\n1. e4 *\n\n[Event \"y\"]\n\n1. d4 *\n\n";
        let error = game_steps(two).err().map(|e| e.to_string());
        assert_eq!(
            error.as_deref(),
            Some("not one readable game: 2 games, not one")
        );
    }
}
