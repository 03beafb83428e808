//! Fuzz target `replay`: a start position (standard, a FEN, Chess960) and a
//! sequence of move tokens, each either SAN text or an index into the legal
//! moves (so that long legal games are common), through setup, replay,
//! outcome detection, material and opening classification.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgnlake::fuzzing::{ReplayInput, replay_tokens};

fuzz_target!(|input: ReplayInput| {
    replay_tokens(&input);
});
