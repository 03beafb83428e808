//! Explorer, rendering: an explored position as `explore` prints it, an
//! aligned table for people (`--format table`) or JSON for programs.

use std::fmt::Write as _;

use super::{Explored, MoveLine, TopGame};

/// The table's columns.
const HEADER: [&str; 9] = [
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

impl Explored {
    /// The aligned text view.
    pub(crate) fn to_table(&self) -> String {
        let mut out = String::new();
        self.write_header(&mut out);
        if self.moves.is_empty() {
            let _ = match self.position_games {
                Some(all) if all > 0 => writeln!(
                    out,
                    "\nnone of the {all} games of this position passes the filters"
                ),
                _ => writeln!(
                    out,
                    "\nno game of this import reached this position within its opening plies"
                ),
            };
            return out;
        }
        let rows: Vec<[String; 9]> = self.moves.iter().map(|m| self.row_cells(m)).collect();
        // Each column as wide as its widest cell, the header's included.
        let widths: [usize; 9] = std::array::from_fn(|c| {
            rows.iter()
                .map(|row| row[c].chars().count())
                .fold(HEADER[c].len(), usize::max)
        });
        let line = |cells: &mut dyn Iterator<Item = &str>| {
            let mut text = String::new();
            for (c, (cell, width)) in cells.zip(widths).enumerate() {
                if c == 0 {
                    let _ = write!(text, "{cell:<width$}");
                } else {
                    let _ = write!(text, "  {cell:>width$}");
                }
            }
            text.trim_end().to_owned() + "\n"
        };
        out.push('\n');
        out.push_str(&line(&mut HEADER.iter().copied()));
        for row in &rows {
            out.push_str(&line(&mut row.iter().map(String::as_str)));
        }
        self.write_top_games(&mut out);
        self.write_recent_games(&mut out);
        self.write_history(&mut out);
        out
    }

    /// The lines above the moves: the position, its opening, the filters,
    /// the games and the notes.
    fn write_header(&self, out: &mut String) {
        let _ = writeln!(out, "position  {}", self.epd);
        let _ = match &self.opening {
            Some(o) => writeln!(out, "opening   {} {}", o.eco, o.name),
            None => writeln!(out, "opening   (not in the opening table)"),
        };
        if !self.filters.is_empty() {
            let _ = writeln!(out, "filters   {}", self.filters.describe());
        }
        match self.position_games {
            Some(all) => {
                let share = if all == 0 {
                    0.0
                } else {
                    100.0 * self.games as f64 / all as f64
                };
                let _ = writeln!(
                    out,
                    "games     {} of {all} ({share:.1}% left by the filters)",
                    self.games
                );
            }
            None => {
                let _ = writeln!(out, "games     {}", self.games);
            }
        }
        if let Some(n) = self.opening_min_games {
            let _ = writeln!(
                out,
                "note      rows (a move at one speed, rating band and month) played in \
                 fewer than {n} games are left out (--opening-min-games {n}): the moves \
                 and games may be incomplete"
            );
        }
    }

    /// `--games`: each move's games under its SAN.
    fn write_top_games(&self, out: &mut String) {
        for m in &self.moves {
            let Some(games) = &m.top_games else { continue };
            let _ = writeln!(out, "\ntop games with {}", m.san);
            if games.is_empty() {
                let _ = writeln!(out, "  (none)");
            }
            for game in games {
                let _ = writeln!(out, "  {}", game_line(game));
            }
        }
    }

    /// `--recent`: the position's latest games, each after its move.
    fn write_recent_games(&self, out: &mut String) {
        let Some(games) = &self.recent_games else {
            return;
        };
        let _ = writeln!(out, "\nrecent games");
        if games.is_empty() {
            let _ = writeln!(out, "  (none)");
        }
        let width = games.iter().map(|g| g.san.chars().count()).max();
        for recent in games {
            let san = &recent.san;
            let width = width.unwrap_or(0);
            let _ = writeln!(out, "  {san:<width$}  {}", game_line(&recent.game));
        }
    }

    /// `--history`: a line a month, a column a move (its games and share
    /// of the position's that month), then each move's first and last
    /// month.
    fn write_history(&self, out: &mut String) {
        if !self.history {
            return;
        }
        let moves: Vec<(&str, &super::MoveHistory)> = self
            .moves
            .iter()
            .filter_map(|m| Some((m.san.as_str(), m.history.as_ref()?)))
            .collect();
        let _ = writeln!(
            out,
            "\nhistory (games a month with games, share of the position's)"
        );
        // Every move's history runs over the same months.
        let Some((_, longest)) = moves.iter().max_by_key(|(_, h)| h.months.len()) else {
            let _ = writeln!(out, "  (no game with a month)");
            return;
        };
        let mut rows: Vec<Vec<String>> = vec![
            std::iter::once("month".to_owned())
                .chain(moves.iter().map(|(san, _)| (*san).to_owned()))
                .collect(),
        ];
        for (i, month) in longest.months.iter().enumerate() {
            // The months without a game of the position are left out here
            // (JSON keeps them, for charts on a continuous axis).
            if moves
                .iter()
                .all(|(_, h)| h.months.get(i).is_none_or(|c| c.games == 0))
            {
                continue;
            }
            let mut row = vec![month.month.clone()];
            for (_, h) in &moves {
                row.push(h.months.get(i).map_or_else(
                    || "-".to_owned(),
                    |c| format!("{} ({:.1}%)", c.games, c.share),
                ));
            }
            rows.push(row);
        }
        for (label, of) in [
            (
                "first",
                (|h: &super::MoveHistory| h.first_month.clone()) as fn(&_) -> String,
            ),
            ("last", |h: &super::MoveHistory| h.last_month.clone()),
            ("first game", |h: &super::MoveHistory| {
                h.first_game.as_ref().map_or_else(
                    || "-".to_owned(),
                    |g| match &g.import {
                        Some(import) => format!("{import}#{}", g.game_id),
                        None => format!("#{}", g.game_id),
                    },
                )
            }),
        ] {
            rows.push(
                std::iter::once(label.to_owned())
                    .chain(moves.iter().map(|(_, h)| of(h)))
                    .collect(),
            );
        }
        let columns = rows.first().map_or(0, Vec::len);
        let widths: Vec<usize> = (0..columns)
            .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
            .collect();
        for row in &rows {
            let mut text = String::new();
            for (c, (cell, width)) in row.iter().zip(&widths).enumerate() {
                let width = *width;
                if c == 0 {
                    let _ = write!(text, "  {cell:<width$}");
                } else {
                    let _ = write!(text, "  {cell:>width$}");
                }
            }
            let _ = writeln!(out, "{}", text.trim_end());
        }
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

    /// The JSON view (pretty-printed).
    pub(crate) fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string_pretty(self)
    }
}

/// A listed game on one line: id, players with ratings, result, date.
fn game_line(game: &TopGame) -> String {
    let player = |name: &Option<String>, elo: Option<i32>| {
        let name = name.as_deref().unwrap_or("?");
        match elo {
            Some(elo) => format!("{name} ({elo})"),
            None => name.to_owned(),
        }
    };
    let id = match &game.import {
        Some(import) => format!("{import}:{}", game.game_id),
        None => game.game_id.to_string(),
    };
    format!(
        "{id:>8}  {} - {}  {}  {}",
        player(&game.white, game.white_elo),
        player(&game.black, game.black_elo),
        game.result.as_deref().unwrap_or("*"),
        game.date.as_deref().unwrap_or("????.??.??"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::explore::filters::Filters;

    fn explored(moves: Vec<MoveLine>) -> Explored {
        Explored {
            epd: "8/8/8/8/8/8/8/8 w - -".into(),
            position_key: 0,
            opening: None,
            games: moves.iter().map(|m| m.games).sum(),
            filters: Filters::default(),
            position_games: None,
            moves,
            opening_min_games: None,
            recent_games: None,
            history: false,
        }
    }

    fn line(san: &str, games: u64, last_year: Option<i32>) -> MoveLine {
        MoveLine {
            san: san.into(),
            uci: san.into(),
            games,
            white_wins: games,
            draws: 0,
            black_wins: 0,
            unfinished: 0,
            white_percent: 100.0,
            draw_percent: 0.0,
            black_percent: 0.0,
            average_white_elo: Some(2000.4),
            average_black_elo: None,
            last_year,
            top_games: None,
            game: None,
            history: None,
        }
    }

    #[test]
    fn columns_are_as_wide_as_their_widest_cell() {
        let table = explored(vec![line("Nxe4", 12345, Some(2020)), line("a3", 1, None)]).to_table();
        let expected = "\
position  8/8/8/8/8/8/8/8 w - -
opening   (not in the opening table)
games     12346

move  games   share   white  draw  black  avg white  avg black  last
Nxe4  12345  100.0%  100.0%  0.0%   0.0%       2000          -  2020
a3        1    0.0%  100.0%  0.0%   0.0%       2000          -     -
";
        assert_eq!(table, expected);
    }

    #[test]
    fn a_position_without_moves_says_why() {
        let table = explored(Vec::new()).to_table();
        assert!(table.ends_with(
            "\nno game of this import reached this position within its opening plies\n"
        ));
        let json = explored(Vec::new())
            .to_json()
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(json.contains("\"moves\": []"), "{json}");
        assert!(!json.contains("filters"), "{json}");
    }
}
