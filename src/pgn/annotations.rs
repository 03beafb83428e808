//! PGN stage, move annotations: clocks, move times and evaluations read from
//! the comment after a move, in the formats real archives use (lichess,
//! ChessBase/Scid, cutechess-cli, TCEC), so that per-move tables need no
//! regular expressions downstream. A value that does not parse is left out
//! and counted as malformed, never a reject.

use shakmaty::Color;

use crate::pgn::bytes::find_byte;

/// What the comments after one move say. Evaluations are from White's
/// point of view, in centipawns, or as a mate distance in moves (positive:
/// White mates).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Annotation {
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
pub(crate) fn mover(ply: u32, start_turn: Color) -> Color {
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
    pub(crate) fn of(annotations: &[(u32, Annotation)], start_turn: Color) -> GameClocks {
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

    /// The same as [`GameClocks::of`] the annotations the comments give,
    /// read from the last ply back and only as far as needed: until each
    /// side's clock is found and an evaluation is, or no comment before
    /// could hold one.
    pub(crate) fn of_log(log: &CommentLog, start_turn: Color) -> GameClocks {
        let mut clocks = GameClocks::default();
        let mut end = log.comments.len();
        while end > 0 {
            let done = clocks.white_final_ms.is_some() && clocks.black_final_ms.is_some();
            let evals_may_be_before = log.first_other.is_some_and(|first| first < end);
            if done && (clocks.has_evals || !evals_may_be_before) {
                break;
            }
            // `end` only falls, from the log's length.
            let before = &log.comments[..end];
            let ply = before.last().map_or(0, |c| c.ply);
            let start = before
                .iter()
                .rposition(|c| c.ply != ply)
                .map_or(0, |i| i + 1);
            let group = &before[start..];
            let from = start
                .checked_sub(1)
                .and_then(|i| log.comments.get(i))
                .map_or(0, |c| c.end);
            let annotation = log.read_ply(group, from);
            clocks.has_evals |= annotation.eval_cp.is_some() || annotation.eval_mate.is_some();
            if let Some(ms) = annotation.clock_ms {
                clocks.has_clocks = true;
                let last = match mover(ply, start_turn) {
                    Color::White => &mut clocks.white_final_ms,
                    Color::Black => &mut clocks.black_final_ms,
                };
                last.get_or_insert(ms);
            }
            end = start;
        }
        clocks
    }
}

/// The mainline comments of one game as written, kept for the `games`
/// columns alone (an import without `--moves`): copying a comment costs
/// less than reading it (TCEC writes a kilobyte of engine output after
/// every move), and [`GameClocks`] needs only the last few, read from the
/// end. Its buffers are reused from game to game.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct CommentLog {
    bytes: Vec<u8>,
    comments: Vec<LoggedComment>,
    /// The first comment that is more than a lichess `[%clk H:MM:SS]`:
    /// none before it can hold an evaluation.
    first_other: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LoggedComment {
    /// The mainline ply the comment follows (1-based).
    ply: u32,
    /// Whose move it follows, as the parser saw it (a cutechess score is
    /// the mover's).
    mover: Color,
    /// A comment that is `[%clk H:MM:SS]` alone (nearly every comment of
    /// a lichess export): its `H:MM:SS`; the comment's bytes are not kept.
    clock_only: Option<[u8; 7]>,
    /// Where its bytes end in `bytes` (they start where the previous end).
    end: usize,
}

/// A game whose comments took more than this keeps no larger buffer for
/// the next game (one huge comment must not pin its memory for the run).
const LOG_BYTES_KEPT: usize = 1 << 20;

impl CommentLog {
    pub(crate) fn clear(&mut self) {
        self.bytes.clear();
        if self.bytes.capacity() > LOG_BYTES_KEPT {
            self.bytes.shrink_to(LOG_BYTES_KEPT);
        }
        self.comments.clear();
        self.first_other = None;
    }

    /// Keeps a comment after mainline ply `ply`, played by `mover`.
    pub(crate) fn push(&mut self, ply: u32, mover: Color, comment: &[u8]) {
        let clock_only = lichess_clock_shape(comment);
        if clock_only.is_none() {
            self.first_other.get_or_insert(self.comments.len());
            self.bytes.extend_from_slice(comment);
        }
        self.comments.push(LoggedComment {
            ply,
            mover,
            end: self.bytes.len(),
            clock_only,
        });
    }

    /// The comments after one ply, read together as the per-move path
    /// reads them (a later value of the same ply replaces an earlier one).
    fn read_ply(&self, comments: &[LoggedComment], start: usize) -> Annotation {
        let mut annotation = Annotation::default();
        let mut from = start;
        for comment in comments {
            match comment.clock_only {
                Some(clock) => match lichess_clock_value(clock) {
                    Some(ms) => annotation.clock_ms = Some(ms),
                    // Not digits: as the comment reads in full.
                    None => {
                        let mut text = *b"[%clk 0:00:00]";
                        if let Some(at) = text.get_mut(6..13) {
                            at.copy_from_slice(&clock);
                        }
                        annotation.read_comment(&text, comment.mover);
                    }
                },
                None => {
                    // The log's comments end in order, within its bytes.
                    let text = &self.bytes[from..comment.end];
                    annotation.read_comment(text, comment.mover);
                }
            }
            from = comment.end;
        }
        annotation
    }
}

/// Values read from the comments of a run's accepted games, for the
/// summary: sums that add up over batches and shards.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnnotationCounts {
    pub clocks: u64,
    pub move_times: u64,
    pub evals: u64,
    /// Values that were there but did not parse (left null).
    pub malformed: u64,
}

impl AnnotationCounts {
    pub(crate) fn add_game(&mut self, annotations: &[(u32, Annotation)]) {
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
    /// Reads one comment (its bytes as written) of a move played by
    /// `mover`, adding what it says. Runs on every comment of every game:
    /// bytes, no allocation, no UTF-8 decoding (every value is ASCII).
    pub(crate) fn read_comment(&mut self, comment: &[u8], mover: Color) {
        if let Some(ms) = lichess_clock_only(comment) {
            self.clock_ms = Some(ms);
            return;
        }
        let mut rest = comment;
        let mut commands = false;
        while let Some(at) = find_byte(b'[', rest) {
            let after = &rest[at + 1..];
            let Some(body) = after.strip_prefix(b"%") else {
                rest = after;
                continue;
            };
            commands = true;
            let end = find_byte(b']', body).unwrap_or(body.len());
            let (command, after_command) = body.split_at(end);
            // Nearly every comment of a lichess export is `[%clk H:MM:SS]`.
            match command.strip_prefix(b"clk ") {
                Some(clock) if clock.first().is_some_and(u8::is_ascii_digit) => {
                    self.clock_ms = self.checked(clock_ms(clock.trim_ascii_end()));
                }
                _ => self.command(command),
            }
            rest = after_command;
        }
        if commands {
            return;
        }
        let text = comment.trim_ascii();
        if text.starts_with(b"d=") {
            self.tcec(text);
        } else if cutechess_score(text).is_some() {
            self.cutechess(text, mover);
        }
    }

    /// A `[%name value]` command (without the brackets).
    fn command(&mut self, command: &[u8]) {
        let command = command.trim_ascii();
        let name_end = command
            .iter()
            .position(u8::is_ascii_whitespace)
            .unwrap_or(command.len());
        let (name, rest) = command.split_at(name_end);
        let rest = rest.trim_ascii_start();
        let value_end = rest
            .iter()
            .position(u8::is_ascii_whitespace)
            .unwrap_or(rest.len());
        let value = &rest[..value_end];
        match name {
            b"clk" => self.clock_ms = self.checked(clock_ms(value)),
            b"clkc" => {
                let ms = integer(value).and_then(|cs| cs.checked_mul(10));
                self.clock_ms = self.checked(ms);
            }
            b"emt" => self.move_time_ms = self.checked(clock_ms(value)),
            b"eval" => self.lichess_eval(value),
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
    fn lichess_eval(&mut self, value: &[u8]) {
        let (value, depth) = match memchr::memchr(b',', value) {
            Some(comma) => (&value[..comma], Some(&value[comma + 1..])),
            None => (value, None),
        };
        match value.strip_prefix(b"#") {
            Some(mate) => self.eval_mate = self.checked(small(mate)),
            None => self.eval_cp = self.checked(pawns_to_cp(value)),
        }
        if let Some(depth) = depth {
            self.depth = self.checked(small(depth));
        }
    }

    /// cutechess-cli: `+0.31/18 2.1s`, `-M5/30 0.4s`, `+M3/12`; the score
    /// is the mover's, turned into White's.
    fn cutechess(&mut self, text: &[u8], mover: Color) {
        let mut words = words(text);
        let Some(score) = words.next() else { return };
        let Some(slash) = memchr::memchr(b'/', score) else {
            return;
        };
        let (value, depth) = (&score[..slash], &score[slash + 1..]);
        let sign = if mover == Color::White { 1 } else { -1 };
        match signed_mate(value) {
            Some(mate) => self.eval_mate = self.checked(mate.map(|m| m * sign)),
            None => self.eval_cp = self.checked(pawns_to_cp(value).map(|cp| cp * sign)),
        }
        self.depth = self.checked(small(depth));
        if let Some(time) = words.next().and_then(|w| w.strip_suffix(b"s")) {
            self.move_time_ms = self.checked(seconds_to_ms(time));
        }
    }

    /// TCEC: `d=35, sd=59, mt=29343, tl=1616163, s=…, n=…, pv=…, tb=…, h=…,
    /// ph=…, wv=1.50, …`: `wv` is White's evaluation (`M5`, `-M3` for mates).
    fn tcec(&mut self, text: &[u8]) {
        // Fields are found with memchr: the comment is a kilobyte (the
        // principal variation), on every move of every game.
        let mut start = 0;
        let ends = memchr::memchr_iter(b',', text).chain(std::iter::once(text.len()));
        for end in ends {
            let field = &text[start..end];
            start = end + 1;
            let Some(equals) = memchr::memchr(b'=', field) else {
                continue;
            };
            let name = field[..equals].trim_ascii();
            let value = field[equals + 1..].trim_ascii();
            match name {
                b"d" => self.depth = self.checked(small(value)),
                b"mt" => self.move_time_ms = self.checked(tcec_ms(value)),
                b"tl" => self.clock_ms = self.checked(tcec_ms(value)),
                b"wv" => match signed_mate(value) {
                    Some(mate) => self.eval_mate = self.checked(mate),
                    None => self.eval_cp = self.checked(pawns_to_cp(value)),
                },
                _ => {}
            }
        }
    }
}

/// A comment that is `[%clk H:MM:SS]` and nothing else, as lichess writes
/// after nearly every move of its exports: read at fixed offsets, the one
/// shape that decides the cost of reading a lichess month.
fn lichess_clock_only(comment: &[u8]) -> Option<i64> {
    lichess_clock_shape(comment).and_then(lichess_clock_value)
}

/// The seven bytes `H:MM:SS` of a comment shaped as `[%clk H:MM:SS]` and
/// nothing else (digits not checked): a few compares, on every comment.
fn lichess_clock_shape(comment: &[u8]) -> Option<[u8; 7]> {
    // As lichess writes it, between the braces: ` [%clk 0:05:00] `, its
    // nine fixed bytes compared at once.
    if let Ok(exact) = <[u8; 16]>::try_from(comment) {
        // Every byte but the five digits.
        const FIXED: u128 = !(0xFF << 56 | 0xFFFF << 72 | 0xFFFF << 96);
        const WANT: u128 = u128::from_le_bytes(*b" [%clk 0:00:00] ") & FIXED;
        if u128::from_le_bytes(exact) & FIXED == WANT {
            let [_, _, _, _, _, _, _, h, c1, m1, m2, c2, s1, s2, _, _] = exact;
            return Some([h, c1, m1, m2, c2, s1, s2]);
        }
    }
    let trimmed = comment.trim_ascii();
    let &[
        b'[',
        b'%',
        b'c',
        b'l',
        b'k',
        b' ',
        h,
        b':',
        m1,
        m2,
        b':',
        s1,
        s2,
        b']',
    ] = trimmed
    else {
        return None;
    };
    Some([h, b':', m1, m2, b':', s1, s2])
}

/// `H:MM:SS` as milliseconds, when all five are digits.
fn lichess_clock_value(clock: [u8; 7]) -> Option<i64> {
    let [h, _, m1, m2, _, s1, s2] = clock;
    let digit = |b: u8| {
        let d = b.wrapping_sub(b'0');
        (d <= 9).then_some(i64::from(d))
    };
    let (h, m1, m2, s1, s2) = (digit(h)?, digit(m1)?, digit(m2)?, digit(s1)?, digit(s2)?);
    Some(((h * 60 + m1 * 10 + m2) * 60 + s1 * 10 + s2) * 1000)
}

/// Words separated by ASCII whitespace.
fn words(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    text.split(u8::is_ascii_whitespace)
        .filter(|w| !w.is_empty())
}

/// `M5`, `+M5`, `-M3`: Some(the signed mate distance, None when the digits
/// do not parse); None when the value is no mate.
fn signed_mate(value: &[u8]) -> Option<Option<i32>> {
    let (negative, unsigned) = match value {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, value),
    };
    let mate = unsigned.strip_prefix(b"M")?;
    Some(small(mate).map(|m| if negative { -m } else { m }))
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

/// A TCEC time: milliseconds (`29343`; negative once a flag fell), or
/// `HH:MM:SS` in older seasons.
fn tcec_ms(value: &[u8]) -> Option<i64> {
    integer(value).or_else(|| clock_ms(value))
}

/// ASCII digits with an optional sign, as i64.
fn integer(text: &[u8]) -> Option<i64> {
    let (negative, digits) = match text.first() {
        Some(b'-') => (true, text.get(1..)?),
        Some(b'+') => (false, text.get(1..)?),
        _ => (false, text),
    };
    let value = unsigned(digits)?;
    Some(if negative { -value } else { value })
}

/// ASCII digits only (at least one, at most 18), as i64.
fn unsigned(digits: &[u8]) -> Option<i64> {
    if digits.is_empty() || digits.len() > 18 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(
        digits
            .iter()
            .fold(0i64, |n, d| n * 10 + i64::from(d - b'0')),
    )
}

/// A depth or mate distance: a signed integer that fits i32.
fn small(text: &[u8]) -> Option<i32> {
    integer(text).and_then(|n| i32::try_from(n).ok())
}

/// `H:MM:SS`, `H:MM:SS.s`, `MM:SS` as milliseconds: one pass over the
/// bytes (a lichess export has one on every move).
fn clock_ms(text: &[u8]) -> Option<i64> {
    let (mut total, mut field, mut digits, mut colons) = (0i64, 0i64, 0u32, 0u32);
    let (mut fraction_ms, mut scale) = (0i64, None::<i64>);
    for &byte in text {
        match (byte, scale) {
            (b'0'..=b'9', None) => {
                field = field * 10 + i64::from(byte - b'0');
                digits += 1;
            }
            (b'0'..=b'9', Some(s)) => {
                fraction_ms += i64::from(byte - b'0') * s;
                scale = Some(s / 10);
            }
            (b':', None) if digits > 0 => {
                total = total * 60 + field;
                (field, digits, colons) = (0, 0, colons + 1);
            }
            (b'.', None) if digits > 0 => scale = Some(100),
            _ => return None,
        }
        if digits > 9 || colons > 2 {
            return None;
        }
    }
    (digits > 0 && colons > 0).then_some((total * 60 + field) * 1000 + fraction_ms)
}

/// `12`, `7.3`, `0.25` seconds as milliseconds (digits only, no sign).
fn seconds_to_ms(text: &[u8]) -> Option<i64> {
    let (whole, fraction) = split_point(text);
    let mut ms = unsigned(whole)?.checked_mul(1000)?;
    if !fraction.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut scale = 100;
    for digit in fraction.iter().take(3) {
        ms += i64::from(digit - b'0') * scale;
        scale /= 10;
    }
    Some(ms)
}

/// The digits before and after a decimal point (none: all before).
fn split_point(text: &[u8]) -> (&[u8], &[u8]) {
    match memchr::memchr(b'.', text) {
        Some(point) => (&text[..point], &text[point + 1..]),
        None => (text, &[]),
    }
}

/// `0.17`, `-1.5`, `+2` pawns as centipawns, rounded half away from zero.
fn pawns_to_cp(text: &[u8]) -> Option<i32> {
    let (negative, digits) = match text {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, text),
    };
    let (whole, fraction) = split_point(digits);
    if whole.is_empty() && fraction.is_empty() || !fraction.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let whole = if whole.is_empty() {
        0
    } else {
        unsigned(whole)?
    };
    let mut hundredths = whole.checked_mul(100)?;
    let mut digits = fraction.iter();
    hundredths += digits.next().map_or(0, |d| i64::from(d - b'0') * 10);
    hundredths += digits.next().map_or(0, |d| i64::from(d - b'0'));
    if digits.next().is_some_and(|d| *d >= b'5') {
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
            annotation.read_comment(comment.as_bytes(), mover);
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
            (Some(123_450), Some(-150), Some(23))
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

    /// Comments of every kind, to build games of: plain lichess clocks,
    /// clocks with evaluations, malformed values, engine output, prose.
    const COMMENTS: [&str; 14] = [
        "[%clk 0:05:00]",
        " [%clk 1:02:03] ",
        " [%clk 0:0x:00] ",
        "[%clk 0:04:58]",
        "[%eval 0.17] [%clk 0:04:50]",
        "[%eval #-3]",
        "[%eval x] [%clk 0:03:00]",
        "[%clk 9:99]",
        "[%emt 0:00:12]",
        "+0.31/18 2.1s",
        "-M5/30 0.4s",
        "d=35, sd=59, mt=29343, tl=1616163, pv=e4 e5, wv=1.50, R50=50",
        "book",
        "a fine move [not a command]",
    ];

    proptest::proptest! {
        /// The games columns read from the end of a comment log equal those
        /// of the per-move annotations, whatever the comments, the plies
        /// they follow (several after one ply too) and the side to start.
        #[test]
        fn the_log_reads_as_the_annotations(
            comments in proptest::collection::vec((0usize..COMMENTS.len(), 0u32..3), 0..40),
            black_starts: bool,
        ) {
            let start_turn = if black_starts { Color::Black } else { Color::White };
            let (mut log, mut annotations) = (CommentLog::default(), Vec::<(u32, Annotation)>::new());
            let mut ply = 0;
            for (which, step) in comments {
                ply += step.max(u32::from(ply == 0));
                let text = COMMENTS[which].as_bytes();
                let mover = mover(ply, start_turn);
                log.push(ply, mover, text);
                match annotations.last_mut() {
                    Some((last, annotation)) if *last == ply => annotation.read_comment(text, mover),
                    _ => {
                        let mut annotation = Annotation::default();
                        annotation.read_comment(text, mover);
                        annotations.push((ply, annotation));
                    }
                }
            }
            proptest::prop_assert_eq!(
                GameClocks::of_log(&log, start_turn),
                GameClocks::of(&annotations, start_turn)
            );
            log.clear();
            proptest::prop_assert_eq!(GameClocks::of_log(&log, start_turn), GameClocks::default());
        }
    }

    proptest::proptest! {
        /// Every clock lichess or ChessBase can write reads back exactly.
        #[test]
        fn clocks_round_trip(tenths in 0i64..(100 * 3600 * 10), fraction: bool) {
            let (hours, minutes) = (tenths / 36_000, tenths / 600 % 60);
            let (seconds, tenth) = (tenths / 10 % 60, tenths % 10);
            let text = if fraction {
                format!("{hours}:{minutes:02}:{seconds:02}.{tenth}")
            } else {
                format!("{hours}:{minutes:02}:{seconds:02}")
            };
            let expected = if fraction { tenths * 100 } else { tenths / 10 * 1000 };
            proptest::prop_assert_eq!(clock_ms(text.as_bytes()), Some(expected));
        }
    }

    #[test]
    fn the_lichess_clock_shortcut_reads_as_the_general_path() {
        for comment in [" [%clk 0:05:00] ", "[%clk 1:59:59]", "[%clk 9:00:01]"] {
            let mut general = Annotation::default();
            let clock = comment
                .trim()
                .trim_start_matches("[%")
                .trim_end_matches(']');
            general.command(clock.as_bytes());
            assert_eq!(
                lichess_clock_only(comment.as_bytes()),
                general.clock_ms,
                "{comment}"
            );
        }
        for other in [
            "[%clk 0:05:00.1]",
            "[%clk 10:05:00]",
            "[%clk 0:5:00]",
            "[%eval 1] [%clk 0:05:00]",
            "[%clk 0:0x:00]",
            // Sixteen bytes, as lichess's, one of them off.
            " [%clk 0:0x:00] ",
            " [%clk 0;05:00] ",
            " [%clk 0:05:00]]",
            "x[%clk 0:05:00] ",
            " [%clc 0:05:00] ",
        ] {
            assert_eq!(lichess_clock_only(other.as_bytes()), None, "{other}");
        }
        assert_eq!(
            read(&["[%clk 0:00:07]"], Color::White).clock_ms,
            Some(7_000)
        );
    }

    #[test]
    fn prose_and_book_moves_say_nothing() {
        for no in [
            "book",
            "Good move!",
            "1/2-1/2 agreed",
            "",
            "White resigns",
            "M/3",
            "[not %a command]",
        ] {
            assert_eq!(read(&[no], Color::White), Annotation::default(), "{no}");
        }
        // Depth after the lichess evaluation.
        assert_eq!(read(&["[%eval 0.25,18]"], Color::White).depth, Some(18));
        // Negative time left in TCEC once a flag fell.
        assert_eq!(
            read(&["d=1, tl=-11, wv=0.00"], Color::White).clock_ms,
            Some(-11)
        );
    }
}
