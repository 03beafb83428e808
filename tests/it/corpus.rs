//! Corpus test: every file of other projects' parser test inputs (and one
//! TWIC issue) goes through the import without a panic, and every game read
//! is accounted for. Skips with a notice when `../shared` is absent.

use std::io::Read;

use crate::common;

#[test]
#[cfg_attr(shared_data_absent, ignore = "needs ../shared/data")]
fn edge_corpus_and_twic_are_fully_accounted_for() {
    let shared = common::corpus_data();
    let mut inputs = common::files_under(&shared.join("edge"));
    inputs.push(shared.join("corpus/twic0920.pgn"));
    let run = common::import(&inputs, 2);
    let s = &run.summary;
    assert_eq!(s.games_read, s.accepted + s.rejected);
    assert!(s.balanced);
    assert_eq!(s.inputs.len(), inputs.len());
    assert_eq!(s.inputs.iter().map(|i| i.games).sum::<u64>(), s.games_read);
    assert_eq!(run.table("games").height() as u64, s.accepted);
    assert_eq!(run.table("rejects").height() as u64, s.rejected);
    // Per file: games read = its rows in games + its rows in rejects.
    let mut rows_per_source = std::collections::HashMap::<String, u64>::new();
    for table in ["games", "rejects"] {
        let frame = run.table(table);
        for row in 0..frame.height() {
            let source = common::str_at(&frame, "source", row).unwrap_or_default();
            *rows_per_source.entry(source).or_default() += 1;
        }
    }
    for input in &s.inputs {
        let rows = rows_per_source.get(&input.path).copied().unwrap_or(0);
        assert_eq!(
            rows, input.games,
            "{}: read != accepted + rejected",
            input.path
        );
    }
    let by_reason: u64 = s.rejected_by_reason.values().sum();
    assert_eq!(by_reason, s.rejected);
    // The TWIC issue is clean master games: all accepted.
    let twic = s.inputs.last().map(|i| i.games);
    assert_eq!(twic, Some(2245));
    eprintln!(
        "corpus: {} files, {} games read = {} accepted + {} rejected",
        inputs.len(),
        s.games_read,
        s.accepted,
        s.rejected
    );
}

/// Every file under `../shared/data` (the corpus archives, every parser test
/// input, the opening tables and the manifest) goes through `import` and
/// `clean`, and both reconcile their counts: every game framed is accepted,
/// rejected or (for clean) a duplicate, and the two commands agree.
#[test]
#[cfg_attr(shared_data_absent, ignore = "needs ../shared/data")]
fn every_shared_file_is_accounted_for_by_import_and_clean() {
    let shared = common::corpus_data();
    let inputs = common::files_under(&shared);
    let run = common::import(&inputs, 2);
    let s = &run.summary;
    assert!(s.balanced);
    assert_eq!(s.games_read, s.accepted + s.rejected);
    assert_eq!(s.inputs.iter().map(|i| i.games).sum::<u64>(), s.games_read);
    assert!(s.games_read > 500_000, "{}", s.games_read);
    // Summed over speed, rating band and month, the opening tables are
    // those before the dimensions (pgnlake c0b3e60 on the same files).
    assert_eq!(
        common::summed_tree_digest(&run.table("openings"), &run.table("games")),
        (1_518_107, "e4b9d4b0ff4090c8".to_owned())
    );
    assert_eq!(
        common::summed_lines_digest(&run.table("opening_lines")),
        (2_911, "da3683f643a0a0ce".to_owned())
    );

    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let cleaned = pgnlake::clean::run_clean(&pgnlake::clean::CleanOptions {
        rejects: Some(dir.path().join("rejects.pgn")),
        ..common::clean_options(inputs.clone(), &dir.path().join("clean.pgn.zst"))
    })
    .unwrap_or_else(|e| panic!("clean: {e}"));
    assert!(cleaned.balanced);
    assert_eq!(cleaned.games_read, s.games_read);
    assert_eq!(cleaned.clean, s.accepted);
    assert_eq!(cleaned.rejected, s.rejected);
    assert_eq!(cleaned.duplicates, 0);
    eprintln!(
        "every shared file: {} files, {} games read = {} accepted + {} rejected",
        inputs.len(),
        s.games_read,
        s.accepted,
        s.rejected
    );
}

/// The lichess database layout: the lichess sample and two TWIC issues
/// (3.9 MB) compressed by `pzstd` (the tool lichess uses: a skippable frame
/// before every frame; at level 1 two frames, cut inside a game) give the
/// tables of the plain file.
#[test]
#[cfg_attr(shared_data_absent, ignore = "needs ../shared/data")]
fn corpus_compressed_by_pzstd_gives_the_plain_tables() {
    let shared = common::corpus_data();
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let plain = dir.path().join("sample.pgn");
    let text: Vec<u8> = [
        "lichess-2025-05-sample.pgn",
        "twic0920.pgn",
        "twic1599-sample.pgn",
    ]
    .iter()
    .flat_map(|name| std::fs::read(shared.join("corpus").join(name)).unwrap_or_default())
    .collect();
    std::fs::write(&plain, &text).unwrap_or_else(|e| panic!("{e}"));
    let packed = dir.path().join("lichess_db_sample.pgn.zst");
    let pzstd = std::process::Command::new("pzstd")
        .args(["-q", "-p", "2", "-1", "-o"])
        .arg(&packed)
        .arg(&plain)
        .status();
    assert!(
        pzstd.is_ok_and(|status| status.success()),
        "pzstd is missing: run scripts/test (or: apt-get install zstd)"
    );
    let packed_bytes = std::fs::read(&packed).unwrap_or_default();
    let skippable = [0x50, 0x2a, 0x4d, 0x18];
    assert_eq!(
        packed_bytes.get(..4),
        Some(&skippable[..]),
        "not pzstd's layout"
    );
    let frames = packed_bytes.windows(4).filter(|w| *w == skippable).count();
    assert!(frames >= 2, "{frames} frames");
    let reference = common::import(&[plain], 2);
    let run = common::import(&[packed], 2);
    assert_eq!(run.summary.games_read, reference.summary.games_read);
    assert_eq!(run.summary.accepted, reference.summary.accepted);
    assert_eq!(run.summary.truncated_inputs, 0);
    let without_source =
        |frame: polars::prelude::DataFrame| frame.drop("source").unwrap_or_else(|e| panic!("{e}"));
    for table in ["games", "rejects"] {
        assert!(
            without_source(run.table(table))
                .equals_missing(&without_source(reference.table(table))),
            "{table} differs between pzstd and plain"
        );
    }
    eprintln!(
        "corpus via pzstd ({frames} frames): {} games read, {} accepted",
        run.summary.games_read, run.summary.accepted
    );
}

/// The import reads each game in one walk over its movetext (the header as
/// pgn-reader reads it, the movetext with the token audit's lexer). On every
/// fixture and every shared file it reads what pgn-reader and the audit's
/// own walk read: the audit's findings, whether the game parses, and each
/// accepted game's tags, moves, NAGs and comments, in both comment modes.
#[test]
fn the_one_pass_parse_reads_every_game_as_pgn_reader_does() {
    let mut inputs = common::files_under(&common::sample(""));
    match common::shared_data() {
        Some(shared) => inputs.extend(common::files_under(&shared)),
        None => eprintln!("NOTICE: ../shared/data is absent; only sample-data compared"),
    }
    let mut games = 0;
    for path in &inputs {
        let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut data = Vec::new();
        // A file that does not decompress is compared as far as it does.
        let _ = pgnlake::input::decompress(std::io::BufReader::new(file)).read_to_end(&mut data);
        games += pgnlake::fuzzing::one_pass_agrees(&data);
    }
    eprintln!("one pass: {} files, {games} games read alike", inputs.len());
    assert!(games >= 143, "{games}");
}
