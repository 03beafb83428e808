//! Fuzz target `tags`: arbitrary bytes as a PGN stream, framed, and every
//! game's tag section read by each reader built on the one tag-line scanner
//! (`pgn::tag_line`): the framer, the header reader, the one-pass lexer and
//! the repair reader must agree beyond their stated differences.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgnlake::fuzzing::tag_readers_agree;

fuzz_target!(|data: &[u8]| {
    tag_readers_agree(data);
});
