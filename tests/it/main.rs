//! pgnlake's integration tests: one binary (as ripgrep and ruff do), so that
//! polars is linked once and the shared helpers in `common` serve every module.
//! Each module tests one command or one property end to end on the fixtures
//! in `sample-data/`; corpus tests that need `../shared/data` are reported
//! as ignored, with that reason, when it is absent (`common::corpus_data`).

mod common;

mod clean;
mod cli;
mod compression;
mod corpus;
mod differential;
mod docs;
mod export;
mod faults;
mod fuzz_regressions;
mod history;
mod import;
mod input_limits;
mod lake;
mod lake_faults;
mod layering;
mod material_oracle;
mod moves;
mod novelty;
mod openings;
mod outcomes;
mod outputs;
mod properties;
mod query;
mod repair;
mod report;
mod roundtrip;
mod search;
mod serve;
mod serve_api;
mod serve_docs;
mod serve_games;
mod serve_page;
mod shard;
mod shipped_queries;
mod spark;
mod summary_checks;
mod tables_before;
mod top_games;
mod top_games_compact;
mod tree_oracle;
mod unwinnable;
mod variants;
mod write_faults;
