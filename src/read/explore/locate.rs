//! Explorer, the position lookup: SAN moves from the start or a FEN turned
//! into the position, its key in the opening tree and its opening's name,
//! before any table is read (a bad move or FEN is refused at once).

use serde::Serialize;
use shakmaty::fen::{Epd, Fen};
use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

use crate::error::ExploreError;
use crate::replay::openings::{self, position_key, strip_move_number};

/// The position to explore.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// SAN moves from the start position (move numbers allowed).
    Moves(Vec<String>),
    /// A FEN or EPD.
    Fen(String),
}

/// An opening's ECO code and name, from the opening table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct OpeningLabel {
    pub eco: &'static str,
    pub name: &'static str,
}

impl OpeningLabel {
    /// The name of id `id` in the opening table.
    pub(crate) fn of_id(id: u16) -> Option<OpeningLabel> {
        let name = openings::index().name(id)?;
        Some(OpeningLabel {
            eco: name.eco,
            name: name.name,
        })
    }

    /// The name of exactly the position `pos`, if the table has one.
    pub(crate) fn of_position(pos: &Chess) -> Option<OpeningLabel> {
        OpeningLabel::of_id(openings::index().lookup(position_key(pos))?)
    }
}

/// A position found, with its opening.
#[derive(Debug, Clone)]
pub(crate) struct Located {
    pub position: Chess,
    /// For moves, the deepest named position along them; for a FEN, the
    /// position's own name.
    pub opening: Option<OpeningLabel>,
}

impl Located {
    /// The position's key as `openings.parquet` stores it (signed; see
    /// `openings::stored_key`).
    pub(crate) fn stored_key(&self) -> i64 {
        openings::stored_key(position_key(&self.position))
    }

    /// The position as an EPD (a FEN without the move counters).
    pub(crate) fn epd(&self) -> String {
        Epd::from_position(&self.position, EnPassantMode::Legal).to_string()
    }
}

/// The position a FEN or EPD (a FEN without the move counters) gives,
/// under standard chess rules.
pub(crate) fn position_of_fen(text: &str) -> Result<Chess, ExploreError> {
    let bad = |message: String| ExploreError::BadFen {
        fen: text.to_owned(),
        message,
    };
    Fen::from_ascii(text.trim().as_bytes())
        .map_err(|e| bad(e.to_string()))?
        .into_position(CastlingMode::Standard)
        .map_err(|e| bad(e.to_string()))
}

/// The position's key as `openings.parquet` stores it (`position_key`:
/// the Polyglot key as a signed integer), from a FEN or EPD.
pub(crate) fn stored_key_of_fen(text: &str) -> Result<i64, ExploreError> {
    position_of_fen(text).map(|pos| openings::stored_key(position_key(&pos)))
}

/// The position of `target`, with its opening name.
pub(crate) fn locate(target: &Target) -> Result<Located, ExploreError> {
    let index = openings::index();
    let (position, name_id) = match target {
        Target::Moves(tokens) => {
            let mut pos = Chess::default();
            let mut keys = vec![position_key(&pos)];
            let sans = tokens
                .iter()
                .flat_map(|t| t.split_ascii_whitespace())
                .map(strip_move_number)
                .filter(|t| !t.is_empty());
            for (ply, token) in sans.enumerate() {
                let m = SanPlus::from_ascii(token.as_bytes())
                    .ok()
                    .and_then(|san| san.san.to_move(&pos).ok())
                    .ok_or_else(|| ExploreError::IllegalMove {
                        token: token.to_owned(),
                        ply: ply + 1,
                        fen: Fen::from_position(&pos, EnPassantMode::Legal).to_string(),
                    })?;
                pos.play_unchecked(m);
                keys.push(position_key(&pos));
            }
            let name = index.classify(&keys).map(|found| found.name_id);
            (pos, name)
        }
        Target::Fen(text) => {
            let pos = position_of_fen(text)?;
            let name = index.lookup(position_key(&pos));
            (pos, name)
        }
    };
    let opening = name_id.and_then(OpeningLabel::of_id);
    Ok(Located { position, opening })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_with_numbers_reach_the_position_and_name_it() {
        let target = Target::Moves(vec!["1.e4".into(), "c5".into(), "2.".into(), "Nf3".into()]);
        let located = locate(&target).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            located.epd(),
            "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq -"
        );
        assert_eq!(
            located.opening,
            Some(OpeningLabel {
                eco: "B27",
                name: "Sicilian Defense"
            })
        );
    }

    #[test]
    fn the_start_is_found_without_moves_under_its_stored_key() {
        let located = locate(&Target::Moves(Vec::new())).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            located.epd(),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"
        );
        assert_eq!(located.opening, None);
        assert_eq!(
            located.stored_key(),
            openings::stored_key(position_key(&Chess::default()))
        );
    }

    #[test]
    fn an_illegal_move_names_its_ply() {
        let target = Target::Moves(vec!["e4".into(), "e5".into(), "Ke3".into()]);
        let error = locate(&target).err().map(|e| e.to_string());
        assert_eq!(
            error.as_deref(),
            Some(
                "\"Ke3\" at ply 3 is not a legal move in \
                 rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
            )
        );
    }

    #[test]
    fn a_fen_or_an_epd_gives_the_stored_key() {
        let key = |text: &str| stored_key_of_fen(text).map_err(|e| e.to_string());
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        assert_eq!(key(start), Ok(5060803636482931868));
        let e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -";
        assert_eq!(key(e4), Ok(-9062197578030825066));
        // The en-passant square of a FEN that could not take there.
        assert_eq!(key(&format!("{} 0 1", e4.replace(" -", " e3"))), key(e4));
        assert_eq!(
            key("8/8/8 w - -"),
            Err("not a legal position: \"8/8/8 w - -\" (invalid board part in fen)".to_owned())
        );
    }

    #[test]
    fn a_fen_is_named_only_by_its_own_position() {
        let fen = "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
        let located = locate(&Target::Fen(fen.into())).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(located.opening.map(|o| o.name), Some("Sicilian Defense"));
        assert!(matches!(
            locate(&Target::Fen("not a fen".into())),
            Err(ExploreError::BadFen { .. })
        ));
    }
}
