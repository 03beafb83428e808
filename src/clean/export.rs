//! Archivist mode, export: a checked game as standard PGN (SAN regenerated
//! from the replayed moves, tags in file order, comments and NAGs in place),
//! its variations replayed too: kept when legal, else turned into a comment
//! and reported.

use shakmaty::san::SanPlus;
use shakmaty::variant::VariantPosition;
use shakmaty::{Move, Position};

use crate::clean::action::{Action, ActionKind};
use crate::pgn::visitor::{MAX_VARIATION_DEPTH, NoteKind, ParsedGame, VarLine};
use crate::sink::pgn::{ExportGame, ExportLine, ExportMove};

/// The game with SAN regenerated from the replayed moves, tags in file
/// order (the `Result` tag set to the normalised result), its notes, and
/// its variations: replayed too, kept when legal, otherwise turned into a
/// comment and reported.
pub(super) fn export_game(
    game: &ParsedGame,
    start: VariantPosition,
    moves: &[Move],
    result: &str,
    actions: &mut Vec<Action>,
) -> ExportGame {
    match start {
        // Standard chess on its own (faster) position.
        VariantPosition::Chess(chess) => export_from(game, chess, moves, result, actions),
        variant => export_from(game, variant, moves, result, actions),
    }
}

/// [`export_game`] on one kind of position.
fn export_from<P: Position + Clone>(
    game: &ParsedGame,
    start: P,
    moves: &[Move],
    result: &str,
    actions: &mut Vec<Action>,
) -> ExportGame {
    let tags = game
        .tags
        .iter()
        .map(|(name, span)| {
            let value = if name == "Result" {
                result.to_owned()
            } else {
                span.of(&game.tag_text).to_owned()
            };
            (name.to_string(), value)
        })
        .collect();
    let first_move_number = start.fullmoves().get();
    let white_first = start.turn().is_white();
    let mut pos = start;
    // The position before each mainline move, where its variations start.
    let mut before = Vec::with_capacity(moves.len());
    let mut export_moves: Vec<ExportMove> = moves
        .iter()
        .map(|&m| {
            before.push(pos.clone());
            ExportMove {
                san: SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string(),
                ..ExportMove::default()
            }
        })
        .collect();
    let mut leading_comments = Vec::new();
    if game.too_deep_variations > 0 {
        actions.push(Action::new(
            ActionKind::VariationDropped,
            None,
            format!(
                "{} variations nested deeper than {} levels dropped",
                game.too_deep_variations, MAX_VARIATION_DEPTH
            ),
        ));
    }
    for line in &game.lines {
        let at = line.replaces as usize;
        let exported = before
            .get(at)
            .ok_or_else(|| "no move to replace".to_owned())
            .and_then(|pos| export_line(line, pos));
        match (exported, export_moves.get_mut(at)) {
            (Ok(variation), Some(m)) => m.variations.push(variation),
            (failure, target) => {
                let why = match failure {
                    Err(why) => why,
                    Ok(_) => "no move to replace".to_owned(),
                };
                let text = format!("illegal variation: {}", line_text(line));
                actions.push(Action::new(
                    ActionKind::VariationDropped,
                    Some(line.replaces.saturating_add(1)),
                    format!("{text} ({why}); kept as a comment"),
                ));
                match target {
                    Some(m) => m.comments.push(text),
                    None => leading_comments.push(text),
                }
            }
        }
    }
    for note in &game.notes {
        let target = (note.after_plies as usize)
            .checked_sub(1)
            .and_then(|i| export_moves.get_mut(i));
        match (target, &note.kind) {
            (Some(m), NoteKind::Comment(text)) => m.comments.push(text.clone()),
            (Some(m), NoteKind::Nag(nag)) => m.nags.push(*nag),
            (None, NoteKind::Comment(text)) => leading_comments.push(text.clone()),
            // A NAG before the first move annotates nothing.
            (None, NoteKind::Nag(_)) => {}
        }
    }
    ExportGame {
        tags,
        leading_comments,
        moves: export_moves,
        first_move_number,
        white_first,
        result: result.to_owned(),
    }
}

/// A variation replayed from `before` (the position before the move it
/// replaces), sub-variations included; the first illegal move's reason.
fn export_line<P: Position + Clone>(line: &VarLine, before: &P) -> Result<ExportLine, String> {
    let mut pos = before.clone();
    let mut moves = Vec::with_capacity(line.moves.len());
    for vm in &line.moves {
        let m = vm
            .san
            .san
            .to_move(&pos)
            .map_err(|e| format!("{} {e}", vm.san))?;
        let variations = vm
            .variations
            .iter()
            .map(|sub| export_line(sub, &pos))
            .collect::<Result<Vec<_>, _>>()?;
        moves.push(ExportMove {
            san: SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string(),
            nags: vm.nags.clone(),
            comments: vm.comments.clone(),
            variations,
        });
    }
    Ok(ExportLine {
        leading_comments: line.leading_comments.clone(),
        moves,
    })
}

/// A variation's moves as written, sub-variations in parentheses.
fn line_text(line: &VarLine) -> String {
    let mut parts = Vec::new();
    for vm in &line.moves {
        parts.push(vm.san.to_string());
        for sub in &vm.variations {
            parts.push(format!("({})", line_text(sub)));
        }
    }
    parts.join(" ")
}
