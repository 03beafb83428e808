//! The per-game path, a rejected game read again (`clean --repair`,
//! `import --repair`): which rejections repair may undo, the game's bytes
//! decoded, its tag section through the quote repair, its start position
//! (an empty `FEN` tag read as the standard start) and its movetext through
//! notation repair. `clean` writes the game back from this; `import` writes
//! it as read and checks that text like any other game (`row`).

use shakmaty::variant::VariantPosition;
use shakmaty::{Chess, Position};

use crate::check::repair::{self, Repair, RepairClass, RepairError, Repaired};
use crate::check::tag_section::{TagSection, read_tag_section};
use crate::pgn::encoding;
use crate::replay::reject::RejectReason;
use crate::replay::{self, Start};
use crate::sink::pgn::{ExportGame, ExportMove, write_game_as_read};
use crate::sink::rows::RejectRow;

/// A rejected game's tags and start, read again.
pub(crate) struct Reread {
    /// Tags in file order, values unescaped; an empty `FEN` tag and its
    /// `SetUp` dropped.
    pub tags: Vec<(String, String)>,
    /// What reading the tags took: unescaped quotes, an empty `FEN`.
    pub repairs: Vec<Repair>,
    pub start: Start,
    /// The `FEN` tag was empty (read as the standard start).
    pub empty_fen: bool,
    /// Some byte was decoded as Windows-1252.
    pub encoding_repaired: bool,
    /// The game's text, decoded, and where its movetext starts in it.
    text: String,
    movetext: usize,
}

impl Reread {
    /// The movetext, from its first byte.
    pub(crate) fn body(&self) -> &str {
        // Checked a character boundary when read (`reread`).
        &self.text[self.movetext..]
    }

    /// The start position when it is standard chess (or Chess960): the
    /// only rules notation repair reads.
    pub(crate) fn chess(&self) -> Option<&Chess> {
        match &self.start.pos {
            VariantPosition::Chess(chess) => Some(chess),
            _ => None,
        }
    }

    /// The movetext through notation repair.
    pub(crate) fn moves(&self) -> Option<Result<Repaired, Box<RepairError>>> {
        Some(repair::repair(self.chess()?, self.body()))
    }
}

/// Whether repair may read a game rejected for `reason` again: a token or a
/// tag no rule reads, an illegal move (a wrong origin square), a FEN.
pub(crate) fn repairable(reason: RejectReason) -> bool {
    matches!(
        reason,
        RejectReason::UnknownToken
            | RejectReason::UnparsableSan
            | RejectReason::IllegalMove
            | RejectReason::MalformedTag
            | RejectReason::InvalidFen
    )
}

/// Reads a rejected game's bytes again up to its movetext. None when its
/// tags are no tag pairs even with the quote repair, or name no position
/// pgnlake can play.
pub(crate) fn reread(bytes: &[u8]) -> Option<Reread> {
    let (text, encoding_repaired) = encoding::decode(bytes);
    let TagSection {
        mut tags,
        mut repairs,
        movetext,
    } = read_tag_section(&text)?;
    if !text.is_char_boundary(movetext) {
        return None;
    }
    let tag = |name: &str| tags.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    let fen = tag("FEN");
    let empty_fen = fen.as_deref().is_some_and(|f| f.trim().is_empty());
    let fen = fen.filter(|_| !empty_fen);
    let start = replay::setup(tag("Variant").as_deref(), fen.as_deref()).ok()?;
    if empty_fen {
        tags.retain(|(name, _)| name != "FEN" && name != "SetUp");
        repairs.push(Repair {
            class: RepairClass::EmptyFen,
            ply: None,
            detail: "empty FEN tag read as the standard start".into(),
        });
    }
    Some(Reread {
        tags,
        repairs,
        start,
        empty_fen,
        encoding_repaired,
        text,
        movetext,
    })
}

/// A repaired game's moves to write: SAN, NAGs and comments (repair drops
/// variations).
pub(crate) fn export_moves(repaired: &Repaired) -> Vec<ExportMove> {
    repaired
        .moves
        .iter()
        .map(|r| ExportMove {
            san: r.san.to_string(),
            nags: r.nags.clone(),
            comments: r.comments.clone(),
            variations: Vec::new(),
        })
        .collect()
}

/// The repaired game as it was read, in standard notation: its tags as
/// they are (none added: a tag the game lacks stays null), its moves in
/// SAN with their comments and NAGs, its result marker if it had one.
/// `import --repair` checks this text like any game.
pub(crate) fn as_read_text(reread: &Reread, repaired: &Repaired) -> String {
    let game = ExportGame {
        tags: reread.tags.clone(),
        leading_comments: repaired.leading_comments.clone(),
        moves: export_moves(repaired),
        first_move_number: reread.start.pos.fullmoves().get(),
        white_first: reread.start.pos.turn().is_white(),
        result: repaired
            .marker
            .map_or(String::new(), |m| m.as_str().to_owned()),
    };
    let mut text = String::with_capacity(reread.text.len() + 64);
    write_game_as_read(&game, &mut text);
    text
}

/// The repairs as the `repairs` column writes them: `kind:count` by kind.
pub(crate) fn repairs_text(repairs: &[Repair]) -> Option<String> {
    let mut counts: std::collections::BTreeMap<&str, u32> = std::collections::BTreeMap::new();
    for repair in repairs {
        *counts.entry(repair.class.as_str()).or_default() += 1;
    }
    let pairs: Vec<String> = counts
        .iter()
        .map(|(kind, n)| format!("{kind}:{n}"))
        .collect();
    (!pairs.is_empty()).then(|| pairs.join(", "))
}

/// The game's reject row when repair found a token that fits several legal
/// moves: `ambiguous_move` at that token (a guess would invent a move).
pub(crate) fn rejected_as_ambiguous(mut row: RejectRow, token: String, ply: u32) -> RejectRow {
    row.reason = RejectReason::AmbiguousMove;
    row.message = format!("repair: {token:?} at ply {ply} fits more than one legal move");
    row.ply = Some(ply);
    row.token = Some(token);
    row
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repaired_text(pgn: &str) -> (String, Vec<&'static str>) {
        let reread = reread(pgn.as_bytes()).unwrap_or_else(|| panic!("{pgn}"));
        let repaired = match reread.moves() {
            Some(Ok(repaired)) => repaired,
            _ => panic!("{pgn}"),
        };
        let mut classes: Vec<&str> = reread.repairs.iter().map(|r| r.class.as_str()).collect();
        classes.extend(repaired.repairs.iter().map(|r| r.class.as_str()));
        (as_read_text(&reread, &repaired), classes)
    }

    /// The text `import --repair` checks: the tags as they were (none
    /// added, the quotes repaired and escaped), the moves in SAN with their
    /// comments and NAGs, and a marker only where the game had one.
    #[test]
    fn a_repaired_game_is_written_as_read() {
        let (text, classes) = repaired_text(
            "[White \"Tal, Mikhail \"Misha\"\"]\n\n1. e4 e5 2. Ng1-f3 {[%clk 0:01:00]} Nc6 $1 3. Bb5 a6 4. Bc6 dc6",
        );
        assert_eq!(
            text,
            "[White \"Tal, Mikhail \\\"Misha\\\"\"]\n\n\
             1. e4 e5 2. Nf3 {[%clk 0:01:00]} 2... Nc6 $1 3. Bb5 a6 4. Bxc6 dxc6\n\n"
        );
        assert_eq!(
            classes,
            [
                "unescaped_quotes",
                "notation",
                "capture_without_x",
                "reduced_pawn_capture"
            ]
        );
        let (text, _) = repaired_text(
            "[Result \"1-0\"]\n[FEN \"\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qf7++ 1-0",
        );
        assert_eq!(
            text,
            "[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n"
        );
    }

    #[test]
    fn repairs_are_counted_by_kind() {
        let repair = |class| Repair {
            class,
            ply: None,
            detail: String::new(),
        };
        assert_eq!(repairs_text(&[]), None);
        let repairs = [
            repair(RepairClass::UnescapedQuotes),
            repair(RepairClass::CaptureWithoutX),
            repair(RepairClass::UnescapedQuotes),
        ];
        assert_eq!(
            repairs_text(&repairs).as_deref(),
            Some("capture_without_x:1, unescaped_quotes:2")
        );
    }

    /// Only rejections of the notation or the tags are read again: a game
    /// cut short or of an unknown variant is not a notation fault.
    #[test]
    fn what_repair_may_read_again() {
        assert!(repairable(RejectReason::UnparsableSan));
        assert!(repairable(RejectReason::MalformedTag));
        assert!(!repairable(RejectReason::TruncatedInput));
        assert!(!repairable(RejectReason::UnsupportedVariant));
    }
}
