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
//! Each game has its own PRNG (splitmix64) seeded from (seed, game index), so
//! the output does not depend on scheduling: chunks of games are generated in
//! parallel with rayon and written in order through one buffered writer.
//! `benches/opening-tree.sh` uses it.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufWriter, Write};

use rayon::prelude::*;
use shakmaty::san::{SanPlus, Suffix};
use shakmaty::{Chess, Color, Position};

/// Games generated in parallel before being written out, in order.
const CHUNK: u64 = 4096;
/// Distinct player names (`player0` … `player3999`).
const PLAYERS: u64 = 4000;
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

/// One game's PGN text, ending with a blank line.
fn game(seed: u64, index: u64) -> String {
    let mut rng = Rng::new(seed, index);

    // Movetext first: the result depends on how the game ended.
    let target = rng.range(MIN_PLIES, MAX_PLIES);
    let mut pos = Chess::default();
    let mut sans: Vec<SanPlus> = Vec::with_capacity(target as usize);
    let mut ended = None;
    loop {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            ended = Some(if pos.is_check() {
                match pos.turn() {
                    Color::White => "0-1",
                    Color::Black => "1-0",
                }
            } else {
                "1/2-1/2"
            });
            break;
        }
        if pos.is_insufficient_material() {
            ended = Some("1/2-1/2");
            break;
        }
        if sans.len() as u64 >= target {
            break;
        }
        let m = moves[rng.below(moves.len() as u64) as usize];
        sans.push(SanPlus::from_move_and_play_unchecked(&mut pos, m));
    }
    debug_assert!(ended.is_none() || pos.is_game_over());
    debug_assert!(
        !matches!(ended, Some("1-0" | "0-1"))
            || sans
                .last()
                .is_some_and(|san| san.suffix == Some(Suffix::Checkmate))
    );
    let result = ended.unwrap_or_else(|| match rng.below(100) {
        0..47 => "1-0",
        47..90 => "0-1",
        _ => "1/2-1/2",
    });
    let termination = if ended.is_none() && result != "1/2-1/2" && rng.below(100) < 30 {
        "Time forfeit"
    } else {
        "Normal"
    };

    let (time_control, speed) = TIME_CONTROLS[rng.below(TIME_CONTROLS.len() as u64) as usize];
    let site: String = (0..8)
        .map(|_| char::from(SITE_CHARS[rng.below(SITE_CHARS.len() as u64) as usize]))
        .collect();
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
    let white = rng.below(PLAYERS);
    let black = (white + rng.range(1, PLAYERS - 1)) % PLAYERS;
    let (white_elo, black_elo) = (elo(&mut rng), elo(&mut rng));
    // Elo-like: the change is 20 × (score − expected score), at least 1 on a
    // decisive game.
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
    let black_diff = -white_diff;

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

fn usage() -> ! {
    eprintln!("usage: gen_games N [--seed S] [-o FILE]");
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
    let mut start = 0;
    while start < count {
        let end = count.min(start + CHUNK);
        let games: Vec<String> = (start..end)
            .into_par_iter()
            .map(|i| game(seed, i))
            .collect();
        for text in &games {
            out.write_all(text.as_bytes())?;
        }
        start = end;
    }
    out.flush()
}
