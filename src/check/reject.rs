//! The per-game path, rejects: a game that fails a check becomes a rejects
//! row with its reason, place, ply and token, its text capped so that a
//! garbage "game" cannot blow up memory on the way into Parquet.

use crate::check::game_place;
use crate::pgn::encoding;
use crate::pgn::framer::{self, RawGame};
use crate::pgn::movetext;
use crate::pgn::visitor::ParsedGame;
use crate::replay::reject::{RejectReason, Rejection};
use crate::sink::rows::RejectRow;

/// The reject of a game the framer cut: at the end of a truncated input, or
/// at [`framer::MAX_GAME_BYTES`].
pub(super) fn frame_rejection(raw: &RawGame) -> Option<Rejection> {
    if raw.truncated {
        let message = "the input ends inside this game (cut off or unreadable after it)";
        return Some(Rejection::new(RejectReason::TruncatedInput, message));
    }
    if raw.oversized {
        let message = format!("game longer than {} bytes", framer::MAX_GAME_BYTES);
        return Some(Rejection::new(RejectReason::OversizedGame, message));
    }
    None
}

pub(super) fn token_rejection(
    reason: RejectReason,
    what: &str,
    problem: &movetext::TokenProblem,
) -> Rejection {
    let mut rejection = Rejection::new(
        reason,
        format!(
            "{what} {:?} at line {} (before ply {})",
            problem.token, problem.line, problem.ply
        ),
    )
    .at(problem.ply, problem.token.clone());
    rejection.token_line = Some(problem.line);
    rejection
}

pub(super) fn reject_row(
    raw: &RawGame,
    bytes: &[u8],
    game: Option<&ParsedGame>,
    rejection: Rejection,
) -> RejectRow {
    // Without pgn-reader's tags, read the header directly.
    let fallback = match game {
        Some(_) => Vec::new(),
        None => crate::pgn::tag_line::quick_tags(bytes),
    };
    let tag = |name: &str| match game {
        Some(g) => g.tag(name).map(str::to_owned),
        None => fallback
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone()),
    };
    // A huge reject keeps only its head: its text is copied several times
    // on the way into Parquet (row, column, page, statistics), and an 8 MiB
    // garbage "game" cost 200 MiB of memory before these caps.
    let kept = bytes.get(..MAX_RAW_PGN).unwrap_or(bytes);
    let (raw_pgn, raw_repaired) = encoding::decode(kept);
    RejectRow {
        place: game_place(raw),
        reason: rejection.reason,
        message: cap_chars(rejection.message, MAX_MESSAGE_CHARS),
        ply: rejection.ply,
        token: rejection.token.map(|t| cap_chars(t, MAX_TOKEN_CHARS)),
        token_line: rejection.token_line,
        white: tag("White"),
        black: tag("Black"),
        event: tag("Event"),
        date: tag("Date"),
        encoding_repaired: game.is_some_and(|g| g.encoding_repaired) || raw_repaired,
        raw_pgn,
    }
}

/// Bytes of a rejected game kept in `raw_pgn` (its head; the game's place
/// finds the rest).
pub const MAX_RAW_PGN: usize = 1 << 20;
/// Characters kept of a reject's `token` and `message`.
pub const MAX_TOKEN_CHARS: usize = 200;
pub const MAX_MESSAGE_CHARS: usize = 1000;

/// `text` cut to `max` characters, ending in `…` when cut.
fn cap_chars(text: String, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => {
            let mut cut = text;
            cut.truncate(at);
            cut.push('…');
            cut
        }
        None => text,
    }
}
