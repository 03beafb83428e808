//! Archivist mode, the run of `pgnlake clean`: discover the inputs, open the
//! outputs, the first pass of `--dedupe` when asked, then the ordered pass
//! that cleans and writes every game, and the accounting at the end.

use std::collections::HashMap;
use std::path::Path;

use crate::clean::dedupe::DedupeMode;
use crate::clean::duplicate_pass::find_duplicates;
use crate::clean::game::clean_batch;
use crate::clean::item::Modes;
use crate::clean::options::{CleanOptions, CleanSummary};
use crate::clean::output::{CleanConsumer, Outputs, close, create};
use crate::clean::report::ReportWriter;
use crate::error::Error;
use crate::input::{self, InputSource, progress};
use crate::pgn::framer::Batch;
use crate::pipeline;
use crate::sink::lock::OutputLock;

/// Runs `clean` and returns its accounting.
pub fn run_clean(options: &CleanOptions) -> Result<CleanSummary, Error> {
    let input::Discovered {
        sources,
        skipped_entries,
    } = input::discover(&options.inputs)?;
    if options.dedupe != DedupeMode::None && sources.contains(&InputSource::Stdin) {
        return Err(Error::Usage(
            "--dedupe reads the inputs twice and cannot read stdin (-): pass files".into(),
        ));
    }
    let (pool, threads) = pipeline::worker_pool(options.threads)?;
    // Held to the end of the run: a second run writing this file refuses.
    let _lock = (options.output != Path::new("-"))
        .then(|| OutputLock::for_file(&options.output))
        .transpose()
        .map_err(|source| Error::Locked {
            path: options.output.clone(),
            source,
        })?;
    if options.split_by.is_some() && options.output == Path::new("-") {
        return Err(Error::Usage(
            "--split-by writes files named after -o OUT: give a file, not -".into(),
        ));
    }
    let output = Outputs::new(&options.output, options.split_by)?;
    let rejects = options.rejects.as_deref().map(create).transpose()?;
    let total_bytes = sources.iter().map(InputSource::size).sum::<Option<u64>>();
    let bar = progress::import_bar(total_bytes, options.quiet || output.is_stdout());
    let modes = Modes {
        fix_results: options.fix_results,
        repair: options.repair,
        salvage: options.salvage,
        dedupe: DedupeMode::None,
        enrich: options.enrich,
        split_by: options.split_by,
    };
    let losers = match options.dedupe {
        DedupeMode::None => HashMap::new(),
        mode => find_duplicates(&sources, &pool, threads, modes, mode, options.memory_limit)?,
    };
    let duplicates = options.duplicates.as_deref().map(create).transpose()?;
    let workers = pipeline::Workers {
        new_state: || (),
        work: |batch: &Batch, _: &mut ()| clean_batch(batch, modes, &losers),
        finish: |_| {},
    };
    let report = options
        .report
        .as_deref()
        .map(ReportWriter::create)
        .transpose()?;
    let consumer = CleanConsumer {
        summary: CleanSummary::default(),
        output,
        rejects,
        duplicates,
        report,
        sources: sources.iter().map(InputSource::display_name).collect(),
    };
    let (read, consumed) = pipeline::run(&sources, &[], &pool, threads, &bar, workers, consumer);
    bar.finish_and_clear();
    let consumer = consumed?;
    let inputs = read?;
    let CleanConsumer {
        mut summary,
        output,
        rejects,
        duplicates,
        report,
        ..
    } = consumer;
    let framed: u64 = inputs.iter().map(|i| i.games).sum();
    summary.balanced = summary.games_read == framed
        && summary.games_read == summary.clean + summary.rejected + summary.duplicates;
    debug_assert!(summary.balanced, "framed {framed}: {summary:?}");
    summary.inputs = inputs;
    summary.skipped_entries = skipped_entries;
    // Every output finished before any is renamed: a full disk or a
    // refusing device fails the run with every file as it was.
    let (mut staged, outputs) = output.close()?;
    for extra in [rejects, duplicates].into_iter().flatten() {
        staged.extend(close(extra)?);
    }
    if let Some(report) = report {
        let (report, rows) = report.close()?;
        staged.extend(report);
        summary.report_rows = rows;
    }
    summary.outputs = outputs;
    crate::interrupt::commit(|| {
        for file in staged {
            let target = file.target().to_path_buf();
            file.commit().map_err(Error::write(&target))?;
        }
        Ok(summary)
    })
}
