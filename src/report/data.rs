//! Report, the numbers: what each chart of `pgnlake report` shows, read from
//! an import's aggregate tables and `summary.json` (never a scan of
//! `games.parquet`), so the report of millions of games takes seconds.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use polars::prelude::*;

use crate::model::Month;
use crate::read::explore::{Filters, GameCounts, MoveLine, Target, explore};
use crate::read::source::Data;
use crate::sink::columns::{ColumnError, Columns};
use crate::sink::schema::{self, Column, Table, endgames, material, opening_lines, results};
use crate::sink::summary::{SUMMARY_FILE, Summary};
use crate::stats::counts::Counts;

/// The run, from `summary.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunFacts {
    pub games_read: u64,
    pub accepted: u64,
    pub rejected: u64,
    pub balanced: bool,
    /// Accepted games `import --repair` mended (counted in `accepted`).
    pub repaired: u64,
    pub rejected_by_reason: Vec<(String, u64)>,
    pub result_checks: Vec<(String, u64)>,
    /// Each input and its games.
    pub inputs: Vec<(String, u64)>,
}

/// One endgame's games seen from the stronger side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endgame {
    pub signature: String,
    pub games: u64,
    pub stronger: u64,
    pub draws: u64,
    pub weaker: u64,
}

/// Everything the report draws.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReportData {
    pub run: Option<RunFacts>,
    /// Games per year and time class (years in order).
    pub games_by_year: BTreeMap<i32, BTreeMap<String, u64>>,
    /// Counted results by end state, most games first.
    pub by_end_state: Vec<(String, Counts)>,
    /// Counted results by rating difference bucket (white − black).
    pub by_rating_diff: BTreeMap<i32, Counts>,
    /// Counted results and draw reasons by time class.
    pub by_time_class: BTreeMap<String, (Counts, BTreeMap<String, u64>)>,
    /// The most played named openings: name, ECO, results.
    pub top_openings: Vec<(String, String, Counts)>,
    /// Named games per month and opening family (months in order).
    pub families_by_month: BTreeMap<Month, BTreeMap<String, u64>>,
    /// Counted results of named games by rating band (the lower bound of
    /// the two players' average rating's band).
    pub by_rating_band: BTreeMap<i32, Counts>,
    /// Moves of the opening tree at the start, after 1.e4 and after 1.d4.
    pub first_moves: Vec<(String, Vec<MoveLine>)>,
    /// Counted results by material difference at plies 20, 40, 60.
    pub material: BTreeMap<i32, BTreeMap<i32, Counts>>,
    /// The most common endgames, most games first.
    pub endgames: Vec<Endgame>,
}

/// How many openings and endgames the report lists.
pub(crate) const TOP_OPENINGS: usize = 20;
pub(crate) const TOP_ENDGAMES: usize = 15;
/// The checkpoints of the material chart.
pub(crate) const MATERIAL_PLIES: [i32; 3] = [20, 40, 60];

/// Why a table could not be read.
#[derive(Debug)]
pub struct TableError {
    pub path: PathBuf,
    pub message: String,
}

impl From<ColumnError> for TableError {
    fn from(e: ColumnError) -> TableError {
        TableError {
            path: e.path,
            message: e.message,
        }
    }
}

/// Reads the numbers of every chart from the import in `data`. A table
/// that is absent leaves its sections empty (they say so).
pub fn read(dir: &Path) -> Result<ReportData, TableError> {
    let data = &Data::open(dir).map_err(|e| TableError {
        path: match crate::lake::is_lake(dir) {
            true => dir.join(crate::lake::IMPORTS_DIR),
            false => dir.join(SUMMARY_FILE),
        },
        message: e.to_string(),
    })?;
    let mut report = ReportData {
        run: read_summaries(data),
        ..ReportData::default()
    };
    let path = |table: &Table| data.table_path(table);
    if let Some(frame) = table(data, &results::TABLE)? {
        add_results(Columns::new(&frame, &path(&results::TABLE)), &mut report)?;
    }
    if let Some(frame) = table(data, &opening_lines::TABLE)? {
        let at = path(&opening_lines::TABLE);
        let rows = || Columns::new(&frame, &at);
        report.top_openings = top_openings(rows())?;
        (report.families_by_month, report.by_rating_band) = families_and_bands(rows())?;
    }
    if let Some(frame) = table(data, &material::TABLE)? {
        report.material = material_rows(Columns::new(&frame, &path(&material::TABLE)))?;
    }
    if let Some(frame) = table(data, &endgames::TABLE)? {
        report.endgames = endgame_rows(Columns::new(&frame, &path(&endgames::TABLE)))?;
    }
    let openings = data.table_path(&schema::openings::TABLE);
    if !data.files(&schema::openings::TABLE).is_empty() {
        for (label, moves) in [
            ("start", &[][..]),
            ("1.e4", &["e4"][..]),
            ("1.d4", &["d4"][..]),
        ] {
            let target = Target::Moves(moves.iter().map(|m| (*m).to_owned()).collect());
            let explored = explore(
                dir,
                &target,
                &Filters::default(),
                GameCounts::default(),
                false,
            )
            .map_err(|e| TableError {
                path: openings.clone(),
                message: e.to_string(),
            })?;
            report.first_moves.push((label.to_owned(), explored.moves));
        }
    }
    Ok(report)
}

fn error(data: &Data, table: &Table) -> impl Fn(PolarsError) -> TableError {
    let path = data.table_path(table);
    move |e| TableError {
        path: path.clone(),
        message: e.to_string(),
    }
}

/// A table of `data` (in a lake, the rows of every import: the charts add
/// them up), or none when no import wrote it.
fn table(data: &Data, table: &Table) -> Result<Option<DataFrame>, TableError> {
    let scan = data.scan(table).map_err(|e| TableError {
        path: e.path,
        message: e.message,
    })?;
    scan.map(|frame| frame.collect().map_err(error(data, table)))
        .transpose()
}

/// The run's facts from the summaries (one, or a lake's, added up): none
/// when there is none, an error when one is not this version's.
fn read_summaries(data: &Data) -> Option<RunFacts> {
    let mut facts: Option<RunFacts> = None;
    for summary in data.summaries().iter().cloned() {
        let one = run_facts(summary);
        facts = Some(match facts {
            None => one,
            Some(all) => all.add(one),
        });
    }
    facts
}

fn run_facts(summary: Summary) -> RunFacts {
    RunFacts {
        games_read: summary.games_read,
        accepted: summary.accepted,
        rejected: summary.rejected,
        balanced: summary.balanced,
        repaired: summary.repaired,
        inputs: summary
            .inputs
            .into_iter()
            .map(|i| (i.path, i.games))
            .collect(),
        rejected_by_reason: by_count(summary.rejected_by_reason),
        result_checks: by_count(summary.result_checks),
    }
}

/// Counts by name, largest first (ties by name).
fn by_count(map: BTreeMap<String, u64>) -> Vec<(String, u64)> {
    let mut pairs: Vec<(String, u64)> = map.into_iter().collect();
    pairs.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    pairs
}

impl RunFacts {
    /// Two imports' facts as one's (a lake's imports).
    fn add(self, other: RunFacts) -> RunFacts {
        let merged = |a: Vec<(String, u64)>, b: Vec<(String, u64)>| {
            let mut map = BTreeMap::new();
            for (name, n) in a.into_iter().chain(b) {
                *map.entry(name).or_insert(0) += n;
            }
            by_count(map)
        };
        RunFacts {
            games_read: self.games_read + other.games_read,
            accepted: self.accepted + other.accepted,
            rejected: self.rejected + other.rejected,
            balanced: self.balanced && other.balanced,
            repaired: self.repaired + other.repaired,
            rejected_by_reason: merged(self.rejected_by_reason, other.rejected_by_reason),
            result_checks: merged(self.result_checks, other.result_checks),
            inputs: self.inputs.into_iter().chain(other.inputs).collect(),
        }
    }
}

/// The counts of each row: games and the three result columns.
fn counts(rows: Columns<'_>, columns: [Column; 4]) -> Result<Vec<Counts>, ColumnError> {
    let [games, white, draws, black] = columns.map(|column| rows.counts(column.name));
    let (games, white, draws, black) = (games?, white?, draws?, black?);
    Ok((0..rows.height())
        .map(|row| Counts {
            games: games[row],
            white_wins: white[row],
            draws: draws[row],
            black_wins: black[row],
        })
        .collect())
}

/// Games and results of `results`, `material` and `opening_lines` (the
/// same names in all three).
const RESULTS: [Column; 4] = [
    results::GAMES,
    results::WHITE_WINS,
    results::DRAWS,
    results::BLACK_WINS,
];

fn add_results(rows: Columns<'_>, report: &mut ReportData) -> Result<(), ColumnError> {
    let years = rows.ints(results::YEAR.name)?;
    let classes = rows.required_texts(results::TIME_CLASS.name)?;
    let buckets = rows.ints(results::RATING_DIFF_BUCKET.name)?;
    let end_states = rows.required_texts(results::END_STATE.name)?;
    let reasons = rows.texts(results::DRAW_REASON.name)?;
    let variants = rows.required_texts(results::VARIANT_NAME.name)?;
    let counted = counts(rows, RESULTS)?;
    let mut by_end_state: BTreeMap<String, Counts> = BTreeMap::new();
    for (row, counts) in counted.into_iter().enumerate() {
        let class = &classes[row];
        if let Some(year) = years[row] {
            *report
                .games_by_year
                .entry(year as i32)
                .or_default()
                .entry(class.clone())
                .or_default() += counts.games;
        }
        *by_end_state.entry(end_states[row].clone()).or_default() += counts;
        // Scores by rating and draw rates are standard chess's: variant
        // games have their own ratings and draw rules.
        if !standard_rules(&variants[row]) {
            continue;
        }
        if let Some(bucket) = buckets[row] {
            *report.by_rating_diff.entry(bucket as i32).or_default() += counts;
        }
        let (class_counts, class_reasons) = report.by_time_class.entry(class.clone()).or_default();
        *class_counts += counts;
        if let Some(reason) = &reasons[row]
            && counts.draws > 0
        {
            *class_reasons.entry(reason.clone()).or_default() += counts.draws;
        }
    }
    report.by_end_state = by_end_state.into_iter().collect();
    report
        .by_end_state
        .sort_by(|a, b| b.1.games.cmp(&a.1.games).then_with(|| a.0.cmp(&b.0)));
    Ok(())
}

/// Named games per month and family, and results per rating band.
type FamiliesAndBands = (
    BTreeMap<Month, BTreeMap<String, u64>>,
    BTreeMap<i32, Counts>,
);

fn families_and_bands(rows: Columns<'_>) -> Result<FamiliesAndBands, ColumnError> {
    let families = rows.required_texts(opening_lines::OPENING_FAMILY.name)?;
    // A month that is not a month's first day is a damaged table.
    let months = rows
        .ints(opening_lines::MONTH.name)?
        .into_iter()
        .map(|days| {
            days.map(|days| {
                i32::try_from(days)
                    .ok()
                    .and_then(Month::from_column)
                    .ok_or_else(|| rows.error(format!("month {days} is not a month's first day")))
            })
            .transpose()
        })
        .collect::<Result<Vec<_>, _>>()?;
    let bands = rows.ints(opening_lines::RATING_BAND.name)?;
    let counted = counts(rows, RESULTS)?;
    let (mut by_month, mut by_band): FamiliesAndBands = Default::default();
    for (row, counts) in counted.into_iter().enumerate() {
        if let Some(month) = months[row] {
            *by_month
                .entry(month)
                .or_default()
                .entry(families[row].clone())
                .or_default() += counts.games;
        }
        if let Some(band) = bands[row].and_then(|b| i32::try_from(b).ok()) {
            *by_band.entry(band).or_default() += counts;
        }
    }
    Ok((by_month, by_band))
}

fn top_openings(rows: Columns<'_>) -> Result<Vec<(String, String, Counts)>, ColumnError> {
    let names = rows.required_texts(opening_lines::OPENING_NAME.name)?;
    let ecos = rows.required_texts(opening_lines::ECO.name)?;
    let counted = counts(rows, RESULTS)?;
    // Summed over the rows of each opening's speeds, rating bands and months.
    let mut summed: BTreeMap<(String, String), Counts> = BTreeMap::new();
    for ((name, eco), counts) in names.into_iter().zip(ecos).zip(counted) {
        *summed.entry((name, eco)).or_default() += counts;
    }
    let mut lines: Vec<(String, String, Counts)> = summed
        .into_iter()
        .map(|((name, eco), counts)| (name, eco, counts))
        .collect();
    lines.sort_by(|a, b| b.2.games.cmp(&a.2.games).then_with(|| a.0.cmp(&b.0)));
    lines.truncate(TOP_OPENINGS);
    Ok(lines)
}

fn material_rows(rows: Columns<'_>) -> Result<BTreeMap<i32, BTreeMap<i32, Counts>>, ColumnError> {
    let plies = rows.required_ints(material::CHECKPOINT_PLY.name)?;
    let diffs = rows.required_ints(material::MATERIAL_DIFF.name)?;
    let mut out: BTreeMap<i32, BTreeMap<i32, Counts>> = BTreeMap::new();
    for ((ply, diff), counts) in plies.into_iter().zip(diffs).zip(counts(rows, RESULTS)?) {
        let ply = ply as i32;
        if MATERIAL_PLIES.contains(&ply) {
            *out.entry(ply).or_default().entry(diff as i32).or_default() += counts;
        }
    }
    Ok(out)
}

/// Standard chess or Chess960 (`variant_name`).
fn standard_rules(variant: &str) -> bool {
    matches!(variant, "standard" | "chess960")
}

/// The endgames of standard chess and Chess960, added up by signature.
fn endgame_rows(rows: Columns<'_>) -> Result<Vec<Endgame>, ColumnError> {
    let signatures = rows.required_texts(endgames::ENDGAME_SIGNATURE.name)?;
    let variants = rows.required_texts(endgames::VARIANT_NAME.name)?;
    let counted = counts(
        rows,
        [
            endgames::GAMES,
            endgames::STRONGER_SIDE_WINS,
            endgames::DRAWS,
            endgames::WEAKER_SIDE_WINS,
        ],
    )?;
    let mut by_signature: BTreeMap<String, Counts> = BTreeMap::new();
    for ((signature, variant), c) in signatures.into_iter().zip(variants).zip(counted) {
        if standard_rules(&variant) {
            *by_signature.entry(signature).or_default() += c;
        }
    }
    let mut endgames: Vec<Endgame> = by_signature
        .into_iter()
        .map(|(signature, c)| Endgame {
            signature,
            games: c.games,
            stronger: c.white_wins,
            draws: c.draws,
            weaker: c.black_wins,
        })
        .collect();
    endgames.sort_by(|a, b| {
        b.games
            .cmp(&a.games)
            .then_with(|| a.signature.cmp(&b.signature))
    });
    endgames.truncate(TOP_ENDGAMES);
    Ok(endgames)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_and_draw_rates_leave_out_unfinished_games() {
        let counts = Counts {
            games: 10,
            white_wins: 4,
            draws: 2,
            black_wins: 2,
        };
        assert_eq!(counts.white_score(), Some(0.625));
        assert_eq!(counts.draw_rate(), Some(0.25));
        assert_eq!(Counts::default().white_score(), None);
    }

    #[test]
    fn results_rows_are_summed_per_chart() {
        // The atomic row counts in the end states only.
        let frame = df!(
            "variant_name" => ["standard", "standard", "chess960", "atomic"],
            "year" => [Some(2020i32), Some(2020), None, None],
            "time_class" => [Some("blitz"), Some("classical"), Some("blitz"), Some("blitz")],
            "rating_diff_bucket" => [Some(50i32), Some(50), None, Some(50)],
            "end_state" => ["checkmate", "none", "none", "variant_loss"],
            "draw_reason" => [None, Some("agreement"), Some("repetition"), None],
            "games" => [3i64, 4, 5, 6],
            "white_wins" => [2i64, 1, 0, 6],
            "draws" => [0i64, 2, 5, 0],
            "black_wins" => [1i64, 1, 0, 0],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let mut report = ReportData::default();
        let rows = Columns::new(&frame, Path::new("results.parquet"));
        assert_eq!(add_results(rows, &mut report), Ok(()));
        let year: Vec<(&str, u64)> = report.games_by_year[&2020]
            .iter()
            .map(|(k, v)| (k.as_str(), *v))
            .collect();
        assert_eq!(year, [("blitz", 3), ("classical", 4)]);
        assert_eq!(
            report
                .by_end_state
                .first()
                .map(|e| (e.0.as_str(), e.1.games)),
            Some(("none", 9))
        );
        assert_eq!(report.by_end_state.len(), 3);
        assert_eq!(report.by_rating_diff[&50].white_score(), Some(4.0 / 7.0));
        let (blitz, reasons) = &report.by_time_class["blitz"];
        assert_eq!((blitz.games, blitz.draws), (8, 5));
        assert_eq!(reasons.get("repetition"), Some(&5));
    }

    #[test]
    fn a_negative_count_stops_the_report_naming_its_table_and_column() {
        let frame = df!(
            "checkpoint_ply" => [20i32],
            "material_diff" => [1i32],
            "games" => [3i64],
            "white_wins" => [1i64],
            "draws" => [-1i64],
            "black_wins" => [1i64],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let rows = Columns::new(&frame, Path::new("material.parquet"));
        let error = material_rows(rows).err().map(|e| e.to_string());
        assert_eq!(
            error.as_deref(),
            Some("material.parquet: column \"draws\" holds a negative count (-1)")
        );
    }
}
