//! PGN stage, move annotations: clocks, move times and evaluations read from
//! the comment after a move, in the formats real archives use (lichess,
//! ChessBase/Scid, cutechess-cli, TCEC), so that per-move tables need no
//! regular expressions downstream. A value that does not parse is left out
//! and counted as malformed, never a reject.

use shakmaty::Color;

/// What the comments after one move say. Evaluations are from White's
/// point of view, in centipawns, or as a mate distance in moves (positive:
/// White mates).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Annotation {
    /// Time left on the mover's clock after the move, in milliseconds.
    pub clock_ms: Option<i64>,
    /// Time the move took, in milliseconds, when the comment says it
    /// (`[%emt]`, cutechess `2.1s`, TCEC `mt=`).
    pub move_time_ms: Option<i64>,
    pub eval_cp: Option<i32>,
    pub eval_mate: Option<i32>,
    /// Search depth of an engine's evaluation (cutechess, TCEC).
    pub depth: Option<i32>,
    /// Values seen that did not parse.
    pub malformed: u32,
}

/// Whose move ply `ply` (1-based) is, from the side to move at the start.
pub fn mover(ply: u32, start_turn: Color) -> Color {
    if ply % 2 == 1 {
        start_turn
    } else {
        !start_turn
    }
}

/// A game's annotations as the `games` columns see them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GameClocks {
    pub has_clocks: bool,
    pub has_evals: bool,
    /// The clock after each side's last move that gives one.
    pub white_final_ms: Option<i64>,
    pub black_final_ms: Option<i64>,
}

impl GameClocks {
    /// From a game's annotations by ply (in ply order).
    pub fn of(annotations: &[(u32, Annotation)], start_turn: Color) -> GameClocks {
        let mut clocks = GameClocks::default();
        for &(ply, annotation) in annotations {
            clocks.has_evals |= annotation.eval_cp.is_some() || annotation.eval_mate.is_some();
            if let Some(ms) = annotation.clock_ms {
                clocks.has_clocks = true;
                match mover(ply, start_turn) {
                    Color::White => clocks.white_final_ms = Some(ms),
                    Color::Black => clocks.black_final_ms = Some(ms),
                }
            }
        }
        clocks
    }
}

/// Values read from the comments of a run's accepted games, for the
/// summary: sums that add up over batches and shards.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AnnotationCounts {
    pub clocks: u64,
    pub move_times: u64,
    pub evals: u64,
    /// Values that were there but did not parse (left null).
    pub malformed: u64,
}

impl AnnotationCounts {
    pub fn add_game(&mut self, annotations: &[(u32, Annotation)]) {
        for (_, a) in annotations {
            self.clocks += u64::from(a.clock_ms.is_some());
            self.move_times += u64::from(a.move_time_ms.is_some());
            self.evals += u64::from(a.eval_cp.is_some() || a.eval_mate.is_some());
            self.malformed += u64::from(a.malformed);
        }
    }
}

impl std::ops::AddAssign<&AnnotationCounts> for AnnotationCounts {
    fn add_assign(&mut self, other: &AnnotationCounts) {
        self.clocks += other.clocks;
        self.move_times += other.move_times;
        self.evals += other.evals;
        self.malformed += other.malformed;
    }
}

impl Annotation {
    /// Whether a comment may hold a value at all: a `[%…]` command, a TCEC
    /// `d=…` list, or a cutechess score (`+0.31/18`, `-M5/30`). The rest
    /// (prose, `book`) is not decoded.
    pub fn may_hold_values(comment: &[u8]) -> bool {
        if memchr::memmem::find(comment, b"[%").is_some() {
            return true;
        }
        let text = comment.trim_ascii_start();
        text.starts_with(b"d=") || cutechess_score(text).is_some()
    }

    /// Reads one comment of a move played by `mover`, adding what it says.
    pub fn read_comment(&mut self, comment: &str, mover: Color) {
        let mut rest = comment;
        let mut commands = false;
        while let Some(at) = rest.find("[%") {
            commands = true;
            let after = rest.get(at + 2..).unwrap_or_default();
            let end = after.find(']').unwrap_or(after.len());
            self.command(after.get(..end).unwrap_or_default());
            rest = after.get(end..).unwrap_or_default();
        }
        if commands {
            return;
        }
        let text = comment.trim();
        if text.starts_with("d=") {
            self.tcec(text);
        } else {
            self.cutechess(text, mover);
        }
    }

    /// A `[%name value]` command (without the brackets).
    fn command(&mut self, command: &str) {
        let mut words = command.split_whitespace();
        let (Some(name), value) = (words.next(), words.next()) else {
            return;
        };
        let value = value.unwrap_or_default();
        match name {
            "clk" => self.clock_ms = self.checked(clock_ms(value)),
            "clkc" => self.clock_ms = self.checked(value.parse::<i64>().ok().map(|cs| cs * 10)),
            "emt" => self.move_time_ms = self.checked(clock_ms(value)),
            "eval" => self.lichess_eval(value),
            _ => {}
        }
    }

    fn checked<T>(&mut self, value: Option<T>) -> Option<T> {
        if value.is_none() {
            self.malformed += 1;
        }
        value
    }

    /// `0.17`, `-1.5`, `#3`, `#-3` (White's point of view), optionally
    /// followed by `,depth`.
    fn lichess_eval(&mut self, value: &str) {
        let value = value.split(',').next().unwrap_or_default();
        match value.strip_prefix('#') {
            Some(mate) => self.eval_mate = self.checked(mate.parse().ok()),
            None => self.eval_cp = self.checked(pawns_to_cp(value)),
        }
    }

    /// cutechess-cli: `+0.31/18 2.1s`, `-M5/30 0.4s`, `+M3/12`, `book`; the
    /// score is the mover's, turned into White's.
    fn cutechess(&mut self, text: &str, mover: Color) {
        if cutechess_score(text.as_bytes()).is_none() {
            return;
        }
        let mut words = text.split_whitespace();
        let Some(score) = words.next() else { return };
        let Some((value, depth)) = score.split_once('/') else {
            return;
        };
        let sign = if mover == Color::White { 1 } else { -1 };
        let unsigned = value.trim_start_matches(['+', '-']);
        let negative = value.starts_with('-');
        if let Some(mate) = unsigned.strip_prefix('M') {
            let moves: Option<i32> = mate.parse().ok();
            let moves = moves.map(|m| if negative { -m } else { m } * sign);
            self.eval_mate = self.checked(moves);
        } else {
            let cp = pawns_to_cp(value).map(|cp| cp * sign);
            self.eval_cp = self.checked(cp);
        }
        self.depth = self.checked(depth.parse().ok());
        if let Some(time) = words.next().and_then(|w| w.strip_suffix('s')) {
            self.move_time_ms = self.checked(seconds_to_ms(time));
        }
    }

    /// TCEC: `d=35, sd=59, mt=29343, tl=1616163, s=…, n=…, pv=…, tb=…, h=…,
    /// ph=…, wv=1.50, …`: `wv` is White's evaluation (`M5`, `-M3` for mates).
    fn tcec(&mut self, text: &str) {
        for field in text.split(',') {
            let Some((name, value)) = field.split_once('=') else {
                continue;
            };
            let value = value.trim();
            match name.trim() {
                "d" => self.depth = self.checked(value.parse().ok()),
                "mt" => self.move_time_ms = self.checked(tcec_ms(value)),
                "tl" => self.clock_ms = self.checked(tcec_ms(value)),
                "wv" => {
                    let negative = value.starts_with('-');
                    let unsigned = value.trim_start_matches(['+', '-']);
                    match unsigned.strip_prefix('M') {
                        Some(mate) => {
                            let moves: Option<i32> = mate.parse().ok();
                            self.eval_mate =
                                self.checked(moves.map(|m| if negative { -m } else { m }));
                        }
                        None => self.eval_cp = self.checked(pawns_to_cp(value)),
                    }
                }
                _ => {}
            }
        }
    }
}

/// The first word of a cutechess comment when it looks like a score and
/// depth: a sign or digit, then a decimal number or `M` and a mate
/// distance, `/`, then digits (`+0.31/18`, `-M5/30`, `0.00/1`). Prose such
/// as `1/2-1/2 agreed` does not.
fn cutechess_score(text: &[u8]) -> Option<&[u8]> {
    let word = text.split(|b| b.is_ascii_whitespace()).next()?;
    let slash = memchr::memchr(b'/', word)?;
    let (value, depth) = (word.get(..slash)?, word.get(slash + 1..)?);
    let unsigned = value
        .strip_prefix(b"+")
        .or_else(|| value.strip_prefix(b"-"))
        .unwrap_or(value);
    let score_like = match unsigned.strip_prefix(b"M") {
        Some(mate) => !mate.is_empty(),
        None => unsigned.contains(&b'.') && unsigned.first().is_some_and(u8::is_ascii_digit),
    };
    let depth_like = depth.first().is_some_and(u8::is_ascii_digit);
    (score_like && depth_like).then_some(word)
}

/// A TCEC time: milliseconds (`29343`), or `HH:MM:SS` in older seasons.
fn tcec_ms(value: &str) -> Option<i64> {
    value.parse().ok().or_else(|| clock_ms(value))
}

/// `H:MM:SS`, `H:MM:SS.s`, `MM:SS` as milliseconds.
fn clock_ms(text: &str) -> Option<i64> {
    let mut total = 0i64;
    let mut parts = 0;
    for (i, part) in text.split(':').enumerate() {
        parts += 1;
        let last = i == text.matches(':').count();
        let value = if last {
            seconds_to_ms(part)?
        } else {
            part.parse::<i64>()
                .ok()
                .filter(|n| *n >= 0)?
                .checked_mul(1000)?
        };
        total = total
            .checked_mul(if i == 0 { 1 } else { 60 })?
            .checked_add(value)?;
    }
    (parts >= 2).then_some(total)
}

/// `12`, `7.3`, `0.25` seconds as milliseconds (digits only, no sign).
fn seconds_to_ms(text: &str) -> Option<i64> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut ms = whole.parse::<i64>().ok()?.checked_mul(1000)?;
    let mut scale = 100;
    for digit in fraction.bytes().take(3) {
        ms += i64::from(digit - b'0') * scale;
        scale /= 10;
    }
    Some(ms)
}

/// `0.17`, `-1.5`, `+2` pawns as centipawns, rounded half away from zero.
fn pawns_to_cp(text: &str) -> Option<i32> {
    let negative = text.starts_with('-');
    let digits = text.trim_start_matches(['+', '-']);
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let valid = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() && fraction.is_empty() || !valid(whole) || !valid(fraction) {
        return None;
    }
    let whole: i64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let mut hundredths = whole.checked_mul(100)?;
    let mut digits = fraction.bytes();
    hundredths += digits.next().map_or(0, |d| i64::from(d - b'0') * 10);
    hundredths += digits.next().map_or(0, |d| i64::from(d - b'0'));
    if digits.next().is_some_and(|d| d >= b'5') {
        hundredths += 1;
    }
    let cp = i32::try_from(hundredths).ok()?;
    Some(if negative { -cp } else { cp })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(comments: &[&str], mover: Color) -> Annotation {
        let mut annotation = Annotation::default();
        for comment in comments {
            annotation.read_comment(comment, mover);
        }
        annotation
    }

    #[test]
    fn lichess_clocks_and_evaluations() {
        let a = read(&[" [%eval 0.17] [%clk 0:05:00] "], Color::White);
        assert_eq!(
            (a.clock_ms, a.eval_cp, a.eval_mate),
            (Some(300_000), Some(17), None)
        );
        let a = read(&["[%clk 0:00:07.3]", "[%eval #-3]"], Color::Black);
        assert_eq!(
            (a.clock_ms, a.eval_cp, a.eval_mate),
            (Some(7_300), None, Some(-3))
        );
        let a = read(&["[%eval -1.5,23] [%clkc 12345]"], Color::White);
        assert_eq!(
            (a.clock_ms, a.eval_cp, a.depth),
            (Some(123_450), Some(-150), None)
        );
        assert_eq!(read(&["[%eval 0.005]"], Color::White).eval_cp, Some(1));
        assert_eq!(
            read(&["[%clk 1:02:03.25]"], Color::White).clock_ms,
            Some(3_723_250)
        );
    }

    #[test]
    fn chessbase_move_times() {
        let a = read(&["[%emt 0:00:12] [%clk 1:29:48]"], Color::White);
        assert_eq!(
            (a.move_time_ms, a.clock_ms),
            (Some(12_000), Some(5_388_000))
        );
    }

    #[test]
    fn cutechess_scores_are_the_movers_and_become_whites() {
        let a = read(&["+0.31/18 2.1s"], Color::Black);
        assert_eq!(
            (a.eval_cp, a.depth, a.move_time_ms),
            (Some(-31), Some(18), Some(2_100))
        );
        let a = read(&["-M5/30 0.4s"], Color::White);
        assert_eq!(
            (a.eval_mate, a.depth, a.move_time_ms),
            (Some(-5), Some(30), Some(400))
        );
        let a = read(&["-M5/30 0.4s"], Color::Black);
        assert_eq!(a.eval_mate, Some(5));
        assert_eq!(read(&["book"], Color::White), Annotation::default());
    }

    #[test]
    fn tcec_fields() {
        let text = "d=35, sd=59, mt=29343, tl=1616163, s=21435 kN/s, n=628947337, \
                    pv=Nf3 d5, tb=0, h=35.4, ph=0.0, wv=1.50, R50=50, Rd=-1000, Rr=-1000";
        let a = read(&[text], Color::Black);
        assert_eq!(
            (a.depth, a.move_time_ms, a.clock_ms, a.eval_cp),
            (Some(35), Some(29_343), Some(1_616_163), Some(150))
        );
        let a = read(&["d=12, mt=100, tl=5000, wv=-M3, pv=e4"], Color::White);
        assert_eq!(a.eval_mate, Some(-3));
        // Older seasons write the times as clocks.
        let a = read(&["d=20, mt=00:00:56, tl=00:15:04, wv=0.12"], Color::White);
        assert_eq!(
            (a.move_time_ms, a.clock_ms, a.malformed),
            (Some(56_000), Some(904_000), 0)
        );
    }

    #[test]
    fn malformed_values_are_left_out_and_counted() {
        let a = read(&["[%clk 5:xx] [%eval abc] [%emt ]"], Color::White);
        assert_eq!((a.clock_ms, a.eval_cp, a.move_time_ms), (None, None, None));
        assert_eq!(a.malformed, 3);
        let a = read(&["+0.3.1/18 2.1s"], Color::White);
        assert_eq!((a.eval_cp, a.depth), (None, Some(18)));
        assert_eq!(a.malformed, 1);
        // Prose is no annotation.
        assert_eq!(
            read(&["a fine move, d=not a field"], Color::White).malformed,
            0
        );
        assert_eq!(read(&["Good move!"], Color::White), Annotation::default());
        assert_eq!(
            read(&["1/2-1/2 agreed"], Color::White),
            Annotation::default()
        );
    }

    #[test]
    fn final_clocks_per_side() {
        let at = |clock: i64| Annotation {
            clock_ms: Some(clock),
            ..Annotation::default()
        };
        let eval = Annotation {
            eval_cp: Some(20),
            ..Annotation::default()
        };
        let game = [(1, at(300)), (2, at(290)), (3, at(250)), (4, eval)];
        let clocks = GameClocks::of(&game, Color::White);
        assert_eq!(
            clocks,
            GameClocks {
                has_clocks: true,
                has_evals: true,
                white_final_ms: Some(250),
                black_final_ms: Some(290),
            }
        );
        // From a FEN with Black to move, ply 1 is Black's.
        let clocks = GameClocks::of(&game[..1], Color::Black);
        assert_eq!(
            (clocks.white_final_ms, clocks.black_final_ms),
            (None, Some(300))
        );
        let mut counts = AnnotationCounts::default();
        counts.add_game(&game);
        assert_eq!((counts.clocks, counts.evals, counts.malformed), (3, 1, 0));
    }

    #[test]
    fn only_comments_that_may_hold_values_are_decoded() {
        for yes in [
            "[%clk 0:01:00]",
            " d=3, mt=1",
            "+0.31/18 2.1s",
            "-M5/30",
            "0.00/1",
        ] {
            assert!(Annotation::may_hold_values(yes.as_bytes()), "{yes}");
        }
        for no in [
            "book",
            "Good move!",
            "1/2-1/2 agreed",
            "",
            "White resigns",
            "M/3",
        ] {
            assert!(!Annotation::may_hold_values(no.as_bytes()), "{no}");
        }
    }
}
