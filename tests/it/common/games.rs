//! Random legal games for the property tests, written as PGN in many
//! layouts, with what a direct shakmaty replay says about each.

use std::collections::HashMap;

use proptest::prelude::*;
use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

/// Where a game starts.
#[derive(Debug, Clone)]
pub enum StartKind {
    Standard,
    /// A legal position reached by this many random plies, given as FEN.
    Fen(usize),
    /// A Chess960 array picked by the seed.
    Chess960,
}

#[derive(Debug, Clone)]
pub struct Layout {
    pub seed: u64,
    pub start: StartKind,
    pub plies: usize,
    pub comments: bool,
    pub variations: bool,
    pub crlf: bool,
    pub blank_before_next: bool,
    pub extra_tags: usize,
}

pub fn layout() -> impl Strategy<Value = Layout> {
    (
        any::<u64>(),
        prop_oneof![
            Just(StartKind::Standard),
            (1usize..40).prop_map(StartKind::Fen),
            Just(StartKind::Chess960)
        ],
        0usize..120,
        (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()),
        0usize..4,
    )
        .prop_map(
            |(seed, start, plies, (comments, variations, crlf, blank_before_next), extra_tags)| {
                Layout {
                    seed,
                    start,
                    plies,
                    comments,
                    variations,
                    crlf,
                    blank_before_next,
                    extra_tags,
                }
            },
        )
}

/// What a direct shakmaty replay says about a written game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    pub moves_uci: String,
    pub plies: u32,
    pub end_state: &'static str,
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// A Chess960 back rank: bishops on opposite colours, the king between the
/// rooks.
fn chess960_rank(rng: &mut Rng) -> String {
    let mut rank = [' '; 8];
    rank[rng.below(4) * 2] = 'b';
    rank[rng.below(4) * 2 + 1] = 'b';
    for piece in ['q', 'n', 'n'] {
        let free: Vec<usize> = (0..8).filter(|&i| rank[i] == ' ').collect();
        rank[free[rng.below(free.len())]] = piece;
    }
    let free: Vec<usize> = (0..8).filter(|&i| rank[i] == ' ').collect();
    for (i, piece) in free.into_iter().zip(['r', 'k', 'r']) {
        rank[i] = piece;
    }
    rank.iter().collect()
}

/// The start position, its FEN tag (none for the standard start) and
/// whether it is Chess960.
fn start(layout: &Layout, rng: &mut Rng) -> (Chess, Option<String>, bool) {
    match layout.start {
        StartKind::Standard => (Chess::default(), None, false),
        StartKind::Fen(plies) => {
            let mut pos = Chess::default();
            for _ in 0..plies {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let m = moves[rng.below(moves.len())];
                pos.play_unchecked(m);
            }
            let fen = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
            (pos, Some(fen), false)
        }
        StartKind::Chess960 => {
            let rank = chess960_rank(rng);
            let fen = format!(
                "{rank}/pppppppp/8/8/8/8/PPPPPPPP/{} w KQkq - 0 1",
                rank.to_uppercase()
            );
            let pos = fen
                .parse::<Fen>()
                .ok()
                .and_then(|f| f.into_position(CastlingMode::Chess960).ok())
                .unwrap_or_default();
            (pos, Some(fen), true)
        }
    }
}

/// The final position's state, in pgnlake's order of checks.
fn end_state(pos: &Chess, seen: &HashMap<String, u32>) -> &'static str {
    let key = shakmaty::fen::Epd::from_position(pos, EnPassantMode::Legal).to_string();
    if pos.is_checkmate() {
        "checkmate"
    } else if pos.is_stalemate() {
        "stalemate"
    } else if pos.is_insufficient_material() {
        "insufficient_material"
    } else if seen.get(&key).copied().unwrap_or(0) >= 5 {
        "fivefold_repetition"
    } else if pos.halfmoves() >= 150 {
        "seventyfive_moves"
    } else {
        "none"
    }
}

/// One game as PGN (tags and movetext, lines ending in `\n`) and what a
/// direct replay says about it.
pub fn write_game(layout: &Layout, index: usize) -> (String, Expected) {
    let mut rng = Rng(layout.seed | 1);
    let (mut pos, fen, chess960) = start(layout, &mut rng);
    let mode = if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    let mut tags = format!("[Event \"game {index}\"]\n[Result \"*\"]\n");
    for n in 0..layout.extra_tags {
        tags.push_str(&format!(
            "[Extra{n} \"value {} with \\\"quotes\\\"\"]\n",
            rng.next() % 100
        ));
    }
    if chess960 {
        tags.push_str("[Variant \"Chess960\"]\n");
    }
    if let Some(fen) = &fen {
        tags.push_str(&format!("[SetUp \"1\"]\n[FEN \"{fen}\"]\n"));
    }
    let mut seen: HashMap<String, u32> = HashMap::new();
    let key =
        |pos: &Chess| shakmaty::fen::Epd::from_position(pos, EnPassantMode::Legal).to_string();
    *seen.entry(key(&pos)).or_default() += 1;
    let mut text = String::new();
    let mut uci = Vec::new();
    let first_number = pos.fullmoves().get();
    let white_first = pos.turn().is_white();
    for ply in 0..layout.plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let m = moves[rng.below(moves.len())];
        let white = pos.turn().is_white();
        let number = first_number as usize + (ply + usize::from(!white_first)) / 2;
        if white {
            text.push_str(&format!("{number}. "));
        } else if ply == 0 {
            text.push_str(&format!("{number}... "));
        }
        text.push_str(&San::from_move(&pos, m).to_string());
        text.push(' ');
        let roll = rng.next();
        if layout.comments && roll.is_multiple_of(5) {
            text.push_str("{ a comment with (brackets) ; and\n[%clk 0:01:00] [x] } ");
        }
        if layout.variations && roll.is_multiple_of(7) && ply == 0 && !chess960 && fen.is_none() {
            text.push_str("( 1. Nf3 {not replayed} $3 (1. c4) ) ");
        }
        if roll.is_multiple_of(11) {
            text.push_str("$1 !? ");
        }
        if roll.is_multiple_of(13) {
            text.push('\n');
        }
        uci.push(m.to_uci(mode).to_string());
        pos.play_unchecked(m);
        if pos.halfmoves() == 0 {
            seen.clear();
        }
        *seen.entry(key(&pos)).or_default() += 1;
    }
    text.push('*');
    let expected = Expected {
        moves_uci: uci.join(" "),
        plies: uci.len() as u32,
        end_state: end_state(&pos, &seen),
    };
    (format!("{tags}\n{text}\n"), expected)
}

/// Games as one PGN text (CRLF or LF per game, a blank line or none before
/// the next header) and the expected facts in order.
pub fn render(layouts: &[Layout]) -> (String, Vec<Expected>) {
    let mut pgn = String::new();
    let mut expected = Vec::new();
    for (i, layout) in layouts.iter().enumerate() {
        let (game, facts) = write_game(layout, i);
        let nl = if layout.crlf { "\r\n" } else { "\n" };
        pgn.push_str(&game.replace('\n', nl));
        if layout.blank_before_next {
            pgn.push_str(nl);
        }
        expected.push(facts);
    }
    (pgn, expected)
}
