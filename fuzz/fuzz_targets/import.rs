//! Fuzz target `import`: arbitrary bytes as a PGN stream through the whole
//! per-game path: framing, parsing, token audit, replay, outcomes, result
//! audit, row building and the aggregates. Every game framed must come out
//! as exactly one accepted or rejected row.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgnlake::fuzzing::import_bytes;

fuzz_target!(|data: &[u8]| {
    import_bytes(data);
});
