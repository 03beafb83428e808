//! `pgnlake report`: writes an import's charts as one HTML file.

use crate::cli::ReportArgs;
use crate::cmd::ExitStatus;
use crate::error::Error;
use crate::report::write_report;

pub fn run(args: ReportArgs) -> Result<ExitStatus, Error> {
    let written = write_report(&args.data, &args.output)?;
    if args.output.as_os_str() != "-" {
        eprintln!(
            "{}: {} charts, {} KiB",
            args.output.display(),
            written.charts,
            written.bytes.div_ceil(1024)
        );
    }
    Ok(ExitStatus::Success)
}
