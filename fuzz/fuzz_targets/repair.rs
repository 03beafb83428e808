//! Fuzz target `repair`: `clean --repair`'s reading of moves in other
//! notations, on arbitrary movetext from a chosen start position; every
//! repaired move must be legal and its SAN must read back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pgnlake::fuzzing::{RepairInput, repair_movetext};

fuzz_target!(|input: RepairInput| {
    repair_movetext(&input);
});
