//! Reading, where a game leaves the archive: its moves walked through the
//! opening tree, each position after a move with the games that reached
//! it and moved on (all of them, and those of months before the game's),
//! the novelty (the first ply whose position no earlier game reached) and
//! the first ply where the earlier games become rare. What `pgnlake
//! novelty`, the server's `/novelty` and the game page's marks share.

use std::path::Path;

use serde::Serialize;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Position};

use super::explore::position::read_position;
use super::explore::{Bounds, Filters};
use super::keyed::KeyedFiles;
use super::source::Data;
use crate::error::ExploreError;
use crate::model::Month;
use crate::replay::steps::GameSteps;
use crate::replay::variant::VariantName;
use crate::stats::dimensions::OpeningPeriod;

/// What the walk compares the game with.
#[derive(Debug, Clone, Default)]
pub struct NoveltyOptions {
    /// The rows kept, as `explore`'s filters keep them.
    pub filters: Filters,
    /// Games of months before this one are the earlier games; None: the
    /// game's own month (and, for a game without one, every game kept).
    pub before: Option<Month>,
    /// A position reached by fewer earlier games than this is rare.
    pub rare: u64,
}

/// The default of [`NoveltyOptions::rare`].
pub const DEFAULT_RARE: u64 = 10;

/// One ply of the game within the tree's window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlyCount {
    /// 1 for the game's first move.
    pub ply: usize,
    pub san: String,
    pub uci: String,
    /// Games of the rows kept that reached the position after the move
    /// and played on from it (any month).
    pub games: u64,
    /// Those of them of a month before [`Novelty::before`].
    pub earlier: u64,
}

/// A game walked through the tree.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Novelty {
    /// The game's month (`YYYY-MM`) from its `UTCDate`, else its `Date`.
    pub month: Option<String>,
    /// Earlier games are those of months before this one (None: every
    /// game kept counts as earlier).
    pub before: Option<String>,
    /// The tree's window: positions up to `window - 1` plies have rows.
    pub window: usize,
    /// The first ply whose position no earlier game reached and played on
    /// from; None when every position within the window was reached.
    pub novelty_ply: Option<usize>,
    /// The move played at `novelty_ply`, in SAN.
    pub novelty_move: Option<String>,
    /// The first ply whose position fewer than `rare_below` earlier
    /// games reached.
    pub rare_ply: Option<usize>,
    pub rare_below: u64,
    /// The filters in force; absent when none.
    #[serde(skip_serializing_if = "Filters::is_empty")]
    pub filters: Filters,
    pub plies: Vec<PlyCount>,
}

/// Walks `game` through the tree of the import or lake at `dir`.
pub(crate) fn novelty(
    dir: &Path,
    game: &GameSteps,
    options: &NoveltyOptions,
    files: &KeyedFiles,
) -> Result<Novelty, ExploreError> {
    let data = Data::open(dir)?;
    novelty_in(&data, game, options, files)
}

/// [`novelty`] over data already open (the server's).
pub(crate) fn novelty_in(
    data: &Data,
    game: &GameSteps,
    options: &NoveltyOptions,
    files: &KeyedFiles,
) -> Result<Novelty, ExploreError> {
    if game.variant != VariantName::Standard || game.chess960 || game.start_fen != START_FEN {
        return Err(ExploreError::NotInTree {
            message: "the game does not start from the standard position in standard chess: \
                      the opening tree holds only those"
                .into(),
        });
    }
    let summaries = data.summaries();
    let period = summaries
        .first()
        .map_or(OpeningPeriod::Month, |s| s.opening_tree.period);
    let window = summaries
        .iter()
        .map(|s| s.opening_tree.plies)
        .max()
        .unwrap_or(0);
    let bounds = options.filters.bounds(period)?;
    let month = game_month(&game.tags);
    let before = options.before.or(month);
    let plies = walk(data, game, window, &bounds, before, files)?;
    let novelty = plies.iter().find(|p| p.earlier == 0);
    let rare = plies.iter().find(|p| p.earlier < options.rare);
    Ok(Novelty {
        month: month.map(|m| m.to_string()),
        before: before.map(|m| m.to_string()),
        window,
        novelty_ply: novelty.map(|p| p.ply),
        novelty_move: novelty.map(|p| p.san.clone()),
        rare_ply: rare.map(|p| p.ply),
        rare_below: options.rare,
        filters: options.filters.clone(),
        plies,
    })
}

/// The standard start as [`GameSteps::start_fen`] writes it.
const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Each ply's counts, for the positions the tree has rows of (after at
/// most `window - 1` plies).
fn walk(
    data: &Data,
    game: &GameSteps,
    window: usize,
    bounds: &Bounds,
    before: Option<Month>,
    files: &KeyedFiles,
) -> Result<Vec<PlyCount>, ExploreError> {
    let mut pos = Chess::default();
    let mut plies = Vec::new();
    for (index, step) in game.steps.iter().enumerate() {
        let ply = index + 1;
        if ply >= window {
            break;
        }
        let illegal = || ExploreError::IllegalMove {
            token: step.uci.clone(),
            ply,
            fen: step.fen.clone(),
        };
        let m = UciMove::from_ascii(step.uci.as_bytes())
            .ok()
            .and_then(|uci| uci.to_move(&pos).ok())
            .ok_or_else(illegal)?;
        pos.play_unchecked(m);
        let sums = read_position(data, &pos, bounds, files)?;
        let earlier = match before {
            Some(cutoff) => sums.by_month.range(..cutoff).map(|(_, c)| c.games).sum(),
            None => sums.games(),
        };
        plies.push(PlyCount {
            ply,
            san: step.san.clone(),
            uci: step.uci.clone(),
            games: sums.games(),
            earlier,
        });
    }
    Ok(plies)
}

/// A game's month as the import reads it: its `UTCDate`'s, else its
/// `Date`'s.
pub(crate) fn game_month(tags: &[(String, String)]) -> Option<Month> {
    let tag = |name: &str| {
        tags.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let (year, month) = crate::pgn::tags::date_year_and_month(tag("UTCDate"), tag("Date"))?;
    Month::new(year, month?)
}

impl Novelty {
    /// The walk as a table: one line per ply, the novelty and the first
    /// rare ply marked.
    pub fn to_table(&self) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let cutoff = self
            .before
            .as_ref()
            .map_or_else(|| "any month".to_owned(), |m| format!("before {m}"));
        let _ = writeln!(
            out,
            "game month: {}, earlier games: {cutoff}, window: {} plies",
            self.month.as_deref().unwrap_or("unknown"),
            self.window
        );
        let _ = writeln!(
            out,
            "{:>4}  {:<8} {:>10} {:>10}",
            "ply", "move", "games", "earlier"
        );
        for p in &self.plies {
            let mark = if Some(p.ply) == self.novelty_ply {
                "  novelty"
            } else if Some(p.ply) == self.rare_ply {
                "  rare"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "{:>4}  {:<8} {:>10} {:>10}{mark}",
                p.ply, p.san, p.games, p.earlier
            );
        }
        let _ = match (self.novelty_ply, &self.novelty_move) {
            (Some(ply), Some(san)) => writeln!(out, "novelty: ply {ply}, {san}"),
            _ => writeln!(out, "novelty: none within the window"),
        };
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn a_games_month_is_its_utc_dates_else_its_dates() {
        let m = |t: &str| t.parse::<Month>().ok();
        let both = tags(&[("Date", "2020.01.05"), ("UTCDate", "2020.02.01")]);
        assert_eq!(game_month(&both), m("2020-02"));
        assert_eq!(game_month(&tags(&[("Date", "1999.07.??")])), m("1999-07"));
        assert_eq!(game_month(&tags(&[("Date", "1999.??.??")])), None);
        assert_eq!(game_month(&[]), None);
    }
}
