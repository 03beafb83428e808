//! `pgnlake clean`: runs the clean pipeline and reports its accounting.

use crate::clean::{CleanOptions, run_clean};
use crate::cli::CleanArgs;
use crate::cmd::{ExitStatus, report_truncations};
use crate::error::Error;

pub fn run(args: CleanArgs) -> Result<ExitStatus, Error> {
    let options = CleanOptions {
        inputs: args.inputs,
        output: args.output,
        rejects: args.rejects,
        threads: args.threads,
        quiet: args.quiet,
        fix_results: args.fix_results,
        report: args.report,
        repair: args.repair || args.salvage,
        salvage: args.salvage,
        dedupe: args.dedupe,
        duplicates: args.duplicates,
        memory_limit: args.memory_limit,
        enrich: crate::clean::enrich::Enrich::new(&args.add_tags, args.overwrite_tags, &args.strip),
        split_by: args.split_by,
    };
    let summary = run_clean(&options)?;
    if !options.quiet {
        eprint!("{}", summary.to_text());
    }
    if let Some(code) = report_truncations(&summary.inputs) {
        return Ok(code);
    }
    Ok(ExitStatus::Success)
}
