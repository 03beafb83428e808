//! The import, merge, summary: the shards' `summary.json`s reconciled into
//! the one a single import of the same inputs writes: counts added up,
//! each input listed once however many shards read part of it, and the
//! tables' rows as merged (the tree's after `--opening-min-games`).

use std::collections::BTreeMap;

use crate::pgn::annotations::AnnotationCounts;
use crate::replay::dead::UnwinnableCounts;
use crate::sink::summary::{InputSummary, Summary};

use super::shards::ShardDir;

/// The shards' summaries as one run's: counts added up, each input once
/// (its parts' games added up), the tables' rows as merged.
pub(super) fn merged_summary(
    first: &Summary,
    shards: &[ShardDir],
    tables: &BTreeMap<&'static str, u64>,
    min_games: u32,
    dropped: u64,
) -> Summary {
    let summaries: Vec<&Summary> = shards.iter().map(|s| &s.summary).collect();
    let mut summary = first.clone();
    // Saturating: the counts come from files. The games (and so every
    // count that adds up to them) fit, as `read_shards` checked; the
    // others (repairs, spills, annotations) would stop at 2^64 − 1 rather
    // than wrap or panic.
    let sum = |field: fn(&Summary) -> u64| -> u64 {
        summaries
            .iter()
            .fold(0, |total, s| total.saturating_add(field(s)))
    };
    let add_maps = |field: fn(&Summary) -> &BTreeMap<String, u64>| {
        let mut total: BTreeMap<String, u64> = BTreeMap::new();
        for (name, n) in summaries.iter().flat_map(|s| field(s)) {
            let at = total.entry(name.clone()).or_default();
            *at = at.saturating_add(*n);
        }
        total
    };
    let (read, accepted, rejected) = (
        sum(|s| s.games_read),
        sum(|s| s.accepted),
        sum(|s| s.rejected),
    );
    let inputs = merged_inputs(shards);
    let framed: u64 = inputs.iter().map(|i| i.games).sum();
    summary.balanced =
        summaries.iter().all(|s| s.balanced) && read == accepted + rejected && framed == read;
    summary.truncated_inputs = inputs.iter().filter(|i| i.truncated.is_some()).count() as u64;
    summary.options.inputs = inputs.iter().map(|i| i.path.clone()).collect();
    summary.inputs = inputs;
    summary.shard = None;
    summary.merged_shards = Some(shards.len());
    summary.games_read = read;
    summary.accepted = accepted;
    summary.rejected = rejected;
    summary.rejected_by_reason = add_maps(|s| &s.rejected_by_reason);
    summary.end_states = add_maps(|s| &s.end_states);
    summary.result_checks = add_maps(|s| &s.result_checks);
    summary.repaired = sum(|s| s.repaired);
    summary.repairs = add_maps(|s| &s.repairs);
    // Counted with --moves only (null otherwise, in every shard alike).
    summary.annotations = summaries
        .iter()
        .filter_map(|s| s.annotations)
        .reduce(|total, a| AnnotationCounts {
            clocks: total.clocks.saturating_add(a.clocks),
            move_times: total.move_times.saturating_add(a.move_times),
            evals: total.evals.saturating_add(a.evals),
            malformed: total.malformed.saturating_add(a.malformed),
        });
    summary.unwinnability = summaries
        .iter()
        .fold(UnwinnableCounts::default(), |total, s| {
            let u = &s.unwinnability;
            UnwinnableCounts {
                winnable: total.winnable.saturating_add(u.winnable),
                unwinnable: total.unwinnable.saturating_add(u.unwinnable),
                undetermined: total.undetermined.saturating_add(u.undetermined),
                not_asked: total.not_asked.saturating_add(u.not_asked),
            }
        });
    let mut skipped: Vec<String> = Vec::new();
    for name in summaries.iter().flat_map(|s| &s.skipped_entries) {
        if !skipped.contains(name) {
            skipped.push(name.clone());
        }
    }
    summary.skipped_entries = skipped;
    summary.elapsed_seconds = summaries.iter().map(|s| s.elapsed_seconds).sum();
    summary.games_per_second = if summary.elapsed_seconds > 0.0 {
        read as f64 / summary.elapsed_seconds
    } else {
        0.0
    };
    summary.tables = tables.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect();
    summary.peak_rss_bytes = summaries.iter().filter_map(|s| s.peak_rss_bytes).max();
    let tree = &mut summary.opening_tree;
    // Every run writes the tree's table (see `StatsWriters`).
    let written = tables["openings.parquet"];
    tree.min_games = min_games;
    tree.rows = written + dropped;
    tree.rows_dropped = dropped;
    tree.spill_runs = summaries.iter().fold(0, |total, s| {
        total.saturating_add(s.opening_tree.spill_runs)
    });
    tree.spill_rows = sum(|s| s.opening_tree.spill_rows);
    tree.spill_bytes = sum(|s| s.opening_tree.spill_bytes);
    // The largest of the shards' (there is at least one: `run_merge`).
    tree.peak_memory_bytes = summaries
        .iter()
        .map(|s| s.opening_tree.peak_memory_bytes)
        .max()
        .unwrap_or(0);
    summary
}

/// Each input once, in shard order: the games of its parts added up, its
/// size and truncation from the part that read it to the end.
fn merged_inputs(shards: &[ShardDir]) -> Vec<InputSummary> {
    let mut inputs: Vec<InputSummary> = Vec::new();
    for input in shards.iter().flat_map(|s| &s.summary.inputs) {
        let whole_or_last = input.part.as_ref().is_none_or(|p| p.end.is_none());
        match inputs.last_mut().filter(|last| last.path == input.path) {
            Some(last) => {
                // Within the games read, which fit (see `read_shards`).
                last.games = last.games.saturating_add(input.games);
                if whole_or_last {
                    last.uncompressed_bytes = input.uncompressed_bytes;
                    last.truncated = input.truncated.clone();
                }
            }
            None => inputs.push(InputSummary {
                part: None,
                ..input.clone()
            }),
        }
    }
    inputs
}
