//! The tables against the build before a change of meaning: every table of
//! an import of `sample-data/` (default options, then `--moves`) as its
//! bytes' digest, and the tree and `opening_lines` summed into the rating
//! bands of the build before the bands changed (2500 into 2400, 2700 into
//! 2600), in a snapshot whose values were those of that build (4618094,
//! checked with `benches/ab-tables.sh`, which also covers the corpus). A
//! change that moves a byte of any table shows here. Issue 56 moved two:
//! `games` gained `first_moves`, and the tree's `ply` became each row's
//! own (its game's, not its position's over every move); the tree's counts
//! are those before (`openings::summed_over_the_dimensions_…` keeps the
//! old digest of the counts, spelling and position plies). Issue 65 moved
//! `games` again: it gained the search pre-filter's six columns; every
//! other column of every table was checked equal to the build before on
//! pgnmentor's 454,274 games (pyarrow, `Table.equals` with the new columns
//! dropped); then `games` lost `first_moves` (the tree's witness games are
//! replayed from `moves_uci`), every other table and column unchanged.

use std::path::Path;

use pgnlake::sink::schema::{self, Merge, Table};

/// FNV-1a 64 of bytes, as text.
fn digest(bytes: &[u8]) -> String {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for &byte in bytes {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// The SQL that sums a table of the opening statistics into the old bands,
/// by its columns' merge roles (as `benches/ab-tables.sh` writes it).
fn old_bands_sql(table: &Table) -> String {
    let band = "CASE rating_band WHEN 2500 THEN 2400 WHEN 2700 THEN 2600 ELSE rating_band END";
    let (mut keys, mut columns) = (Vec::new(), Vec::new());
    for column in table.columns {
        let name = column.name;
        let expr = if name == "rating_band" { band } else { name };
        match column.merge {
            Merge::Key => {
                keys.push(expr);
                columns.push(format!("{expr} AS {name}"));
            }
            Merge::Same | Merge::Min => columns.push(format!("MIN({name}) AS {name}")),
            Merge::Max => columns.push(format!("MAX({name}) AS {name}")),
            Merge::Sum => columns.push(format!("SUM({name}) AS {name}")),
            // The games a row names and its spelling (issue 56) are not
            // in the build before: the counts are compared.
            Merge::Derived
            | Merge::Row
            | Merge::Witness
            | Merge::Top
            | Merge::Earliest
            | Merge::Latest
            | Merge::Spelled => {}
        }
    }
    let order: Vec<String> = keys.iter().map(|k| format!("{k} NULLS FIRST")).collect();
    format!(
        "SELECT {} FROM {} GROUP BY {} ORDER BY {}",
        columns.join(", "),
        table.name,
        keys.join(", "),
        order.join(", ")
    )
}

/// The stdout of `pgnlake ARGS`, which must succeed (run from the
/// checkout, so that the inputs' paths in the tables are `sample-data/…`
/// wherever it is).
fn stdout_bytes(args: &[&str]) -> Vec<u8> {
    let output = crate::common::pgnlake(args);
    assert!(output.status.success(), "{args:?}: {output:?}");
    output.stdout
}

/// One line per table of the import in `out`.
fn tables(out: &Path) -> Vec<String> {
    let data = out.to_str().unwrap();
    let mut lines = Vec::new();
    for table in schema::TABLES {
        let path = out.join(format!("{}.parquet", table.name));
        if !path.exists() {
            continue;
        }
        let line = if [
            schema::openings::TABLE.name,
            schema::opening_lines::TABLE.name,
        ]
        .contains(&table.name)
        {
            let sql = old_bands_sql(table);
            let csv = stdout_bytes(&["query", "--data", data, "--format", "csv", "-e", &sql]);
            let rows = csv.iter().filter(|&&b| b == b'\n').count() - 1;
            format!(
                "{}: {} in the old bands ({rows} rows)",
                table.name,
                digest(&csv)
            )
        } else {
            let bytes = std::fs::read(&path).unwrap();
            format!("{}: {} ({} bytes)", table.name, digest(&bytes), bytes.len())
        };
        lines.push(line);
    }
    lines
}

#[test]
fn the_tables_of_sample_data_are_those_of_the_build_before() {
    let dir = tempfile::tempdir().unwrap();
    let mut report = Vec::new();
    for (name, extra) in [("default", None), ("--moves", Some("--moves"))] {
        let out = dir.path().join(name);
        let mut args = vec!["import", "sample-data", "--quiet", "--out"];
        args.push(out.to_str().unwrap());
        args.extend(extra);
        stdout_bytes(&args);
        report.push(format!("{name}:"));
        report.extend(tables(&out).into_iter().map(|l| format!("  {l}")));
    }
    insta::assert_snapshot!(report.join("\n"));
}
