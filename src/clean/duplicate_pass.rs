//! Archivist mode, the first pass of `clean --dedupe`: every clean game's key
//! collected in spilling maps (within the memory budget), then merged in key
//! order and grouped; each group's duplicates are returned, by game number,
//! with the kept game's position, for the second (writing) pass.

use crate::clean::dedupe::{
    DedupeMode, DupCodec, DupKey, DupValue, LineCodec, LineValue, contained_losers, losers_of,
};
use crate::clean::game::clean_batch;
use crate::clean::item::{Item, Losers, Modes};
use crate::error::Error;
use crate::input::{InputSource, progress};
use crate::pgn::framer::Batch;
use crate::pipeline;
use crate::stats::spill::{self, BoundedMap, Codec, SpillDir};

/// First pass of `--dedupe`: every clean game's key, grouped; returns the
/// duplicates (by game number) with the kept game's position.
pub(super) fn find_duplicates(
    sources: &[InputSource],
    pool: &rayon::ThreadPool,
    threads: usize,
    modes: Modes,
    mode: DedupeMode,
    memory_limit: u64,
) -> Result<Losers, Error> {
    let spill_at = |name: &str| {
        let pid = std::process::id();
        SpillDir::new(std::env::temp_dir().join(format!("pgnlake-dedupe-{pid}-{name}")))
    };
    let (spill, spill_lines) = (spill_at("keys"), spill_at("lines"));
    let none = Losers::new();
    let modes = Modes {
        dedupe: mode,
        ..modes
    };
    let workers = pipeline::Workers {
        new_state: || (),
        work: |batch: &Batch, _: &mut ()| clean_batch(batch, modes, &none),
        finish: |_| {},
    };
    let budget = usize::try_from(memory_limit).unwrap_or(usize::MAX);
    let keys = KeyCollector {
        map: BoundedMap::new(budget, &spill),
        lines: BoundedMap::new(budget, &spill_lines),
        mode,
        games: 0,
    };
    let bar = progress::import_bar(None, true);
    let (read, collected) = pipeline::run(sources, &[], pool, threads, &bar, workers, keys);
    let collected = collected?;
    read?;
    let names: Vec<String> = sources.iter().map(InputSource::display_name).collect();
    let mut losers = Losers::new();
    if mode == DedupeMode::Contained {
        for_each_group(&spill_lines, collected.lines, |group| {
            contained_losers(group, &names, &mut losers);
        })?;
    } else {
        for_each_group(&spill, collected.map, |group| {
            losers_of(group, &names, &mut losers);
        })?;
    }
    Ok(losers)
}

/// Merges a map's spilled runs in key order and hands each group of
/// entries that share a duplicate key to `on_group`.
fn for_each_group<C: Codec<Key = DupKey>>(
    dir: &SpillDir,
    map: BoundedMap<'_, C>,
    mut on_group: impl FnMut(&mut Vec<(DupKey, C::Value)>),
) -> Result<(), Error> {
    let failed = Error::write(dir.path());
    let part = map.finish().map_err(failed)?;
    let mut group: Vec<(DupKey, C::Value)> = Vec::new();
    for entry in spill::merge::<C>(dir, vec![part]).map_err(failed)? {
        let entry = entry.map_err(failed)?;
        if group
            .first()
            .is_some_and(|first| first.0.key != entry.0.key)
        {
            on_group(&mut group);
            group.clear();
        }
        group.push(entry);
    }
    on_group(&mut group);
    Ok(())
}

/// Collects the key of every clean game of the first pass.
struct KeyCollector<'s> {
    map: BoundedMap<'s, DupCodec>,
    /// For `contained`: the mainlines, by players.
    lines: BoundedMap<'s, LineCodec>,
    mode: DedupeMode,
    games: u64,
}

impl pipeline::Consumer<Vec<Item>> for KeyCollector<'_> {
    fn consume(&mut self, items: Vec<Item>) -> Result<(), Error> {
        for item in items {
            self.games += 1;
            if let Item::Clean {
                place,
                facts: Some(facts),
                ..
            } = item
                && let Some(key) = facts.key(self.mode)
            {
                let dup_key = DupKey {
                    key,
                    game_id: place.game_id,
                };
                match facts.line {
                    Some(line) => {
                        let value = LineValue {
                            richness: facts.richness,
                            source: place.source,
                            game_index: place.game_index,
                            line,
                        };
                        self.lines.upsert(dup_key, || value, |_| {});
                    }
                    None => {
                        let value = DupValue {
                            richness: facts.richness,
                            source: place.source,
                            game_index: place.game_index,
                        };
                        self.map.upsert(dup_key, || value, |_| {});
                    }
                }
            }
        }
        Ok(())
    }

    fn games(&self) -> u64 {
        self.games
    }
}
