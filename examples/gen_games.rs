//! Benchmark input: N random legal games as lichess-like PGN, deterministic
//! for (N, seed) whatever the thread count.
//!
//! `cargo run --release --example gen_games -- N [--seed S] [-o FILE]` writes
//! to FILE (or stdout). Every game starts from the standard position and plays
//! uniformly random legal moves (shakmaty) up to a target length drawn
//! uniformly in 20..=120 plies, stopping early at checkmate, stalemate or
//! insufficient material (about 2 % of games end so): 69 plies on average.
//! Its tags (Event … Termination, in lichess's order) are random but
//! plausible; the result follows the final position when the game ended on
//! the board, else is drawn at random (47 % `1-0`, 43 % `0-1`, 10 %
//! `1/2-1/2`).
//!
//! With `--lichess`, games as a lichess month exports them, for the
//! throughput benchmark (`benches/throughput.sh`): the six speeds in
//! lichess's proportions (correspondence without clocks), dates and times in
//! one month (`--month YYYY.MM`, default 2025.05), ratings, rating changes,
//! titles now and then, `ECO` and `Opening` of the deepest named position,
//! a `{ [%clk 0:02:59] }` comment after every move and `[%eval 0.17]` in it
//! for the 15 % of games that were analysed, the movetext on one line. Its
//! openings repeat as real ones do: the first plies walk the lichess opening
//! table (`data/openings/`), each move drawn by how many named lines go
//! through it, leaving the book with probability 1/8 a ply; the rest is
//! random, so positions become unique after the book, as on lichess.
//!
//! Each game has its own PRNG (splitmix64) seeded from (seed, game index), so
//! the output does not depend on scheduling: chunks of games are generated in
//! parallel with rayon and written in order through one buffered writer.
//! `benches/opening-tree.sh` and `benches/throughput.sh` use it.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufWriter, Write};

use rayon::prelude::*;
use shakmaty::san::{San, SanPlus};
use shakmaty::{Chess, Color, Position};

/// Games generated in parallel before being written out, in order.
const CHUNK: u64 = 4096;
/// Distinct player names (`player0` … `player3999`; `--players N` for
/// another number, as `benches/serve.sh` asks a player of 5,000 games).
static PLAYERS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(4000);

fn players() -> u64 {
    PLAYERS.load(std::sync::atomic::Ordering::Relaxed)
}
const MIN_PLIES: u64 = 20;
const MAX_PLIES: u64 = 120;
const LINE_WIDTH: usize = 80;
/// Time controls, with the lichess speed class of each (base + 40 × increment).
const TIME_CONTROLS: [(&str, &str); 9] = [
    ("60+0", "Bullet"),
    ("180+0", "Blitz"),
    ("180+2", "Blitz"),
    ("300+0", "Blitz"),
    ("300+3", "Blitz"),
    ("600+0", "Rapid"),
    ("600+5", "Rapid"),
    ("900+10", "Rapid"),
    ("1800+0", "Classical"),
];
const SITE_CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/// splitmix64: tiny, fast, and good enough for benchmark data.
struct Rng(u64);

impl Rng {
    fn new(seed: u64, index: u64) -> Rng {
        let mut base = Rng(seed);
        let mixed = base.next_u64();
        Rng(mixed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03))
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`), by multiply-shift.
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Roughly normal (Irwin–Hall: twelve uniforms), exact arithmetic only.
    fn normal(&mut self, mean: f64, sd: f64) -> f64 {
        let sum: f64 = (0..12).map(|_| self.unit()).sum();
        mean + sd * (sum - 6.0)
    }
}

fn days_in_month(year: u64, month: u64) -> u64 {
    match month {
        // Years 2013–2025: no century year to except.
        2 if year.is_multiple_of(4) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn elo(rng: &mut Rng) -> i64 {
    rng.normal(1500.0, 350.0).round().clamp(600.0, 3000.0) as i64
}

/// Plays uniformly random legal moves from `pos` until `sans` holds
/// `target` plies or the game ends on the board; the result when it did.
fn play_random(
    rng: &mut Rng,
    pos: &mut Chess,
    sans: &mut Vec<SanPlus>,
    target: u64,
) -> Option<&'static str> {
    loop {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return Some(if pos.is_check() {
                match pos.turn() {
                    Color::White => "0-1",
                    Color::Black => "1-0",
                }
            } else {
                "1/2-1/2"
            });
        }
        if pos.is_insufficient_material() {
            return Some("1/2-1/2");
        }
        if sans.len() as u64 >= target {
            return None;
        }
        let m = moves[rng.below(moves.len() as u64) as usize];
        sans.push(SanPlus::from_move_and_play_unchecked(pos, m));
    }
}

/// The result of a game that did not end on the board: 47 % `1-0`, 43 %
/// `0-1`, 10 % `1/2-1/2`.
fn random_result(rng: &mut Rng) -> &'static str {
    match rng.below(100) {
        0..47 => "1-0",
        47..90 => "0-1",
        _ => "1/2-1/2",
    }
}

/// Elo-like rating changes of White and Black: 20 × (score − expected
/// score), at least 1 on a decisive game.
fn rating_diffs(white_elo: i64, black_elo: i64, result: &str) -> (i64, i64) {
    let expected = 1.0 / (1.0 + 10f64.powf((black_elo - white_elo) as f64 / 400.0));
    let score = match result {
        "1-0" => 1.0,
        "0-1" => 0.0,
        _ => 0.5,
    };
    let mut white_diff = (20.0 * (score - expected)).round() as i64;
    if white_diff == 0 && score != 0.5 {
        white_diff = if score > 0.5 { 1 } else { -1 };
    }
    (white_diff, -white_diff)
}

fn lichess_id(rng: &mut Rng) -> String {
    (0..8)
        .map(|_| char::from(SITE_CHARS[rng.below(SITE_CHARS.len() as u64) as usize]))
        .collect()
}

/// One game's PGN text, ending with a blank line.
fn game(seed: u64, index: u64) -> String {
    let mut rng = Rng::new(seed, index);

    // Movetext first: the result depends on how the game ended.
    let target = rng.range(MIN_PLIES, MAX_PLIES);
    let mut pos = Chess::default();
    let mut sans: Vec<SanPlus> = Vec::with_capacity(target as usize);
    let ended = play_random(&mut rng, &mut pos, &mut sans, target);
    let result = ended.unwrap_or_else(|| random_result(&mut rng));
    let termination = if ended.is_none() && result != "1/2-1/2" && rng.below(100) < 30 {
        "Time forfeit"
    } else {
        "Normal"
    };

    let (time_control, speed) = TIME_CONTROLS[rng.below(TIME_CONTROLS.len() as u64) as usize];
    let site = lichess_id(&mut rng);
    let year = rng.range(2013, 2025);
    let month = rng.range(1, 12);
    let day = rng.range(1, days_in_month(year, month));
    let date = format!("{year}.{month:02}.{day:02}");
    let time = format!(
        "{:02}:{:02}:{:02}",
        rng.below(24),
        rng.below(60),
        rng.below(60)
    );
    let white = rng.below(players());
    let black = (white + rng.range(1, players() - 1)) % players();
    let (white_elo, black_elo) = (elo(&mut rng), elo(&mut rng));
    let (white_diff, black_diff) = rating_diffs(white_elo, black_elo, result);

    let mut out = String::with_capacity(400 + 6 * sans.len());
    let tags: [(&str, String); 15] = [
        ("Event", format!("Rated {speed} game")),
        ("Site", format!("https://lichess.org/{site}")),
        ("Date", date.clone()),
        ("Round", "-".to_owned()),
        ("White", format!("player{white}")),
        ("Black", format!("player{black}")),
        ("Result", result.to_owned()),
        ("UTCDate", date),
        ("UTCTime", time),
        ("WhiteElo", white_elo.to_string()),
        ("BlackElo", black_elo.to_string()),
        ("WhiteRatingDiff", format!("{white_diff:+}")),
        ("BlackRatingDiff", format!("{black_diff:+}")),
        ("TimeControl", time_control.to_owned()),
        ("Termination", termination.to_owned()),
    ];
    for (name, value) in &tags {
        let _ = writeln!(out, "[{name} \"{value}\"]");
    }
    out.push('\n');

    let mut line_len = 0;
    let mut token = String::new();
    let mut push = |out: &mut String, token: &str| {
        if line_len > 0 && line_len + 1 + token.len() > LINE_WIDTH {
            out.push('\n');
            line_len = 0;
        }
        if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        out.push_str(token);
        line_len += token.len();
    };
    for (ply, san) in sans.iter().enumerate() {
        token.clear();
        if ply % 2 == 0 {
            let _ = write!(token, "{}. ", ply / 2 + 1);
        }
        let _ = write!(token, "{san}");
        push(&mut out, &token);
    }
    push(&mut out, result);
    out.push_str("\n\n");
    out
}

/// The lichess opening table (`data/openings/`, CC0), as a tree of moves.
const OPENING_TABLES: [&str; 5] = [
    include_str!("../data/openings/a.tsv"),
    include_str!("../data/openings/b.tsv"),
    include_str!("../data/openings/c.tsv"),
    include_str!("../data/openings/d.tsv"),
    include_str!("../data/openings/e.tsv"),
];
/// Chance, per ply, that a game leaves the book for random moves.
const LEAVE_BOOK: f64 = 0.125;
/// lichess's speeds with their time controls and shares of games (per
/// mille): blitz and bullet lead, correspondence has no clock.
const LICHESS_SPEEDS: [(&str, &[&str], u64); 6] = [
    ("UltraBullet", &["15+0", "20+0"], 10),
    ("Bullet", &["60+0", "120+1", "30+1"], 270),
    ("Blitz", &["180+0", "180+2", "300+0", "300+3"], 460),
    ("Rapid", &["600+0", "600+5", "900+10"], 220),
    ("Classical", &["1800+0", "1800+20"], 30),
    ("Correspondence", &["-"], 10),
];
const TITLES: [&str; 6] = ["GM", "IM", "FM", "CM", "NM", "BOT"];

/// One move of the opening book: its SAN, how many named lines go through
/// it, the deepest name it completes, and the moves after it.
#[derive(Default)]
struct BookNode {
    san: String,
    lines: u64,
    name: Option<(String, String)>,
    children: Vec<usize>,
}

/// The opening table as a tree (node 0 is the start position).
struct Book(Vec<BookNode>);

impl Book {
    fn new() -> Book {
        let mut nodes = vec![BookNode::default()];
        for table in OPENING_TABLES {
            for row in table.lines().skip(1) {
                let mut fields = row.split('\t');
                let (Some(eco), Some(name), Some(pgn)) =
                    (fields.next(), fields.next(), fields.next())
                else {
                    continue;
                };
                let mut at = 0;
                nodes[0].lines += 1;
                for san in pgn.split_whitespace().filter(|t| !t.ends_with('.')) {
                    let found = nodes[at]
                        .children
                        .iter()
                        .copied()
                        .find(|&c| nodes[c].san == san);
                    at = found.unwrap_or_else(|| {
                        nodes.push(BookNode {
                            san: san.to_owned(),
                            ..BookNode::default()
                        });
                        let child = nodes.len() - 1;
                        nodes[at].children.push(child);
                        child
                    });
                    nodes[at].lines += 1;
                }
                nodes[at].name = Some((eco.to_owned(), name.to_owned()));
            }
        }
        Book(nodes)
    }

    /// Plays book moves from the start: each drawn by its lines, until the
    /// game leaves the book or the book ends. The deepest name reached.
    fn play(
        &self,
        rng: &mut Rng,
        pos: &mut Chess,
        sans: &mut Vec<SanPlus>,
    ) -> Option<(String, String)> {
        let mut at = 0;
        let mut name = None;
        loop {
            let node = &self.0[at];
            if node.children.is_empty() || rng.unit() < LEAVE_BOOK {
                return name;
            }
            let mut pick = rng.below(node.children.iter().map(|&c| self.0[c].lines).sum());
            let Some(&child) = node.children.iter().find(|&&c| {
                let lines = self.0[c].lines;
                let here = pick < lines;
                pick = pick.saturating_sub(lines);
                here
            }) else {
                return name;
            };
            let Ok(m) = San::from_ascii(self.0[child].san.as_bytes())
                .map_err(|_| ())
                .and_then(|san| san.to_move(pos).map_err(|_| ()))
            else {
                return name;
            };
            sans.push(SanPlus::from_move_and_play_unchecked(pos, m));
            at = child;
            name = self.0[at].name.clone().or(name);
        }
    }
}

/// `H:MM:SS` of a clock in seconds.
fn clock(seconds: u64) -> String {
    format!(
        "{}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

/// One game as a lichess month exports it, ending with a blank line.
fn lichess_game(seed: u64, index: u64, book: &Book, month: (u64, u64)) -> String {
    let mut rng = Rng::new(seed, index);
    let mut pos = Chess::default();
    let target = rng.range(MIN_PLIES, MAX_PLIES);
    let mut sans: Vec<SanPlus> = Vec::with_capacity(target as usize);
    let opening = book.play(&mut rng, &mut pos, &mut sans);
    let ended = play_random(&mut rng, &mut pos, &mut sans, target);
    let result = ended.unwrap_or_else(|| random_result(&mut rng));

    let mut share = rng.below(1000);
    let (speed, controls) = LICHESS_SPEEDS
        .iter()
        .find(|(_, _, permille)| {
            let here = share < *permille;
            share = share.saturating_sub(*permille);
            here
        })
        .map_or(("Blitz", &["180+0"][..]), |(speed, controls, _)| {
            (*speed, *controls)
        });
    let time_control = controls[rng.below(controls.len() as u64) as usize];
    let termination = match (ended, result) {
        (None, "1-0" | "0-1") if speed != "Correspondence" && rng.below(100) < 30 => "Time forfeit",
        _ => "Normal",
    };
    let (year, month) = month;
    let date = format!(
        "{year}.{month:02}.{:02}",
        rng.range(1, days_in_month(year, month))
    );
    let second = rng.below(86_400);
    let time = format!(
        "{:02}:{:02}:{:02}",
        second / 3600,
        second / 60 % 60,
        second % 60
    );
    let white = rng.below(players());
    let black = (white + rng.range(1, players() - 1)) % players();
    let (white_elo, black_elo) = (elo(&mut rng), elo(&mut rng));
    let (white_diff, black_diff) = rating_diffs(white_elo, black_elo, result);

    let mut out = String::with_capacity(600 + 40 * sans.len());
    let mut tag = |name: &str, value: &str| {
        let _ = writeln!(out, "[{name} \"{value}\"]");
    };
    tag("Event", &format!("Rated {speed} game"));
    tag(
        "Site",
        &format!("https://lichess.org/{}", lichess_id(&mut rng)),
    );
    tag("Date", &date);
    tag("Round", "-");
    tag("White", &format!("player{white}"));
    tag("Black", &format!("player{black}"));
    tag("Result", result);
    tag("UTCDate", &date);
    tag("UTCTime", &time);
    tag("WhiteElo", &white_elo.to_string());
    tag("BlackElo", &black_elo.to_string());
    tag("WhiteRatingDiff", &format!("{white_diff:+}"));
    tag("BlackRatingDiff", &format!("{black_diff:+}"));
    if white_elo > 2300 && rng.below(4) == 0 {
        tag(
            "WhiteTitle",
            TITLES[rng.below(TITLES.len() as u64) as usize],
        );
    }
    let (eco, name) = opening.unwrap_or_else(|| ("?".to_owned(), "?".to_owned()));
    tag("ECO", &eco);
    tag("Opening", &name);
    tag("TimeControl", time_control);
    tag("Termination", termination);
    out.push('\n');

    // Clocks as lichess writes them (whole seconds); correspondence has none.
    let (base, increment) = time_control
        .split_once('+')
        .and_then(|(b, i)| Some((b.parse::<u64>().ok()?, i.parse::<u64>().ok()?)))
        .unzip();
    let mut clocks = [base.unwrap_or(0); 2];
    let analysed = rng.below(100) < 15;
    let mut eval: f64 = 0.2;
    for (ply, san) in sans.iter().enumerate() {
        if ply % 2 == 0 {
            let _ = write!(out, "{}. {san}", ply / 2 + 1);
        } else {
            let _ = write!(out, "{}... {san}", ply / 2 + 1);
        }
        let mut comment = String::new();
        if analysed {
            eval = (eval + rng.normal(0.0, 0.4)).clamp(-15.0, 15.0);
            let _ = write!(comment, "[%eval {eval:.2}] ");
        }
        if let (Some(base), Some(increment)) = (base, increment) {
            let side = &mut clocks[ply % 2];
            let think = rng.below(*side / 12 + 2);
            *side = side.saturating_sub(think) + increment;
            let _ = write!(
                comment,
                "[%clk {}] ",
                clock((*side).min(base + 60 * increment))
            );
        }
        if comment.is_empty() {
            out.push(' ');
        } else {
            let _ = write!(out, " {{ {comment}}} ");
        }
    }
    out.push_str(result);
    out.push_str("\n\n");
    out
}

fn usage() -> ! {
    eprintln!(
        "usage: gen_games N [--seed S] [--lichess [--month YYYY.MM]] [--players N] [-o FILE]"
    );
    std::process::exit(2);
}

fn main() {
    match run() {
        Ok(()) => {}
        // `gen_games N | head`: the reader has seen enough.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
        Err(e) => {
            eprintln!("gen_games: {e}");
            std::process::exit(2);
        }
    }
}

fn run() -> io::Result<()> {
    let mut count: Option<u64> = None;
    let mut seed = 1u64;
    let mut output: Option<String> = None;
    let mut lichess = false;
    let mut month = (2025, 5);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--seed" => {
                seed = args
                    .next()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or_else(|| usage())
            }
            "-o" | "--output" => output = Some(args.next().unwrap_or_else(|| usage())),
            "--lichess" => lichess = true,
            "--players" => {
                let n = args
                    .next()
                    .and_then(|s| s.parse::<u64>().ok())
                    .filter(|&n| n >= 3)
                    .unwrap_or_else(|| usage());
                PLAYERS.store(n, std::sync::atomic::Ordering::Relaxed);
            }
            "--month" => {
                month = args
                    .next()
                    .and_then(|m| {
                        let (y, m) = m.split_once('.')?;
                        Some((y.parse().ok()?, m.parse().ok()?))
                    })
                    .filter(|&(_, m): &(u64, u64)| (1..=12).contains(&m))
                    .unwrap_or_else(|| usage())
            }
            "-h" | "--help" => usage(),
            _ if count.is_none() => count = Some(arg.parse().unwrap_or_else(|_| usage())),
            _ => usage(),
        }
    }
    let Some(count) = count else { usage() };

    let sink: Box<dyn Write> = match &output {
        Some(path) => Box::new(
            File::create(path).map_err(|e| io::Error::new(e.kind(), format!("{path}: {e}")))?,
        ),
        None => Box::new(io::stdout().lock()),
    };
    let mut out = BufWriter::with_capacity(1 << 20, sink);
    let book = lichess.then(Book::new);
    let mut start = 0;
    while start < count {
        let end = count.min(start + CHUNK);
        let games: Vec<String> = (start..end)
            .into_par_iter()
            .map(|i| match &book {
                Some(book) => lichess_game(seed, i, book, month),
                None => game(seed, i),
            })
            .collect();
        for text in &games {
            out.write_all(text.as_bytes())?;
        }
        start = end;
    }
    out.flush()
}
