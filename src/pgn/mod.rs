//! PGN stage: frame the byte stream into games, parse each game with
//! pgn-reader, and audit its movetext tokens.

pub mod encoding;
pub mod framer;
pub mod movetext;
pub mod time_control;
pub mod visitor;
