//! `pgnlake key`: prints a position's key as the opening tree stores it
//! (`position_key`), so that its rows are found by key in any engine, as
//! rows of one game carry no EPD to find them by.

use crate::cli::KeyArgs;
use crate::cmd::{ExitStatus, print_stdout};
use crate::error::Error;
use crate::read::explore::stored_key_of_fen;

pub fn run(args: KeyArgs) -> Result<ExitStatus, Error> {
    // A FEN given unquoted arrives as its fields.
    let key = stored_key_of_fen(&args.fen.join(" "))?;
    print_stdout(&format!("{key}\n"))?;
    Ok(ExitStatus::Success)
}
