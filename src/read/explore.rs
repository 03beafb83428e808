//! Explorer: one position of an import's opening tree, read back from
//! `openings.parquet`, as an opening explorer shows it: the moves played
//! there with their games, results, ratings and last year.

use std::fmt::Write as _;
use std::path::Path;

use polars::prelude::*;
use serde::Serialize;
use shakmaty::fen::{Epd, Fen};
use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

pub use crate::error::ExploreError;
use crate::replay::openings::{self, position_key, strip_move_number};
use crate::sink::schema::{self, openings as table};
use crate::sink::summary::{SUMMARY_FILE, Summary};

/// The position to explore.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// SAN moves from the start position (move numbers allowed).
    Moves(Vec<String>),
    /// A FEN or EPD.
    Fen(String),
}

/// One move played from the position.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MoveLine {
    pub san: String,
    pub uci: String,
    pub games: u64,
    pub white_wins: u64,
    pub draws: u64,
    pub black_wins: u64,
    pub unfinished: u64,
    pub white_percent: f64,
    pub draw_percent: f64,
    pub black_percent: f64,
    pub average_white_elo: Option<f64>,
    pub average_black_elo: Option<f64>,
    pub last_year: Option<i32>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct OpeningLabel {
    pub eco: &'static str,
    pub name: &'static str,
}

/// The explorer view of one position.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Explored {
    pub epd: String,
    /// As stored in the table (signed; see `openings::stored_key`).
    pub position_key: i64,
    pub opening: Option<OpeningLabel>,
    pub games: u64,
    /// Most played first; ties by SAN.
    pub moves: Vec<MoveLine>,
    /// The import's `--opening-min-games` when above 1: moves played in
    /// fewer games are not in the table, so `moves` and `games` may be
    /// incomplete.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opening_min_games: Option<u64>,
}

/// The position of `target`, with its opening name: for moves, the deepest
/// named position along them; for a FEN, the position's own name.
pub(crate) fn locate(target: &Target) -> Result<(Chess, Option<OpeningLabel>), ExploreError> {
    let index = openings::index();
    let (pos, name_id) = match target {
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
            let bad = |message: String| ExploreError::BadFen {
                fen: text.clone(),
                message,
            };
            let pos: Chess = Fen::from_ascii(text.trim().as_bytes())
                .map_err(|e| bad(e.to_string()))?
                .into_position(CastlingMode::Standard)
                .map_err(|e| bad(e.to_string()))?;
            let name = index.lookup(position_key(&pos));
            (pos, name)
        }
    };
    let opening = name_id.and_then(|id| index.name(id)).map(|n| OpeningLabel {
        eco: n.eco,
        name: n.name,
    });
    Ok((pos, opening))
}

/// Reads the moves of `target` from `DIR/openings.parquet`.
pub(crate) fn explore(data: &Path, target: &Target) -> Result<Explored, ExploreError> {
    let (pos, opening) = locate(target)?;
    let key = openings::stored_key(position_key(&pos));
    let path = data.join(table::TABLE.file_name());
    if !path.is_file() {
        return Err(ExploreError::MissingTable { path });
    }
    let table_error = |e: PolarsError| ExploreError::Table {
        path: path.clone(),
        message: e.to_string(),
    };
    let source = PlRefPath::try_from_path(&path).map_err(table_error)?;
    let frame = LazyFrame::scan_parquet(source, ScanArgsParquet::default())
        .map_err(table_error)?
        .filter(col(table::POSITION_KEY.name).eq(lit(key)))
        .collect()
        .map_err(table_error)?;
    let mut moves = move_lines(&frame).map_err(table_error)?;
    moves.sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.san.cmp(&b.san)));
    Ok(Explored {
        epd: Epd::from_position(&pos, EnPassantMode::Legal).to_string(),
        position_key: key,
        opening,
        games: moves.iter().map(|m| m.games).sum(),
        moves,
        opening_min_games: opening_min_games(data)?,
    })
}

/// `--opening-min-games` of the import in `data` when above 1, from its
/// `summary.json` (absent: not known, no note; another version's: refused).
fn opening_min_games(data: &Path) -> Result<Option<u64>, ExploreError> {
    match Summary::read(&data.join(SUMMARY_FILE)) {
        Ok(summary) => Ok(Some(u64::from(summary.opening_tree.min_games)).filter(|&n| n > 1)),
        Err(e) if e.is_missing() => Ok(None),
        Err(e) => Err(e.into()),
    }
}

fn move_lines(frame: &DataFrame) -> PolarsResult<Vec<MoveLine>> {
    let text = |column: schema::Column| -> PolarsResult<Vec<String>> {
        let values = frame.column(column.name)?.str()?;
        Ok((0..values.len())
            .map(|i| values.get(i).unwrap_or_default().to_owned())
            .collect())
    };
    let count = |column: schema::Column| -> PolarsResult<Vec<u64>> {
        let values = frame.column(column.name)?.i64()?;
        Ok((0..values.len())
            .map(|i| u64::try_from(values.get(i).unwrap_or_default()).unwrap_or_default())
            .collect())
    };
    let (san, uci) = (text(table::MOVE_SAN)?, text(table::MOVE_UCI)?);
    let (games, white, draws, black, unfinished) = (
        count(table::GAMES)?,
        count(table::WHITE_WINS)?,
        count(table::DRAWS)?,
        count(table::BLACK_WINS)?,
        count(table::UNFINISHED)?,
    );
    let (we_sum, we_n, be_sum, be_n) = (
        count(table::WHITE_ELO_SUM)?,
        count(table::WHITE_ELO_COUNT)?,
        count(table::BLACK_ELO_SUM)?,
        count(table::BLACK_ELO_COUNT)?,
    );
    let years = frame.column(table::LAST_YEAR.name)?.i32()?;
    let last_year: Vec<Option<i32>> = (0..years.len()).map(|i| years.get(i)).collect();
    let percent = |part: u64, whole: u64| {
        if whole == 0 {
            0.0
        } else {
            100.0 * part as f64 / whole as f64
        }
    };
    let average = |sum: u64, n: u64| (n > 0).then(|| sum as f64 / n as f64);
    Ok((0..frame.height())
        .map(|i| {
            let at = |v: &[u64]| v.get(i).copied().unwrap_or_default();
            let g = at(&games);
            MoveLine {
                san: san.get(i).cloned().unwrap_or_default(),
                uci: uci.get(i).cloned().unwrap_or_default(),
                games: g,
                white_wins: at(&white),
                draws: at(&draws),
                black_wins: at(&black),
                unfinished: at(&unfinished),
                white_percent: percent(at(&white), g),
                draw_percent: percent(at(&draws), g),
                black_percent: percent(at(&black), g),
                average_white_elo: average(at(&we_sum), at(&we_n)),
                average_black_elo: average(at(&be_sum), at(&be_n)),
                last_year: last_year.get(i).copied().flatten(),
            }
        })
        .collect())
}

impl Explored {
    /// The aligned text view.
    pub(crate) fn to_table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "position  {}", self.epd);
        let _ = match &self.opening {
            Some(o) => writeln!(out, "opening   {} {}", o.eco, o.name),
            None => writeln!(out, "opening   (not in the opening table)"),
        };
        let _ = writeln!(out, "games     {}", self.games);
        if let Some(n) = self.opening_min_games {
            let _ = writeln!(
                out,
                "note      moves played in fewer than {n} games are left out \
                 (--opening-min-games {n}): the moves and games may be incomplete"
            );
        }
        if self.moves.is_empty() {
            let _ = writeln!(
                out,
                "\nno game of this import reached this position within its opening plies"
            );
            return out;
        }
        let header = [
            "move",
            "games",
            "share",
            "white",
            "draw",
            "black",
            "avg white",
            "avg black",
            "last",
        ];
        let rows: Vec<[String; 9]> = self.moves.iter().map(|m| self.row_cells(m)).collect();
        let widths: Vec<usize> = (0..header.len())
            .map(|c| {
                rows.iter()
                    .filter_map(|r| r.get(c))
                    .map(|cell| cell.chars().count())
                    .chain(header.get(c).map(|h| h.len()))
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        out.push('\n');
        let line = |cells: &mut dyn Iterator<Item = &str>| {
            let mut text = String::new();
            for (c, cell) in cells.enumerate() {
                let width = widths.get(c).copied().unwrap_or(0);
                if c == 0 {
                    let _ = write!(text, "{cell:<width$}");
                } else {
                    let _ = write!(text, "  {cell:>width$}");
                }
            }
            text.trim_end().to_owned() + "\n"
        };
        out.push_str(&line(&mut header.iter().copied()));
        for row in &rows {
            out.push_str(&line(&mut row.iter().map(String::as_str)));
        }
        out
    }

    fn row_cells(&self, m: &MoveLine) -> [String; 9] {
        let share = if self.games == 0 {
            0.0
        } else {
            100.0 * m.games as f64 / self.games as f64
        };
        let elo = |v: Option<f64>| v.map_or("-".to_owned(), |e| format!("{e:.0}"));
        [
            m.san.clone(),
            m.games.to_string(),
            format!("{share:.1}%"),
            format!("{:.1}%", m.white_percent),
            format!("{:.1}%", m.draw_percent),
            format!("{:.1}%", m.black_percent),
            elo(m.average_white_elo),
            elo(m.average_black_elo),
            m.last_year.map_or("-".to_owned(), |y| y.to_string()),
        ]
    }

    pub(crate) fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_with_numbers_reach_the_position_and_name_it() {
        let target = Target::Moves(vec!["1.e4".into(), "c5".into(), "2.".into(), "Nf3".into()]);
        let (pos, opening) = locate(&target).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            Epd::from_position(&pos, EnPassantMode::Legal).to_string(),
            "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq -"
        );
        assert_eq!(
            opening,
            Some(OpeningLabel {
                eco: "B27",
                name: "Sicilian Defense"
            })
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
    fn a_fen_is_named_only_by_its_own_position() {
        let fen = "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
        let (_, opening) = locate(&Target::Fen(fen.into())).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(opening.map(|o| o.name), Some("Sicilian Defense"));
        assert!(matches!(
            locate(&Target::Fen("not a fen".into())),
            Err(ExploreError::BadFen { .. })
        ));
    }
}
