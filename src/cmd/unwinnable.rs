//! `pgnlake unwinnable`: for one FEN per line, whether each side can still
//! checkmate, as one JSON object per line.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;

use serde_json::{Value, json};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color};

use crate::cli::UnwinnableArgs;
use crate::cmd::ExitStatus;
use crate::error::Error;
use crate::replay::unwinnable::{Verdict, can_mate};

pub fn run(args: UnwinnableArgs) -> Result<ExitStatus, Error> {
    let name = args.input.display().to_string();
    let input: Box<dyn BufRead> = if args.input == Path::new("-") {
        Box::new(std::io::stdin().lock())
    } else {
        let file = File::open(&args.input).map_err(|source| Error::Read {
            path: name.clone(),
            source,
        })?;
        Box::new(BufReader::new(file))
    };
    let mut out = BufWriter::new(std::io::stdout().lock());
    let write_error = Error::write(Path::new("-"));
    for line in input.lines() {
        let line = line.map_err(|source| Error::Read {
            path: name.clone(),
            source,
        })?;
        let Some(fen) = fen_of_line(&line) else {
            continue;
        };
        writeln!(out, "{}", answer(&fen, args.nodes)).map_err(write_error)?;
    }
    out.flush().map_err(write_error)?;
    Ok(ExitStatus::Success)
}

/// The FEN of a line: from its first field with a `/` (a label before it
/// is skipped), four fields, and the two move counters when they follow.
/// None for a blank line or a `#` comment.
fn fen_of_line(line: &str) -> Option<String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let fields: Vec<&str> = line
        .split_whitespace()
        .skip_while(|f| !f.contains('/'))
        .collect();
    let counters = fields
        .get(4..6)
        .is_some_and(|c| c.iter().all(|f| f.parse::<u32>().is_ok()));
    let take = if counters { 6 } else { fields.len().min(4) };
    // `take` is at most the fields there are.
    let fen = fields[..take].join(" ");
    Some(if fen.is_empty() { line.to_owned() } else { fen })
}

/// The JSON object of one FEN: each side's verdict and helpmate, or why
/// the FEN is no position.
fn answer(fen: &str, nodes: u64) -> Value {
    // Chess960 castling only where the FEN needs it, so that UCI writes
    // standard castling as e1g1.
    let position = Fen::from_ascii(fen.as_bytes())
        .map_err(|e| e.to_string())
        .and_then(|f| {
            let mode = CastlingMode::detect(f.as_setup());
            f.into_position::<Chess>(mode)
                .map(|pos| (pos, mode))
                .map_err(|e| e.to_string())
        });
    let (pos, mode) = match position {
        Ok(found) => found,
        Err(error) => return json!({ "fen": fen, "error": error }),
    };
    let [white, black] = [Color::White, Color::Black].map(|side| can_mate(&pos, side, nodes));
    let helpmate = |verdict: &Verdict| match verdict {
        Verdict::Winnable(line) => json!(
            line.iter()
                .map(|&m| UciMove::from_move(m, mode).to_string())
                .collect::<Vec<_>>()
        ),
        _ => Value::Null,
    };
    json!({
        "fen": fen,
        "white": white.as_str(),
        "black": black.as_str(),
        "white_helpmate": helpmate(&white),
        "black_helpmate": helpmate(&black),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_give_their_fen() {
        let fen = "8/8/8/4k3/8/8/3QK3/8 w - - 0 1";
        assert_eq!(fen_of_line(fen).as_deref(), Some(fen));
        assert_eq!(
            fen_of_line("WB 8/8/8/4k3/8/8/3QK3/8 w - -").as_deref(),
            Some("8/8/8/4k3/8/8/3QK3/8 w - -")
        );
        assert_eq!(
            fen_of_line("8/8/8/4k3/8/8/3QK3/8 w - - 3 40 QzZqHm8A").as_deref(),
            Some("8/8/8/4k3/8/8/3QK3/8 w - - 3 40")
        );
        assert_eq!(
            fen_of_line("8/8/8/4k3/8/8/3QK3/8 w - - QzZqHm8A").as_deref(),
            Some("8/8/8/4k3/8/8/3QK3/8 w - -")
        );
        assert_eq!(fen_of_line("  # a comment"), None);
        assert_eq!(fen_of_line(""), None);
    }

    #[test]
    fn answers_name_both_sides() {
        let value = answer("8/8/8/4k3/8/8/3NK3/8 w - - 0 1", 1000);
        assert_eq!(value["white"], "unwinnable");
        assert_eq!(value["black"], "unwinnable");
        assert_eq!(value["white_helpmate"], Value::Null);
        let value = answer("8/8/8/4k3/8/8/3QK3/8 w - - 0 1", 100_000);
        assert_eq!(value["white"], "winnable");
        assert_eq!(value["black"], "unwinnable");
        assert!(
            value["white_helpmate"]
                .as_array()
                .is_some_and(|m| !m.is_empty())
        );
        assert!(answer("nonsense", 10)["error"].is_string());
    }
}
