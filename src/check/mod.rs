//! The per-game path `import` and `clean` share, between the stages and the
//! commands: framed bytes → pgn-reader parse and token audit → replay, in
//! one batch loop; a failure becomes the game's rejects row (`reject`), an
//! accepted game the import's games row and aggregates (`row`).

mod moves;
mod reject;
pub mod repair;
pub(crate) mod reread;
mod row;
pub(crate) mod tag_section;

use shakmaty::variant::VariantPosition;

use crate::pgn::encoding;
use crate::pgn::framer::{Batch, RawGame};
use crate::pgn::movetext::{self, MovetextReport, TokenProblemKind};
use crate::pgn::visitor::{BatchParser, Comments, FeedHolder, ParseOutcome, ParsedGame};
use crate::profile::{self, Stage, Timer};
use crate::replay::reject::{RejectReason, Rejection};
use crate::replay::variant::VariantName;
use crate::replay::{self, FenRepair, Replayed, Replayer};
use crate::sink::rows::{Place, RejectRow};

pub use reject::{MAX_MESSAGE_CHARS, MAX_RAW_PGN, MAX_TOKEN_CHARS};
use reject::{frame_rejection, reject_row, token_rejection};
pub use row::{BatchModes, BatchOutput, counted_result, process_batch};

/// A game that parsed, passed the token audit and replayed.
pub(crate) struct CheckedGame {
    pub game: ParsedGame,
    pub report: MovetextReport,
    /// The start position (the replay consumed its own copy).
    pub start: VariantPosition,
    pub start_fen: Option<String>,
    pub chess960: bool,
    pub variant: VariantName,
    /// What the FEN tag said that its position cannot have, dropped.
    pub fen_repaired: Option<FenRepair>,
    pub replayed: Replayed,
}

/// Frames, parses, audits and replays one game: the steps `import` and
/// `clean` share. A failure is the game's reject row.
pub(crate) fn check_game(
    batch: &Batch,
    raw: &RawGame,
    next: usize,
    parser: &mut BatchParser<'_>,
    replayer: &mut Replayer,
) -> Result<CheckedGame, Box<RejectRow>> {
    let bytes = batch.game_bytes(raw);
    let reject = |game: Option<&ParsedGame>, rejection: Rejection| {
        Box::new(reject_row(raw, bytes, game, rejection))
    };
    // A game the framer cut is rejected before any scan of its (possibly
    // 32 MiB) text.
    if let Some(rejection) = frame_rejection(raw) {
        return Err(reject(None, rejection));
    }
    let mut timer = Timer::start();
    let (outcome, report) = if parser.reads_in_one_pass() {
        let parsed = parser.parse_in_one_pass(bytes, raw.line, raw.tags_only);
        profile::lap(&mut timer, Stage::Parse);
        parsed
    } else {
        let report = movetext::scan(bytes, raw.line);
        profile::lap(&mut timer, Stage::TokenAudit);
        // pgn-reader would read on past the frame of an unterminated comment.
        let outcome = (!unterminated(&report)).then(|| parser.parse(raw.start, raw.end, next));
        profile::lap(&mut timer, Stage::Parse);
        (outcome.unwrap_or(ParseOutcome::Split), report)
    };
    let game = parsed_game(outcome, &report).map_err(|r| reject(None, r))?;
    // A variant nobody implements is the reason, whatever its moves look
    // like (`P-7f` in shogi).
    let declared_variant =
        replay::variant_of(game.text(game.variant)).map_err(|r| reject(Some(&game), r))?;
    audit_tokens(&game, &report, bytes).map_err(|r| reject(Some(&game), r))?;
    profile::lap(&mut timer, Stage::TokenAudit);
    let start = replay::setup_variant(declared_variant, game.text(game.fen))
        .map_err(|r| reject(Some(&game), r))?;
    let start_fen = start.start_fen.clone();
    let chess960 = start.chess960;
    // Chess960 when the FEN needs it, whatever the tag said.
    let variant = start.variant;
    let fen_repaired = start.fen_repaired.clone();
    let start_pos = start.pos.clone();
    let replayed = replayer
        .replay(start, &game.sans)
        .map_err(|mut rejection| {
            if let Some(ply) = rejection.ply
                && let Some((line, _)) = movetext::locate_mainline_ply(bytes, raw.line, ply)
            {
                rejection.token_line = Some(line);
            }
            reject(Some(&game), rejection)
        })?;
    profile::lap(&mut timer, Stage::Replay);
    Ok(CheckedGame {
        game,
        report,
        start: start_pos,
        start_fen,
        chess960,
        variant,
        fen_repaired,
        replayed,
    })
}

/// The one batch loop of `import` and `clean`: each game of the batch in
/// order, with the start of the next frame (where its text ends) and one
/// parser and replayer reused across the batch. `comments`: what the
/// parser keeps of them; `unwinnable_nodes`: the dead-position search's
/// budget.
pub(crate) fn for_each_game(
    batch: &Batch,
    comments: Comments,
    unwinnable_nodes: u64,
    mut each: impl FnMut(&RawGame, usize, &mut BatchParser<'_>, &mut Replayer),
) {
    let holder = FeedHolder::new(&batch.data);
    let mut parser = BatchParser::new(&holder, comments);
    let mut replayer = Replayer::default();
    replayer.unwinnable_nodes = unwinnable_nodes;
    for (index, raw) in batch.games.iter().enumerate() {
        let next = batch
            .games
            .get(index + 1)
            .map_or(batch.data.len(), |g| g.start);
        each(raw, next, &mut parser, &mut replayer);
    }
}

/// Whether the audit found a `{` that never closes.
fn unterminated(report: &MovetextReport) -> bool {
    report
        .problem
        .as_ref()
        .is_some_and(|p| p.kind == TokenProblemKind::UnterminatedComment)
}

/// The parsed game, or why the frame is unreadable: a comment that never
/// closes (whatever the parser made of it), a tag line too long, or a
/// frame the parser reads as more than one game.
fn parsed_game(outcome: ParseOutcome, report: &MovetextReport) -> Result<ParsedGame, Rejection> {
    if unterminated(report)
        && let Some(p) = &report.problem
    {
        return Err(token_rejection(
            RejectReason::UnterminatedComment,
            "unterminated comment",
            p,
        ));
    }
    match outcome {
        ParseOutcome::Game(game) => Ok(game),
        ParseOutcome::SyntaxError(error) => Err(Rejection::new(
            RejectReason::MalformedTag,
            format!("malformed tag: {error}"),
        )),
        // pgn-reader ended the game early, nearly always at a broken tag
        // line (an unescaped quote, text after the value).
        ParseOutcome::Split => Err(match &report.problem {
            Some(p) => token_rejection(RejectReason::MalformedTag, "malformed tag section near", p),
            None => Rejection::new(
                RejectReason::MalformedTag,
                "malformed tag section: pgn-reader reads more than one game here",
            ),
        }),
    }
}

/// Rejects text that is no game, and games with a token pgn-reader skipped.
fn audit_tokens(game: &ParsedGame, report: &MovetextReport, bytes: &[u8]) -> Result<(), Rejection> {
    if game.tags.is_empty() && game.sans.is_empty() && report.mainline_moves == 0 {
        let text = encoding::decode(bytes).0;
        let preview: String = text.trim().chars().take(60).collect();
        let message = format!("text between games: {preview:?}");
        return Err(Rejection::new(RejectReason::Garbage, message));
    }
    if let Some(problem) = &report.problem {
        let (reason, what) = match problem.kind {
            TokenProblemKind::Unknown => (RejectReason::UnknownToken, "unknown token"),
            TokenProblemKind::AfterResult => (RejectReason::UnknownToken, "text after the result"),
            TokenProblemKind::TagLine => (RejectReason::MalformedTag, "malformed tag line near"),
            TokenProblemKind::UnparsableSan => (RejectReason::UnparsableSan, "unparsable SAN"),
            TokenProblemKind::UnterminatedComment => {
                (RejectReason::UnterminatedComment, "unterminated comment")
            }
        };
        return Err(token_rejection(reason, what, problem));
    }
    if report.mainline_moves as usize != game.sans.len() {
        let message = format!(
            "token audit counts {} mainline moves, pgn-reader {}",
            report.mainline_moves,
            game.sans.len()
        );
        return Err(Rejection::new(RejectReason::UnknownToken, message));
    }
    Ok(())
}

/// Where a game sits: its number in the run, its source and its place in it.
pub(crate) fn game_place(raw: &RawGame) -> Place {
    Place {
        game_id: raw.game_id,
        source: raw.source,
        game_index: raw.game_index,
        offset: raw.offset,
        line: raw.line,
    }
}
